import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { toEpochSeconds } from '../clock.ts';
import type { SubscriptionRecord } from '../domain/billing/model.ts';
import type { BillingStore, LinkWrite, SeatChoice } from '../domain/billing/ports.ts';
import { isCancelledByCondition, isConditionFailure } from './client.ts';

/**
 * An account's and a workspace's billing (`BILLING` in its partition: the account's customer at
 * the provider, and `subscription_id`, the one subscription its plan follows, moved only by a
 * write conditional on the id it was decided on), the service's copy of the provider's
 * subscriptions (`SUBSCRIPTION#<id>`), the events applied
 * (`PROVIDER_EVENT#<id>`, kept 30 days: the provider retries for 3), and what the domain decided
 * a subscription gives (its grant, shared/domain/billing/live.ts): the user's `plan`
 * (`USER#<id>`/`PROFILE`), or a workspace's `plan` and its roster's `seats` (the layout is
 * shared/store/workspaceItems.ts's), all in one transaction.
 */
const subscriptionKey = (id: string) => ({ pk: `SUBSCRIPTION#${id}`, sk: 'SUBSCRIPTION' });
/** A target's billing: an account's customer at the provider, and the subscription paying for the target. */
const billingKey = (target: { kind: 'user'; userId: string } | { kind: 'workspace'; workspaceId: string }) =>
  target.kind === 'user' ? { pk: `USER#${target.userId}`, sk: 'BILLING' } : { pk: `WORKSPACE#${target.workspaceId}`, sk: 'BILLING' };
const eventKey = (id: string) => ({ pk: `PROVIDER_EVENT#${id}`, sk: 'PROVIDER_EVENT' });
const eventKeptSeconds = 30 * 24 * 3600;

type TransactWriteItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

