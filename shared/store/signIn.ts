import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { toEpochSeconds } from '../clock.ts';
import type { SignInCode, SignInCodes } from '../domain/accounts/model.ts';
import type { SignInCodeStore } from '../domain/accounts/ports.ts';
import { isConditionFailure } from './client.ts';
import { signInAskedKey as askedKey, signInCodesKey as codesKey, type SignInCodesItem } from './items/index.ts';

// One item per address holds its codes (the table holds no addresses here, only hashes).
/** Kept past the last code's expiry and the last ask, then TTL removes the items. */
const keptSeconds = 3600;

const toCode = (code: SignInCode): SignInCodesItem['codes'][number] => ({
  code_hash: code.codeHash,
  salt: code.salt,
  ...(code.linkHash === undefined ? {} : { link_hash: code.linkHash }),
  sent_at: code.sentAt,
  expires_at: code.expiresAt,
});
const fromCode = (item: Record<string, unknown>): SignInCode => ({
  codeHash: item.code_hash as string,
  salt: item.salt as string,
  // Codes written before sign-in links have none.
  ...(typeof item.link_hash === 'string' ? { linkHash: item.link_hash } : {}),
  sentAt: item.sent_at as number,
  expiresAt: item.expires_at as number,
});

/** Pending sign-in codes, each address's in one item written only by conditional writes. */
export class DynamoSignInCodeStore implements SignInCodeStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(emailHash: string): Promise<SignInCodes> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: codesKey(emailHash), ConsistentRead: true }));
    if (!Item) return { codes: [], version: 0 };
    return { codes: (Item.codes as Record<string, unknown>[]).map(fromCode), version: Item.version as number };
  }

  async replace(emailHash: string, codes: SignInCode[], version: number): Promise<boolean> {
    const lastExpiry = Math.max(0, ...codes.map((code) => code.expiresAt));
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...codesKey(emailHash),
            type: 'sign_in_codes',
            codes: codes.map(toCode),
            version: version + 1,
            ttl: toEpochSeconds(lastExpiry) + keptSeconds,
          } satisfies SignInCodesItem,
          // The version read: of two writes made from one read, one lands; no code is lost to a race.
          ConditionExpression: version === 0 ? 'attribute_not_exists(pk)' : 'version = :version',
          ...(version === 0 ? {} : { ExpressionAttributeValues: { ':version': version } }),
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async markAsked(askerHash: string, now: number, cooldownMs?: number): Promise<number | null> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: askedKey(askerHash),
          UpdateExpression: 'SET asked_at = :now, #ttl = :ttl',
          ...(cooldownMs === undefined ? {} : { ConditionExpression: 'attribute_not_exists(asked_at) OR asked_at <= :before' }),
          ExpressionAttributeNames: { '#ttl': 'ttl' },
          ExpressionAttributeValues: {
            ':now': now,
            ':ttl': toEpochSeconds(now) + keptSeconds,
            ...(cooldownMs === undefined ? {} : { ':before': now - cooldownMs }),
          },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return null;
    } catch (error) {
      // The refused item comes back in the low-level form: the document client does not convert errors.
      if (isConditionFailure(error)) return error.Item ? Number(unmarshall(error.Item as Record<string, AttributeValue>).asked_at) : now;
      throw error;
    }
  }
}
