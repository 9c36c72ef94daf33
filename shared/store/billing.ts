import {
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { toEpochSeconds } from '../clock.ts';
import type { SubscriptionRecord } from '../domain/billing/model.ts';
import type { BillingStore, LinkWrite, SeatChoice } from '../domain/billing/ports.ts';
import { isCancelledByCondition, isConditionFailure } from './client.ts';
import {
  billingKey,
  providerEventKey as eventKey,
  subscriptionKey,
  type BillingTargetKey,
  type ProviderEventItem,
  type SubscriptionItem,
} from './items/index.ts';
import { userPlanWrite } from './users.ts';
import { grantedSeats, lowerSeats as lowerRosterSeats, restoreSeats as restoreRosterSeats } from './workspaceRoster.ts';
import { workspacePlanWrite } from './workspaces.ts';

/**
 * An account's and a workspace's billing (their `BILLING` item: the account's customer at the
 * provider, and `subscription_id`, the one subscription its plan follows, moved only by a write
 * conditional on the id it was decided on), the service's copy of the provider's subscriptions,
 * and the events applied (kept 30 days: the provider retries for 3); the layout is
 * items/billing.ts. What the domain decided a subscription gives (its grant,
 * shared/domain/billing/live.ts), the user's or the workspace's `plan` and a workspace's seats,
 * is written in the same transaction through their owners' parts (users.ts, workspaces.ts,
 * workspaceRoster.ts): those items are not this store's.
 */
const eventKeptSeconds = 30 * 24 * 3600;

type TransactWriteItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

const reasons = (error: unknown): string[] =>
  ((error as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');

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
        Item: {
          ...eventKey(eventId),
          type: 'provider_event',
          id: eventId,
          applied_at: now,
          ttl: toEpochSeconds(now) + eventKeptSeconds,
        } satisfies ProviderEventItem,
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
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: billingKey({ kind: 'user', userId }), ConsistentRead: true }),
    );
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

  async linkedSubscription(target: BillingTargetKey): Promise<string | null> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: billingKey(target), ConsistentRead: true }));
    return (Item?.subscription_id as string | undefined) ?? null;
  }

  async subscriptionOf(target: BillingTargetKey): Promise<SubscriptionRecord | null> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: billingKey(target), ConsistentRead: true }));
    return typeof Item?.subscription_id === 'string' ? this.subscription(Item.subscription_id) : null;
  }

  /** The roster is the roster store's: its parts lower the seats and give them back. */
  lowerSeats(workspaceId: string, seats: number): Promise<{ lowered: true; previous: number } | { lowered: false; members: number }> {
    return lowerRosterSeats(this.db, this.tableName, workspaceId, seats);
  }

  restoreSeats(workspaceId: string, lowered: number, previous: number): Promise<void> {
    return restoreRosterSeats(this.db, this.tableName, workspaceId, lowered, previous);
  }

  async applySubscription(
    record: SubscriptionRecord,
    eventId: string,
    now: number,
    link: LinkWrite,
  ): Promise<'applied' | 'recorded' | 'duplicate' | 'stale' | 'contested'> {
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
          } satisfies SubscriptionItem,
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
      // The plan the provider's events give: the user's or the workspace's own part.
      base.push(
        target.kind === 'user'
          ? userPlanWrite(this.tableName, target.userId, grant.plan)
          : workspacePlanWrite(this.tableName, target.workspaceId, grant.plan),
      );
    }
    // The seats granted, the first the roster allows (its part's conditions: never below its
    // members, and never over a contract's).
    const seats = (choice: SeatChoice): TransactWriteItem[] =>
      target.kind !== 'workspace' ? [] : grantedSeats(this.tableName, target.workspaceId, choice);
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
