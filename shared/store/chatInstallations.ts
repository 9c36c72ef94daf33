import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { toEpochSeconds } from '../clock.ts';
import { chatLimits } from '../limits.ts';
import type { ChatInstallation, ChatInstallationStore, RenewedToken } from '../domain/chat/installations.ts';
import { isConditionFailure } from './client.ts';
import {
  chatInstallationKey as installationKey,
  chatStateKey as stateKey,
  type ChatInstallationItem,
  type ChatStateItem,
} from './items/index.ts';

/**
 * Chat installations (the bot token sealed; a revoked one keeps its item, `removed` and without
 * its token, until the team installs again) and the install states already used (removed by
 * TTL an hour after the state would have expired, when it is refused by its expiry anyway); the
 * layout is items/chat.ts.
 */

export class DynamoChatInstallationStore implements ChatInstallationStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async useInstallState(stateId: string, expiresAt: number): Promise<'claimed' | 'used'> {
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...stateKey(stateId),
            type: 'chat_state',
            ttl: toEpochSeconds(expiresAt) + chatLimits.stateMarkGraceSeconds,
          } satisfies ChatStateItem,
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return 'claimed';
    } catch (error) {
      if (isConditionFailure(error)) return 'used';
      throw error;
    }
  }

  async save(installation: ChatInstallation): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...installationKey(installation.teamId),
          type: 'chat_installation',
          team_id: installation.teamId,
          team_name: installation.teamName,
          sealed_bot_token: installation.sealedBotToken,
          bot_user_id: installation.botUserId,
          scopes: installation.scopes,
          installer_user_id: installation.installerUserId,
          installer_chat_user_id: installation.installerChatUserId,
          installed_at: installation.installedAt,
          ...(installation.rotation
            ? { sealed_refresh_token: installation.rotation.sealedRefreshToken, token_expires_at: installation.rotation.expiresAt }
            : {}),
        } satisfies ChatInstallationItem,
      }),
    );
  }

  async installation(teamId: string): Promise<ChatInstallation | null> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: installationKey(teamId), ConsistentRead: true }));
    if (!Item || Item.removed === true) return null;
    return {
      teamId: String(Item.team_id),
      teamName: String(Item.team_name),
      sealedBotToken: String(Item.sealed_bot_token),
      botUserId: String(Item.bot_user_id),
      scopes: Array.isArray(Item.scopes) ? Item.scopes.map(String) : [],
      installerUserId: String(Item.installer_user_id),
      installerChatUserId: String(Item.installer_chat_user_id),
      installedAt: Number(Item.installed_at),
      ...(typeof Item.sealed_refresh_token === 'string'
        ? { rotation: { sealedRefreshToken: Item.sealed_refresh_token, expiresAt: Number(Item.token_expires_at) } }
        : {}),
    };
  }

  async removeIfToken(teamId: string, sealedBotToken: string): Promise<'removed' | 'replaced'> {
    try {
      // Marked removed, not deleted: the delivery worker that finds a token revoked may update
      // items, never delete them (its role has no DeleteItem). A new install writes over it.
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: installationKey(teamId),
          UpdateExpression: 'SET removed = :removed REMOVE sealed_bot_token, sealed_refresh_token, token_expires_at, renewing_until',
          ConditionExpression: 'sealed_bot_token = :token',
          ExpressionAttributeValues: { ':token': sealedBotToken, ':removed': true },
        }),
      );
      return 'removed';
    } catch (error) {
      if (isConditionFailure(error)) return 'replaced';
      throw error;
    }
  }

  async claimRenewal(teamId: string, sealedRefreshToken: string, now: number, leaseUntil: number): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: installationKey(teamId),
          UpdateExpression: 'SET renewing_until = :lease',
          ConditionExpression: 'sealed_refresh_token = :refresh AND (attribute_not_exists(renewing_until) OR renewing_until <= :now)',
          ExpressionAttributeValues: { ':refresh': sealedRefreshToken, ':now': now, ':lease': leaseUntil },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async saveRenewal(teamId: string, previousRefreshToken: string, renewed: RenewedToken): Promise<'saved' | 'replaced'> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: installationKey(teamId),
          UpdateExpression:
            'SET sealed_bot_token = :token, sealed_refresh_token = :refresh, token_expires_at = :expires REMOVE renewing_until',
          ConditionExpression: 'sealed_refresh_token = :previous',
          ExpressionAttributeValues: {
            ':token': renewed.sealedBotToken,
            ':refresh': renewed.rotation.sealedRefreshToken,
            ':expires': renewed.rotation.expiresAt,
            ':previous': previousRefreshToken,
          },
        }),
      );
      return 'saved';
    } catch (error) {
      if (isConditionFailure(error)) return 'replaced';
      throw error;
    }
  }

  async releaseRenewal(teamId: string, leaseUntil: number): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: installationKey(teamId),
          UpdateExpression: 'REMOVE renewing_until',
          ConditionExpression: 'renewing_until = :lease',
          ExpressionAttributeValues: { ':lease': leaseUntil },
        }),
      );
    } catch (error) {
      // Another worker's lease by now (ours ran out), or none: nothing of ours to give back.
      if (!isConditionFailure(error)) throw error;
    }
  }
}
