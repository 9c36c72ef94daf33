import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Secret } from '../domain/secrets/model.ts';
import { secretKey as key } from './items/index.ts';
import { fromItem } from './secretItem.ts';

/** One secret, strongly consistent (a claim or revoke just before must be seen). */
export async function getSecret(db: DynamoDBDocumentClient, tableName: string, id: string): Promise<Secret | null> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: key(id), ConsistentRead: true }));
  return Item ? fromItem(Item) : null;
}
