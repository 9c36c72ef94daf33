import {
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  PutCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { toEpochSeconds } from '../clock.ts';
import type { Delivery, DeliveryAttempt, WebhookEndpoint } from '../domain/webhooks/model.ts';
import type { NextAttempt, SettlingDelivery, WebhookStore } from '../domain/webhooks/ports.ts';
import { isCancelledByCondition, isConditionFailure } from './client.ts';
import { decodeCursor } from './cursor.ts';
import {
  deliveriesPartition as deliveriesOf,
  deliveryKey,
  deliveryIdsOf,
  deliveryPrefix,
  endpointCountKey as countKey,
  endpointKey,
  endpointPrefix,
  endpointsPartition as endpointsOf,
  pendingTestsKey,
  workEntry,
  workQueues,
  type DeliveryItem,
} from './items/index.ts';
import { queryPage } from './listing.ts';
import { PendingTestDeliveries } from './pendingTests.ts';
import { dueEntries } from './workIndex.ts';
import { attemptItem, deliveryFromItem, deliveryItem, endpointFromItem, endpointItem } from './webhookItems.ts';

// Endpoints live in their owner's partition (one strongly consistent Query lists them, so an
// endpoint gets the very next event), next to a count item that bounds how many there are.
// Deliveries live in their endpoint's partition; their ids start with the time, so the log
// reads newest first straight from the table. Beside them, the set of the endpoint's test
// deliveries not yet settled (store/pendingTests.ts). The layout is items/webhooks.ts.

export class DynamoWebhookStore implements WebhookStore {
  private readonly pendingTests: PendingTestDeliveries;

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly deliveryLogSeconds: number,
  ) {
    this.pendingTests = new PendingTestDeliveries(db, tableName);
  }

  async insertEndpoint(endpoint: WebhookEndpoint, maxEndpoints: number): Promise<boolean> {
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: this.tableName,
                Key: countKey(endpoint.userId),
                UpdateExpression: 'ADD endpoints :one',
                ConditionExpression: 'attribute_not_exists(endpoints) OR endpoints < :max',
                ExpressionAttributeValues: { ':one': 1, ':max': maxEndpoints },
              },
            },
            {
              Put: {
                TableName: this.tableName,
                Item: { ...endpointKey(endpoint.userId, endpoint.id), ...endpointItem(endpoint) },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
          ],
        }),
      );
      return true;
    } catch (error) {
      if (isCancelledByCondition(error)) return false;
      throw error;
    }
  }

  async getEndpoint(userId: string, id: string): Promise<WebhookEndpoint | null> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: endpointKey(userId, id), ConsistentRead: true }));
    return Item ? endpointFromItem(Item) : null;
  }

  async listEndpoints(userId: string): Promise<WebhookEndpoint[]> {
    const items: Record<string, unknown>[] = [];
    let cursor: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :endpoint)',
          ExpressionAttributeValues: { ':pk': endpointsOf(userId), ':endpoint': endpointPrefix },
          ConsistentRead: true,
          ExclusiveStartKey: cursor,
        }),
      );
      items.push(...(page.Items ?? []));
      cursor = page.LastEvaluatedKey;
    } while (cursor);
    return items.map(endpointFromItem).sort((a, b) => a.createdAt - b.createdAt);
  }

  async deleteEndpoint(userId: string, id: string): Promise<boolean> {
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            { Delete: { TableName: this.tableName, Key: endpointKey(userId, id), ConditionExpression: 'attribute_exists(pk)' } },
            {
              Update: {
                TableName: this.tableName,
                Key: countKey(userId),
                UpdateExpression: 'ADD endpoints :minus',
                ExpressionAttributeValues: { ':minus': -1 },
              },
            },
          ],
        }),
      );
      return true;
    } catch (error) {
      if (isCancelledByCondition(error)) return false;
      throw error;
    }
  }

  async recordSuccess(userId: string, id: string): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: endpointKey(userId, id),
          UpdateExpression: 'SET consecutive_failures = :zero, enabled = :on REMOVE disabled_at',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':zero': 0, ':on': true },
        }),
      );
    } catch (error) {
      // Deleted while the attempt was in flight: nothing left to reset.
      if (!isConditionFailure(error)) throw error;
    }
  }

  async recordFailure(userId: string, id: string, max: number, now: number): Promise<{ failures: number; disabled: boolean } | null> {
    let failures: number;
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: endpointKey(userId, id),
          UpdateExpression: 'ADD consecutive_failures :one',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':one': 1 },
          ReturnValues: 'ALL_NEW',
        }),
      );
      failures = Number(Attributes?.consecutive_failures ?? 0);
      if (failures < max || Attributes?.enabled !== true) return { failures, disabled: false };
    } catch (error) {
      if (isConditionFailure(error)) return null;
      throw error;
    }
    try {
      // Exactly one caller switches it off (and so emails the owner), however many fail at once.
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: endpointKey(userId, id),
          UpdateExpression: 'SET enabled = :off, disabled_at = :now',
          ConditionExpression: 'enabled = :on AND consecutive_failures >= :max',
          ExpressionAttributeValues: { ':off': false, ':on': true, ':now': now, ':max': max },
        }),
      );
      return { failures, disabled: true };
    } catch (error) {
      if (isConditionFailure(error)) return { failures, disabled: false };
      throw error;
    }
  }

  async insertDelivery(delivery: Delivery): Promise<Delivery> {
    try {
      await this.db.send(new PutCommand(this.deliveryPut(delivery)));
      return delivery;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return (await this.getDelivery(delivery.endpointId, delivery.id)) ?? delivery;
    }
  }

  async insertTestDelivery(
    delivery: Delivery,
    max: number,
    lostBefore: number,
  ): Promise<{ queued: true } | { queued: false; newestPendingId: string }> {
    const ttl = toEpochSeconds(delivery.createdAt) + this.deliveryLogSeconds;
    return this.pendingTests.add(pendingTestsKey(delivery.endpointId), this.deliveryPut(delivery), delivery.id, { max, lostBefore, ttl });
  }

  private deliveryPut(delivery: Delivery) {
    return {
      TableName: this.tableName,
      Item: {
        ...deliveryKey(delivery.endpointId, delivery.id),
        ...deliveryItem(delivery),
        ttl: toEpochSeconds(delivery.createdAt) + this.deliveryLogSeconds,
      } satisfies DeliveryItem,
      ConditionExpression: 'attribute_not_exists(pk)',
    };
  }

  private async updateDelivery(delivery: SettlingDelivery, update: DeliveryUpdate): Promise<void> {
    await this.db.send(new UpdateCommand({ TableName: this.tableName, Key: deliveryKey(delivery.endpointId, delivery.id), ...update }));
  }

  /**
   * Writes a delivery's settlement; a test delivery's leaves the pending list in the same
   * transaction, so the list loses it exactly when (and only if) the settlement is written.
   */
  private async settle(delivery: SettlingDelivery, update: DeliveryUpdate): Promise<void> {
    if (delivery.eventType !== 'webhook.test') return this.updateDelivery(delivery, update);
    await this.db.send(
      new TransactWriteCommand({
        TransactItems: [
          { Update: { TableName: this.tableName, Key: deliveryKey(delivery.endpointId, delivery.id), ...update } },
          this.pendingTests.leave(pendingTestsKey(delivery.endpointId), delivery.id),
        ],
      }),
    );
  }

  async getDelivery(endpointId: string, deliveryId: string): Promise<Delivery | null> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: deliveryKey(endpointId, deliveryId), ConsistentRead: true }),
    );
    return Item ? deliveryFromItem(Item) : null;
  }

  async claimAttempt(endpointId: string, deliveryId: string, number: number, now: number, leaseUntil: number): Promise<Delivery | null> {
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: deliveryKey(endpointId, deliveryId),
          UpdateExpression: 'SET lease_until = :lease',
          ConditionExpression:
            '#status = :pending AND size(attempts) = :done AND (attribute_not_exists(lease_until) OR lease_until < :now)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':lease': leaseUntil, ':pending': 'pending', ':done': number - 1, ':now': now },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes ? deliveryFromItem(Attributes) : null;
    } catch (error) {
      if (isConditionFailure(error)) return null;
      throw error;
    }
  }

  async recordAttempt(delivery: SettlingDelivery, attempt: DeliveryAttempt, next: NextAttempt): Promise<void> {
    const set = ['attempts = list_append(attempts, :attempt)', '#status = :status'];
    const remove = ['lease_until'];
    const values: Record<string, unknown> = { ':attempt': [attemptItem(attempt)], ':status': next.status, ':done': attempt.number - 1 };
    if (next.nextAttemptAt === undefined) remove.push('next_attempt_at');
    else {
      set.push('next_attempt_at = :next');
      values[':next'] = next.nextAttemptAt;
    }
    // On the retry index when the domain says the queue cannot hold the wait, for the schedule's sweep to find.
    if (next.swept === true) {
      const retry = workEntry(workQueues.retry, delivery.id, next.nextAttemptAt);
      set.push('gsi2pk = :g2pk', 'gsi2sk = :g2sk');
      values[':g2pk'] = retry.gsi2pk;
      values[':g2sk'] = retry.gsi2sk;
    } else remove.push('gsi2pk', 'gsi2sk');
    const update: DeliveryUpdate = {
      UpdateExpression: `SET ${set.join(', ')} REMOVE ${remove.join(', ')}`,
      ConditionExpression: 'size(attempts) = :done',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: values,
    };
    await (next.status === 'pending' ? this.updateDelivery(delivery, update) : this.settle(delivery, update));
  }

  async cancelDelivery(delivery: SettlingDelivery): Promise<void> {
    try {
      await this.settle(delivery, {
        UpdateExpression: 'SET #status = :cancelled REMOVE next_attempt_at, lease_until, gsi2pk, gsi2sk',
        ConditionExpression: '#status = :pending',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':cancelled': 'cancelled', ':pending': 'pending' },
      });
    } catch (error) {
      // Settled already: nothing to cancel.
      if (!isConditionFailure(error) && !isCancelledByCondition(error)) throw error;
    }
  }

  async listDeliveries(
    endpointId: string,
    limit: number,
    cursor: string | null,
  ): Promise<{ items: Delivery[]; nextCursor: string | null }> {
    const partition = deliveriesOf(endpointId);
    const page = await queryPage(
      this.db,
      {
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :delivery)',
        ExpressionAttributeValues: { ':pk': partition, ':delivery': deliveryPrefix },
        ScanIndexForward: false,
        ...(cursor ? { ExclusiveStartKey: decodeCursor(cursor, partition, 'pk') } : {}),
      },
      limit,
      ['pk', 'sk'],
    );
    return { items: page.items.map(deliveryFromItem), nextCursor: page.nextCursor };
  }

  async dueRetries(
    now: number,
    limit: number,
  ): Promise<Array<{ endpointId: string; deliveryId: string; userId: string; attempt: number }>> {
    const keys = await dueEntries(this.db, this.tableName, workQueues.retry, now, limit);
    // The index holds keys only; the delivery itself says whose it is and which attempt is next.
    const deliveries = await Promise.all(
      keys.map((item) => {
        const { endpointId, deliveryId } = deliveryIdsOf({ pk: item.pk, sk: item.sk });
        return this.getDelivery(endpointId, deliveryId);
      }),
    );
    return deliveries
      .filter((delivery): delivery is Delivery => delivery !== null && delivery.status === 'pending')
      .map((delivery) => ({
        endpointId: delivery.endpointId,
        deliveryId: delivery.id,
        userId: delivery.userId,
        attempt: delivery.attempts.length + 1,
      }));
  }
}

/** A conditional change of one delivery item. */
interface DeliveryUpdate {
  UpdateExpression: string;
  ConditionExpression: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues: Record<string, unknown>;
}
