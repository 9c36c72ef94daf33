import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ChatSubscriptionStore } from '../domain/chat/subscribe.ts';
import { isConditionFailure } from './client.ts';
import { secretKey as key } from './items/index.ts';
import { chatSubscription } from './secretItem.ts';

/**
 * A secret's chat subscription: `chat_team` and `chat_user` on the secret's own item, so every
 * write that adds an event to it streams them to the relay with the event (shared/store/relayRecords.ts).
 * The item is the secret store's: the subscription is its part (secretItem.ts).
 */
export class DynamoChatSubscriptions implements ChatSubscriptionStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async deleteTokenHashOf(secretId: string): Promise<string | null> {
    const { Item } = await this.db.send(
      new GetCommand({
        TableName: this.tableName,
        Key: key(secretId),
        ConsistentRead: true,
        ProjectionExpression: '#type, delete_token_hash',
        ExpressionAttributeNames: { '#type': 'type' },
      }),
    );
    return Item?.type === 'secret' && typeof Item.delete_token_hash === 'string' ? Item.delete_token_hash : null;
  }

  /** `gone` when the secret is removed or ended (burned, expired, revoked, locked). */
  async subscribe(secretId: string, teamId: string, chatUserId: string): Promise<'subscribed' | 'gone'> {
    try {
      await this.db.send(new UpdateCommand({ TableName: this.tableName, ...chatSubscription(secretId, teamId, chatUserId) }));
      return 'subscribed';
    } catch (error) {
      if (isConditionFailure(error)) return 'gone';
      throw error;
    }
  }
}
