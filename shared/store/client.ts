import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export interface DynamoOptions {
  region: string;
  /** DynamoDB Local in the local runtime; unset in AWS. */
  endpoint?: string | undefined;
}

/** The one way the service talks to DynamoDB. Binary attributes come back as Uint8Array. */
export function createDocumentClient(options: DynamoOptions): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    region: options.region,
    ...(options.endpoint
      ? { endpoint: options.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
    maxAttempts: 3,
  });
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
}

/** True for the error DynamoDB returns when a write's condition does not hold. */
export function isConditionFailure(error: unknown): error is { name: string; Item?: Record<string, unknown> } {
  return (error as { name?: string } | null)?.name === 'ConditionalCheckFailedException';
}

/** A transaction refused because one of its conditions did not hold. */
export function isCancelledByCondition(error: unknown): boolean {
  const reasons = (error as { name?: string; CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons;
  return (error as { name?: string }).name === 'TransactionCanceledException' && (reasons ?? []).some((reason) => reason.Code === 'ConditionalCheckFailed');
}
