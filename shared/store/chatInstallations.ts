import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { toEpochSeconds } from '../clock.ts';
import { chatLimits } from '../limits.ts';
import type { ChatInstallation, ChatInstallationStore } from '../domain/chat/installations.ts';
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
          UpdateExpression: 'SET removed = :removed REMOVE sealed_bot_token',
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
}
