import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll } from 'vitest';
import { ensureTable, startDynamoLocal, type LocalDynamo } from '../../local/dynamodb.ts';
import { createDocumentClient } from '../../shared/store/client.ts';
import { dropTable, sharedDynamoEndpoint, uniqueTableName } from '../support/dynamo.ts';

/**
 * DynamoDB Local for a contract file (not the whole runtime): the worker's emulator under
 * `npm test` (test/support/sharedDynamo.ts), else one of its own; a table of its own, shared by
 * the ports whose tests keep apart by fresh ids, and fresh tables for the ports that read the
 * whole table (work indexes, the one signing-keys item). Every table is dropped at the end.
 */
export function dynamoLocal() {
  const tableName = uniqueTableName('contracts');
  const tables: string[] = [];
  let dynamo: LocalDynamo | undefined;
  let db: DynamoDBDocumentClient | undefined;
  beforeAll(async () => {
    const shared = await sharedDynamoEndpoint();
    if (shared === undefined) dynamo = await startDynamoLocal({ tableName });
    else {
      dynamo = { endpoint: shared, stop: async () => undefined };
      await ensureTable(shared, tableName);
    }
    tables.push(tableName);
    db = createDocumentClient({ region: 'local', endpoint: dynamo.endpoint });
  });
  afterAll(async () => {
    db?.destroy();
    if (dynamo) await Promise.all(tables.map((name) => dropTable(dynamo!.endpoint, name).catch(() => undefined)));
    await dynamo?.stop();
  });
  return {
    tableName,
    get db(): DynamoDBDocumentClient {
      if (!db) throw new Error('DynamoDB Local is not started yet (use it in a test or a beforeEach)');
      return db;
    },
    /** A new empty table with the stack's definition (a few tens of ms on DynamoDB Local). */
    async freshTable(): Promise<string> {
      const name = uniqueTableName('contracts');
      await ensureTable(dynamo!.endpoint, name);
      tables.push(name);
      return name;
    },
  };
}
