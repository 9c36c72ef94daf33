import { createHash, randomBytes } from 'node:crypto';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { expect, inject } from 'vitest';
import { ensureTable, startDynamoLocal, type LocalDynamo } from '../../local/dynamodb.ts';

/**
 * Names this test file to the launcher: its path, so every call from one file carries the same
 * token and another file's another, also where a worker keeps its modules from file to file
 * (the property step); a token of this module's own where vitest names no file.
 */
const moduleToken = randomBytes(8).toString('hex');
const fileToken = () => {
  const path = expect.getState().testPath;
  return path ? createHash('sha256').update(path).digest('hex').slice(0, 16) : moduleToken;
};

/**
 * This file's DynamoDB Local under `npm test`, the property step and e2e (test/support/sharedDynamo.ts
 * has it started before the file asks); undefined outside such a run (a bench, a script).
 */
export async function sharedDynamoEndpoint(): Promise<string | undefined> {
  let launcher: string | undefined;
  try {
    launcher = inject('dynamoLauncher');
  } catch {
    return undefined;
  }
  if (!launcher) return undefined;
  const response = await fetch(`${launcher}/${process.env.VITEST_POOL_ID ?? '1'}/${fileToken()}`);
  const text = await response.text();
  if (!response.ok) throw new Error(`the shared DynamoDB Local did not start: ${text}`);
  return text;
}

/** A table name no other file of the run uses. */
export const uniqueTableName = (prefix = 'hushlink') => `${prefix}-${randomBytes(6).toString('hex')}`;

export async function dropTable(endpoint: string, tableName: string): Promise<void> {
  const db = new DynamoDBClient({ endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  try {
    await db.send(new DeleteTableCommand({ TableName: tableName }));
  } finally {
    db.destroy();
  }
}

/**
 * A table of the stack's definition for a test file that needs DynamoDB Local but not the whole
 * runtime: on the worker's shared emulator (dropped at `stop()`), or, outside `npm test`, on an
 * emulator of its own.
 */
export async function startTestTable(prefix?: string): Promise<LocalDynamo & { tableName: string }> {
  const tableName = uniqueTableName(prefix);
  const endpoint = await sharedDynamoEndpoint();
  if (endpoint === undefined) {
    const own = await startDynamoLocal({ tableName });
    return { ...own, tableName };
  }
  await ensureTable(endpoint, tableName);
  return { endpoint, tableName, stop: () => dropTable(endpoint, tableName) };
}
