import { PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { toEpochSeconds } from '../clock.ts';
import type { Receipt, ReceiptStore } from '../domain/secrets/receipts.ts';
import { decodeCursor } from './cursor.ts';
import { receiptKey, receiptPrefix, secretKey, type ReceiptItem } from './items/index.ts';
import { queryPage } from './listing.ts';

/**
 * Receipts live in their secret's partition (items/secrets.ts), beside the secret's item but
 * never in it: the item stays the size it was, however often the secret is opened, and one
 * Query lists them newest first.
 */

export class DynamoReceiptStore implements ReceiptStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async put(receipt: Receipt, expiresAt: number): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...receiptKey(receipt.secretId, receipt.openedAt, receipt.eventId),
          type: 'receipt',
          secret_id: receipt.secretId,
          event_id: receipt.eventId,
          ...(receipt.recipientId === null ? {} : { recipient_id: receipt.recipientId }),
          opened_at: receipt.openedAt,
          channel: receipt.channel,
          ...(receipt.location
            ? { country: receipt.location.country, ...(receipt.location.region ? { region: receipt.location.region } : {}) }
            : {}),
          ...(receipt.device
            ? {
                ...(receipt.device.browser ? { browser: receipt.device.browser } : {}),
                ...(receipt.device.os ? { os: receipt.device.os } : {}),
              }
            : {}),
          ttl: toEpochSeconds(expiresAt),
        } satisfies ReceiptItem,
      }),
    );
  }

  async list(secretId: string, limit: number, cursor: string | null): Promise<{ items: Receipt[]; nextCursor: string | null }> {
    const partition = secretKey(secretId).pk;
    const page = await queryPage(
      this.db,
      {
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :receipt)',
        ExpressionAttributeValues: { ':pk': partition, ':receipt': receiptPrefix },
        ScanIndexForward: false,
        ...(cursor === null ? {} : { ExclusiveStartKey: decodeCursor(cursor, partition, 'pk') }),
      },
      limit,
      ['pk', 'sk'],
    );
    return { items: page.items.map(fromItem), nextCursor: page.nextCursor };
  }
}

function fromItem(item: Record<string, unknown>): Receipt {
  return {
    secretId: String(item.secret_id),
    eventId: String(item.event_id),
    recipientId: typeof item.recipient_id === 'string' ? item.recipient_id : null,
    openedAt: Number(item.opened_at),
    channel: item.channel as Receipt['channel'],
    location:
      typeof item.country === 'string' ? { country: item.country, region: typeof item.region === 'string' ? item.region : null } : null,
    device:
      typeof item.browser === 'string' || typeof item.os === 'string'
        ? { browser: (item.browser as string) ?? null, os: (item.os as string) ?? null }
        : null,
  };
}
