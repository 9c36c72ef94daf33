import { DeleteCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { toEpochSeconds } from '../clock.ts';
import type { PendingSsoSignIn, SsoExchange, SsoSignInStore } from '../domain/sso/signInPorts.ts';
import { isConditionFailure } from './client.ts';
import { ssoExchangeKey, ssoStateKey, type SsoExchangeItem, type SsoStateItem } from './items/index.ts';

/**
 * Single sign-on's records (items/ssoSignIn.ts): each taken once by a delete conditional on its
 * still being there (and, for an exchange bound to a native client, on that client's
 * challenge), which answers the item as it was; expired ones are refused here and go by TTL.
 */
export class DynamoSsoSignIns implements SsoSignInStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async savePending(pending: PendingSsoSignIn): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...ssoStateKey(pending.stateId),
          type: 'sso_state',
          workspace_id: pending.workspaceId,
          email: pending.email,
          return_to: pending.returnTo,
          code_verifier: pending.codeVerifier,
          nonce: pending.nonce,
          ...(pending.clientChallenge === undefined ? {} : { client_challenge: pending.clientChallenge }),
          landing: pending.landing,
          expires_at: pending.expiresAt,
          ttl: toEpochSeconds(pending.expiresAt),
        } satisfies SsoStateItem,
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async takePending(stateId: string, now: number): Promise<PendingSsoSignIn | null> {
    const item = await this.take(ssoStateKey(stateId), now);
    if (!item) return null;
    return {
      stateId,
      workspaceId: String(item.workspace_id),
      email: String(item.email),
      returnTo: String(item.return_to),
      codeVerifier: String(item.code_verifier),
      nonce: String(item.nonce),
      ...(typeof item.client_challenge === 'string' ? { clientChallenge: item.client_challenge } : {}),
      landing: String(item.landing),
      expiresAt: Number(item.expires_at),
    };
  }

  async saveExchange(codeHash: string, exchange: SsoExchange): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...ssoExchangeKey(codeHash),
          type: 'sso_exchange',
          user_id: exchange.userId,
          workspace_id: exchange.workspaceId,
          ...(exchange.clientChallenge === undefined ? {} : { client_challenge: exchange.clientChallenge }),
          expires_at: exchange.expiresAt,
          ttl: toEpochSeconds(exchange.expiresAt),
        } satisfies SsoExchangeItem,
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async takeExchange(codeHash: string, now: number, clientChallenge: string | null): Promise<SsoExchange | null> {
    // A code bound to a native client is taken only with its challenge: a wrong verifier leaves it for the right one.
    const bound =
      clientChallenge === null
        ? { condition: 'attribute_not_exists(client_challenge)', values: {} }
        : { condition: 'client_challenge = :challenge', values: { ':challenge': clientChallenge } };
    const item = await this.take(ssoExchangeKey(codeHash), now, bound);
    if (!item) return null;
    return {
      userId: String(item.user_id),
      workspaceId: String(item.workspace_id),
      ...(typeof item.client_challenge === 'string' ? { clientChallenge: item.client_challenge } : {}),
      expiresAt: Number(item.expires_at),
    };
  }

  /** Deletes the item if it is there, unexpired (and matches `also`), answering it as it was; null otherwise. */
  private async take(
    key: { pk: string; sk: string },
    now: number,
    also: { condition: string; values: Record<string, unknown> } = { condition: '', values: {} },
  ): Promise<Record<string, unknown> | null> {
    try {
      const { Attributes } = await this.db.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: key,
          ConditionExpression: `attribute_exists(pk) AND expires_at > :now${also.condition ? ` AND ${also.condition}` : ''}`,
          ExpressionAttributeValues: { ':now': now, ...also.values },
          ReturnValues: 'ALL_OLD',
        }),
      );
      return Attributes ?? null;
    } catch (error) {
      if (isConditionFailure(error)) return null;
      throw error;
    }
  }
}
