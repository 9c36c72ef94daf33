import { DeleteCommand, GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { toEpochSeconds } from '../clock.ts';
import type { SignInCode } from '../domain/accounts/model.ts';
import type { SignInCodeStore } from '../domain/accounts/ports.ts';
import { isConditionFailure } from './client.ts';

const key = (emailHash: string) => ({ pk: `SIGNIN#${emailHash}`, sk: 'CODE' });

const toItem = (code: SignInCode) => ({
  ...key(code.emailHash),
  type: 'sign_in_code',
  email_hash: code.emailHash,
  code_hash: code.codeHash,
  salt: code.salt,
  attempts: code.attempts,
  sent_at: code.sentAt,
  expires_at: code.expiresAt,
  ttl: toEpochSeconds(code.expiresAt) + 3600,
});

const fromItem = (item: Record<string, unknown>): SignInCode => ({
  emailHash: item.email_hash as string,
  codeHash: item.code_hash as string,
  salt: item.salt as string,
  attempts: item.attempts as number,
  sentAt: item.sent_at as number,
  expiresAt: item.expires_at as number,
});

/** Pending sign-in codes, keyed by a hash of the address (the table holds no addresses here). */
export class DynamoSignInCodeStore implements SignInCodeStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async put(code: SignInCode): Promise<void> {
    await this.db.send(new PutCommand({ TableName: this.tableName, Item: toItem(code) }));
  }

  async get(emailHash: string): Promise<SignInCode | null> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: key(emailHash), ConsistentRead: true }));
    return Item ? fromItem(Item) : null;
  }

  async replaceIfCooledDown(code: SignInCode, sentBefore: number): Promise<boolean> {
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: toItem(code),
          ConditionExpression: 'sent_at <= :before',
          ExpressionAttributeValues: { ':before': sentBefore },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async countAttempt(emailHash: string, max: number): Promise<number | null> {
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key(emailHash),
          UpdateExpression: 'ADD attempts :one',
          ConditionExpression: 'attribute_exists(pk) AND attempts < :max',
          ExpressionAttributeValues: { ':one': 1, ':max': max },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Attributes?.attempts as number;
    } catch (error) {
      if (isConditionFailure(error)) return null;
      throw error;
    }
  }

  async consume(emailHash: string, codeHash: string): Promise<boolean> {
    try {
      await this.db.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: key(emailHash),
          ConditionExpression: 'code_hash = :hash',
          ExpressionAttributeValues: { ':hash': codeHash },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}
