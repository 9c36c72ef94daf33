import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { toEpochSeconds } from '../clock.ts';
import type { NoticeMarks } from '../domain/noticeMarks.ts';
import { isConditionFailure } from './client.ts';
import { billingNoticeKey, chatNoticeKey } from './items/index.ts';

/** The notices marked: a chat DM of a secret's event, a buyer's email of a provider's event. */
export type NoticeKind = 'chat_notice' | 'billing_notice';

const keyOf: Record<NoticeKind, (eventId: string) => { pk: string; sk: string }> = {
  chat_notice: chatNoticeKey,
  billing_notice: billingNoticeKey,
};

/**
 * Notices' marks (items/chat.ts, items/billing.ts): `lease_until` while a worker holds the event,
 * `sent_at` once its message is sent; removed by TTL after the queue could still hold a copy of it.
 */
export class DynamoNoticeMarks implements NoticeMarks {
  private readonly markKey: (eventId: string) => { pk: string; sk: string };

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly kind: NoticeKind,
  ) {
    this.markKey = keyOf[kind];
  }

  async claim(eventId: string, now: number, leaseUntil: number, keepUntil: number): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: this.markKey(eventId),
          UpdateExpression: 'SET #type = :type, lease_until = :lease, #ttl = :ttl',
          ConditionExpression: 'attribute_not_exists(pk) OR (attribute_not_exists(sent_at) AND lease_until <= :now)',
          ExpressionAttributeNames: { '#type': 'type', '#ttl': 'ttl' },
          ExpressionAttributeValues: { ':type': this.kind, ':lease': leaseUntil, ':ttl': toEpochSeconds(keepUntil), ':now': now },
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
        Key: this.markKey(eventId),
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
          Key: this.markKey(eventId),
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
