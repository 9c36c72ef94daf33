import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ChatSubscriptionStore } from '../domain/chat/subscribe.ts';
import { isConditionFailure } from './client.ts';
import { key } from './secretItem.ts';

/**
 * A secret's chat subscription: `chat_team` and `chat_user` on the secret's own item, so every
 * write that adds an event to it streams them to the relay with the event (shared/store/relayRecords.ts).
 */
export class DynamoChatSubscriptions implements ChatSubscriptionStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async deleteTokenHashOf(secretId: string): Promise<string | null> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: key(secretId), ConsistentRead: true, ProjectionExpression: '#type, delete_token_hash', ExpressionAttributeNames: { '#type': 'type' } }),
    );
    return Item?.type === 'secret' && typeof Item.delete_token_hash === 'string' ? Item.delete_token_hash : null;
  }

  /** `gone` when the secret is removed or ended (burned, expired, revoked, locked). */
  async subscribe(secretId: string, teamId: string, chatUserId: string): Promise<'subscribed' | 'gone'> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key(secretId),
          UpdateExpression: 'SET chat_team = :team, chat_user = :user',
          // An ended secret (its record kept a while) has nothing left to tell.
          ConditionExpression: '#type = :secret AND #state IN (:pending, :active)',
          ExpressionAttributeNames: { '#type': 'type', '#state': 'state' },
          ExpressionAttributeValues: { ':team': teamId, ':user': chatUserId, ':secret': 'secret', ':pending': 'pending', ':active': 'active' },
        }),
      );
      return 'subscribed';
    } catch (error) {
      if (isConditionFailure(error)) return 'gone';
      throw error;
    }
  }
}
