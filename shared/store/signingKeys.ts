import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SigningKey } from '../domain/accounts/model.ts';
import type { SigningKeyStore } from '../domain/accounts/ports.ts';
import { isConditionFailure } from './client.ts';
import { signingKeysKey, type SigningKeysItem } from './items/index.ts';

const key = signingKeysKey();

/**
 * The access-token signing keys, newest first, in one item: every instance reads the same
 * list, and a rotation is one conditional write on the newest key's id.
 */
export class DynamoSigningKeyStore implements SigningKeyStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async list(): Promise<SigningKey[]> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }));
    return (Item?.keys as SigningKey[] | undefined) ?? [];
  }

  async add(signingKey: SigningKey, expectedNewestKid: string | null, keep: number): Promise<boolean> {
    const keys = [signingKey, ...(await this.list())].slice(0, keep);
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...key, type: 'signing_keys', newest_kid: signingKey.kid, keys } satisfies SigningKeysItem,
          ...(expectedNewestKid === null
            ? { ConditionExpression: 'attribute_not_exists(pk)' }
            : { ConditionExpression: 'newest_kid = :expected', ExpressionAttributeValues: { ':expected': expectedNewestKid } }),
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}
