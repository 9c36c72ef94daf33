import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { toEpochSeconds } from '../clock.ts';
import type { ChatNoticeMarks } from '../domain/chat/notices.ts';
import { isConditionFailure } from './client.ts';
import { chatNoticeKey as markKey } from './items/index.ts';

/**
 * Chat notices' marks (items/chat.ts): `lease_until` while a worker holds the event, `sent_at`
 * once its message is in Slack; removed by TTL after the queue could still hold a copy of its message.
 */

export class DynamoChatNoticeMarks implements ChatNoticeMarks {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async claim(eventId: string, now: number, leaseUntil: number, keepUntil: number): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: markKey(eventId),
          UpdateExpression: 'SET #type = :type, lease_until = :lease, #ttl = :ttl',
          ConditionExpression: 'attribute_not_exists(pk) OR (attribute_not_exists(sent_at) AND lease_until <= :now)',
          ExpressionAttributeNames: { '#type': 'type', '#ttl': 'ttl' },
          ExpressionAttributeValues: { ':type': 'chat_notice', ':lease': leaseUntil, ':ttl': toEpochSeconds(keepUntil), ':now': now },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async markSent(eventId: string, now: number): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: markKey(eventId),
        UpdateExpression: 'SET sent_at = :now REMOVE lease_until',
        ExpressionAttributeValues: { ':now': now },
      }),
    );
  }

  async release(eventId: string, leaseUntil: number): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: markKey(eventId),
          // The lease ended at once, so the next delivery may claim it (an update: the worker deletes nothing).
          UpdateExpression: 'SET lease_until = :ended',
          // Only this worker's claim: one that took over after the lease ended keeps its own.
          ConditionExpression: 'lease_until = :lease AND attribute_not_exists(sent_at)',
          ExpressionAttributeValues: { ':lease': leaseUntil, ':ended': 0 },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
}