const reasons = (error: unknown): string[] => ((error as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');

function toRecord(item: Record<string, unknown>): SubscriptionRecord {
  return {
    id: String(item.id),
    customerId: String(item.customer_id),
    target:
      item.target_kind === 'workspace'
        ? { kind: 'workspace', workspaceId: String(item.workspace_id), ownerId: String(item.user_id) }
        : { kind: 'user', userId: String(item.user_id) },
    plan: item.plan as SubscriptionRecord['plan'],
    status: item.status as SubscriptionRecord['status'],
    seats: Number(item.seats),
    currentPeriodEnd: Number(item.current_period_end),
    cancelAtPeriodEnd: item.cancel_at_period_end === true,
    syncedAt: Number(item.synced_at),
  };
}

export class DynamoBillingStore implements BillingStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  private eventMarker(eventId: string, now: number): TransactWriteItem {
    return {
      Put: {
        TableName: this.tableName,
        Item: { ...eventKey(eventId), type: 'provider_event', id: eventId, applied_at: now, ttl: toEpochSeconds(now) + eventKeptSeconds },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    };
  }

  async recordEvent(eventId: string, now: number): Promise<boolean> {
    try {
      await this.db.send(new PutCommand(this.eventMarker(eventId, now).Put!));
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async subscription(id: string): Promise<SubscriptionRecord | null> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: subscriptionKey(id), ConsistentRead: true }));
    return Item ? toRecord(Item) : null;
  }

  async customerOf(userId: string): Promise<string | null> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: billingKey({ kind: 'user', userId }), ConsistentRead: true }));
    return (Item?.customer_id as string | undefined) ?? null;
  }

  async keepCustomer(userId: string, customerId: string): Promise<string> {
    const { Attributes } = await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: billingKey({ kind: 'user', userId }),
        // The first customer made for the account stays its customer (two checkouts at once make one, by the idempotency key).
        UpdateExpression: 'SET customer_id = if_not_exists(customer_id, :customer)',
        ExpressionAttributeValues: { ':customer': customerId },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return String(Attributes!.customer_id);
  }

  async linkedSubscription(target: { kind: 'user'; userId: string } | { kind: 'workspace'; workspaceId: string }): Promise<string | null> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: billingKey(target), ConsistentRead: true }));
    return (Item?.subscription_id as string | undefined) ?? null;
  }

  async subscriptionOf(target: { kind: 'user'; userId: string } | { kind: 'workspace'; workspaceId: string }): Promise<SubscriptionRecord | null> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: billingKey(target), ConsistentRead: true }));
    return typeof Item?.subscription_id === 'string' ? this.subscription(Item.subscription_id) : null;
  }

  async lowerSeats(workspaceId: string, seats: number): Promise<{ lowered: true; previous: number } | { lowered: false; members: number }> {
    const key = { pk: `WORKSPACE#${workspaceId}`, sk: 'ROSTER' };
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          // The condition a join is checked against is `members < seats`: the two exclude each other.
          UpdateExpression: 'SET seats = :seats',
          ConditionExpression: 'attribute_exists(pk) AND members <= :seats',
          ExpressionAttributeValues: { ':seats': seats },
          ReturnValues: 'UPDATED_OLD',
        }),
      );
      return { lowered: true, previous: Number(Attributes!.seats) };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }));
      return { lowered: false, members: Number(Item?.members ?? 0) };
    }
  }

  async restoreSeats(workspaceId: string, lowered: number, previous: number): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: `WORKSPACE#${workspaceId}`, sk: 'ROSTER' },
          UpdateExpression: 'SET seats = :previous',
          // Only what this change lowered: a later change (or the provider's own event) stands.
          ConditionExpression: 'seats = :lowered',
          ExpressionAttributeValues: { ':previous': previous, ':lowered': lowered },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  async applySubscription(record: SubscriptionRecord, eventId: string, now: number, link: LinkWrite): Promise<'applied' | 'recorded' | 'duplicate' | 'stale' | 'contested'> {
    const { target } = record;
    const grant = link.mode === 'follow' ? link.grant : null;
    const follow = grant !== null;
    const linkKey = billingKey(target.kind === 'user' ? target : { kind: 'workspace', workspaceId: target.workspaceId });
    // Decided on the target's link as it was read (one live subscription per target): written only while it still is.
    const linkHeld =
      link.linked === null
        ? { ConditionExpression: 'attribute_not_exists(subscription_id)', ExpressionAttributeValues: {} }
        : { ConditionExpression: 'subscription_id = :linked', ExpressionAttributeValues: { ':linked': link.linked } };
    const base: TransactWriteItem[] = [
      this.eventMarker(eventId, now),
      {
        Put: {
          TableName: this.tableName,
          Item: {
            ...subscriptionKey(record.id),
            type: 'subscription',
            id: record.id,
            customer_id: record.customerId,
            target_kind: target.kind,
            user_id: target.kind === 'user' ? target.userId : target.ownerId,
            ...(target.kind === 'workspace' ? { workspace_id: target.workspaceId } : {}),
            plan: record.plan,
            status: record.status,
            seats: record.seats,
            current_period_end: record.currentPeriodEnd,
            cancel_at_period_end: record.cancelAtPeriodEnd,
            synced_at: record.syncedAt,
          },
          // Events arrive in any order and each reads the provider: a read older than the one
          // applied already never overwrites it.
          ConditionExpression: 'attribute_not_exists(pk) OR synced_at < :synced',
          ExpressionAttributeValues: { ':synced': record.syncedAt },
        },
      },
      follow
        ? {
            Update: {
              TableName: this.tableName,
              Key: linkKey,
              UpdateExpression: 'SET subscription_id = :id',
              ConditionExpression: linkHeld.ConditionExpression,
              ExpressionAttributeValues: { ...linkHeld.ExpressionAttributeValues, ':id': record.id },
            },
          }
        : {
            ConditionCheck: {
              TableName: this.tableName,
              Key: linkKey,
              ConditionExpression: linkHeld.ConditionExpression,
              ...(link.linked === null ? {} : { ExpressionAttributeValues: linkHeld.ExpressionAttributeValues }),
            },
          },
    ];
    if (grant) {
      base.push({
        Update: {
          TableName: this.tableName,
          Key: target.kind === 'user' ? { pk: `USER#${target.userId}`, sk: 'PROFILE' } : { pk: `WORKSPACE#${target.workspaceId}`, sk: 'WORKSPACE' },
          UpdateExpression: 'SET #plan = :plan',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#plan': 'plan' },
          ExpressionAttributeValues: { ':plan': grant.plan },
        },
      });
    }
    // The seats granted, the first the roster allows: never below its members, and never over a
    // contract's (`contract_seats`, set by sales' command, scripts/set-plan.ts).
    const seats = (choice: SeatChoice): TransactWriteItem[] =>
      target.kind !== 'workspace' || choice === 'unchanged'
        ? []
        : [
            {
              Update: {
                TableName: this.tableName,
                Key: { pk: `WORKSPACE#${target.workspaceId}`, sk: 'ROSTER' },
                ...(choice === 'members'
                  ? { UpdateExpression: 'SET seats = members', ConditionExpression: 'attribute_not_exists(contract_seats)' }
                  : { UpdateExpression: 'SET seats = :seats', ConditionExpression: 'members <= :seats AND attribute_not_exists(contract_seats)', ExpressionAttributeValues: { ':seats': choice } }),
              },
            },
          ];
    const choices: readonly SeatChoice[] = grant && grant.seats.length > 0 ? grant.seats : ['unchanged'];
    for (const choice of choices) {
      try {
        await this.db.send(new TransactWriteCommand({ TransactItems: [...base, ...seats(choice)] }));
        return follow ? 'applied' : 'recorded';
      } catch (error) {
        if (!isCancelledByCondition(error)) throw error;
        const codes = reasons(error);
        if (codes[0] === 'ConditionalCheckFailed') return 'duplicate';
        if (codes[1] === 'ConditionalCheckFailed') return 'stale';
        if (codes[2] === 'ConditionalCheckFailed') return 'contested';
        // A target that is gone (an account or workspace deleted) has nothing to give.
        if (codes[3] === 'ConditionalCheckFailed') return (await this.recordEvent(eventId, now)) ? 'applied' : 'duplicate';
        // The roster refused these seats: the next choice.
      }
    }
    return 'stale';
  }
}
