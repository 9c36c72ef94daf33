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
    ...(options.endpoint ? { endpoint: options.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
    maxAttempts: 3,
  });
  // The SDK's logger middleware filters every call's input and output for sensitive fields
  // before handing them to its logger, even the no-op one it has when given none (as here):
  // work on every call for a log nobody writes. Our own logs name the calls that matter.
  client.middlewareStack.remove('loggerMiddleware');
  client.middlewareStack.add(retryTransactionConflicts(), { step: 'initialize', name: 'retryTransactionConflicts' });
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
}

/** How conflicts are retried: attempts in all, and the full-jitter back-off between them. */
export const conflictRetry = { attempts: 6, baseMs: 10, capMs: 400 } as const;

/**
 * True for DynamoDB's answers to writes that met another transaction on the same item: a
 * transaction cancelled with a `TransactionConflict` reason, or a single write refused with
 * `TransactionConflictException`. Nothing was written, and the SDK does not retry either.
 * DynamoDB Local serializes transactions and never answers them; AWS does under load.
 */
export function isTransactionConflict(error: unknown): boolean {
  const { name, CancellationReasons } = (error ?? {}) as { name?: string; CancellationReasons?: Array<{ Code?: string }> };
  if (name === 'TransactionConflictException') return true;
  return name === 'TransactionCanceledException' && (CancellationReasons ?? []).some((reason) => reason.Code === 'TransactionConflict');
}

/**
 * Retries a write that lost to a concurrent transaction, after a full-jitter exponential wait
 * (so racing writers spread out instead of colliding again), at most `conflictRetry.attempts`
 * times in all; the last conflict is thrown. Every store gets it from `createDocumentClient`,
 * so no caller sees a conflict that a moment's wait would have resolved.
 */
export function retryTransactionConflicts(options: { attempts: number; baseMs: number; capMs: number } = conflictRetry, wait = sleep) {
  return <Args, Output extends object>(next: (args: Args) => Promise<Output>) =>
    async (args: Args): Promise<Output> => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await next(args);
        } catch (error) {
          if (attempt >= options.attempts || !isTransactionConflict(error)) throw error;
          await wait(Math.random() * Math.min(options.capMs, options.baseMs * 2 ** attempt));
        }
      }
    };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** True for the error DynamoDB returns when a write's condition does not hold. */
export function isConditionFailure(error: unknown): error is { name: string; Item?: Record<string, unknown> } {
  return (error as { name?: string } | null)?.name === 'ConditionalCheckFailedException';
}

/** A transaction refused because one of its conditions did not hold. */
export function isCancelledByCondition(error: unknown): boolean {
  const reasons = (error as { name?: string; CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons;
  return (
    (error as { name?: string }).name === 'TransactionCanceledException' &&
    (reasons ?? []).some((reason) => reason.Code === 'ConditionalCheckFailed')
  );
}
