import { DynamoDBServiceException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { tableDefinition } from '../../../shared/store/table.ts';
import { injectDynamoFaults, type DynamoCall } from '../faults.ts';

/**
 * The property suites' DynamoDB client: answers as AWS where DynamoDB Local is laxer, and keeps
 * the calls it sees, so a test can say a request never reached the table.
 */

const keyBytes = new Map<string, number>([
  [tableDefinition.partitionKey, 2048],
  [tableDefinition.sortKey, 1024],
  ...tableDefinition.indexes.flatMap(
    (index): Array<[string, number]> => [
      [index.partitionKey, 2048],
      [index.sortKey, 1024],
    ],
  ),
]);

/**
 * AWS refuses a start key holding a key value over DynamoDB's sizes (2048 bytes for a
 * partition key, 1024 for a sort key) with a ValidationException, as it refuses such a key
 * anywhere; DynamoDB Local lets an oversized ExclusiveStartKey through.
 */
export function oversizedStartKey(call: DynamoCall): Error | null {
  if (call.command !== 'Query' && call.command !== 'Scan') return null;
  const startKey = call.input.ExclusiveStartKey as Record<string, unknown> | undefined;
  for (const [name, raw] of Object.entries(startKey ?? {})) {
    const value = typeof raw === 'object' && raw !== null && 'S' in raw ? (raw as { S: unknown }).S : raw;
    const limit = keyBytes.get(name);
    if (limit !== undefined && typeof value === 'string' && Buffer.byteLength(value) > limit) {
      return new DynamoDBServiceException({
        name: 'ValidationException',
        $fault: 'client',
        $metadata: { httpStatusCode: 400, attempts: 1, totalRetryDelay: 0 },
        message: `One or more parameter values were invalid: Size of key ${name} exceeds the limit of ${limit} bytes`,
      });
    }
  }
  return null;
}

/** Calls the runtime's client made, newest last (bounded). */
export class DynamoCalls {
  private readonly calls: DynamoCall[] = [];
  /** The runtime's table client, for a test to read what was written. */
  client: DynamoDBDocumentClient | undefined;

  instrument = (client: DynamoDBDocumentClient): void => {
    this.client = client;
    injectDynamoFaults((call) => {
      this.calls.push(call);
      if (this.calls.length > 1000) this.calls.splice(0, 500);
      return oversizedStartKey(call);
    })(client);
  };

  /** The calls made while `action` ran (other calls made meanwhile are included). */
  async during(action: () => Promise<unknown>): Promise<DynamoCall[]> {
    const before = this.calls.length;
    const marker = this.calls[before - 1];
    await action();
    const start = marker === undefined ? 0 : this.calls.lastIndexOf(marker) + 1;
    return this.calls.slice(start);
  }
}
