import { DeleteCommand, GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { toEpochSeconds } from '../clock.ts';
import type { GateCode, GateSession, GateStore } from '../domain/secrets/gate.ts';
import { isConditionFailure } from './client.ts';
import { gateCodeKey as codeKey, gateSessionKey as sessionKey, type GateCodeItem, type GateSessionItem } from './items/index.ts';

/** Restricted links' codes and gate sessions (items/secrets.ts). */

export class DynamoGateStore implements GateStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async addCode(secretId: string, recipientId: string, code: GateCode, now: number): Promise<boolean> {
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...codeKey(secretId, recipientId),
            type: 'gate_code',
            code_hash: code.codeHash,
            salt: code.salt,
            expires_at: code.expiresAt,
            ttl: toEpochSeconds(code.expiresAt) + 3600,
          } satisfies GateCodeItem,
          // A live code stays: only an expired one (or none) makes room for a new one.
          ConditionExpression: 'attribute_not_exists(pk) OR expires_at <= :now',
          ExpressionAttributeValues: { ':now': now },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async getCode(secretId: string, recipientId: string): Promise<GateCode | null> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: codeKey(secretId, recipientId), ConsistentRead: true }),
    );
    return Item ? { codeHash: String(Item.code_hash), salt: String(Item.salt), expiresAt: Number(Item.expires_at) } : null;
  }

  async consumeCode(secretId: string, recipientId: string, codeHash: string): Promise<boolean> {
    try {
      await this.db.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: codeKey(secretId, recipientId),
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

  async putSession(tokenHash: string, session: GateSession): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...sessionKey(tokenHash),
          type: 'gate_session',
          secret_id: session.secretId,
          recipient_id: session.recipientId,
          email_hash: session.emailHash,
          expires_at: session.expiresAt,
          ttl: toEpochSeconds(session.expiresAt) + 3600,
        } satisfies GateSessionItem,
      }),
    );
  }

  async getSession(tokenHash: string): Promise<GateSession | null> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: sessionKey(tokenHash), ConsistentRead: true }));
    if (!Item) return null;
    return {
      secretId: String(Item.secret_id),
      recipientId: String(Item.recipient_id),
      emailHash: String(Item.email_hash),
      expiresAt: Number(Item.expires_at),
    };
  }
}
