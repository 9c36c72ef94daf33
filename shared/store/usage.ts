import { TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { toEpochSeconds } from '../clock.ts';
import type { LiveUsageLedger, UsageChange } from '../domain/usage/live.ts';
import type { CallCounter } from '../domain/usage/ports.ts';
import { monthOf } from '../domain/usage/ports.ts';
import { currentUsageKey, monthUsageKey, usageListing, usageMarkKey, type UsageMarkItem } from './items/index.ts';

// A user's usage counters (items/usage.ts): the live ones, moved from the stream, and the month's calls.

/**
 * The Update that moves a user's live-secret and byte counters, for a transaction with the
 * marks of the changes it applies. It also lists the user for the hourly rollup.
 */
export function usageAdjustment(tableName: string, userId: string, secrets: number, bytes: number) {
  const listing = usageListing(userId);
  return {
    TableName: tableName,
    Key: currentUsageKey(userId),
    UpdateExpression: 'ADD live_secrets :secrets, bytes_stored :bytes SET gsi2pk = :shard, gsi2sk = :user, #type = :type',
    ExpressionAttributeNames: { '#type': 'type' },
    ExpressionAttributeValues: {
      ':secrets': secrets,
      ':bytes': bytes,
      ':shard': listing.gsi2pk,
      ':user': listing.gsi2sk,
      ':type': 'usage',
    },
  };
}

/** A month's `calls`: one atomic increment per authenticated call. */
export class DynamoCallCounter implements CallCounter {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async countCall(userId: string, at: number): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: monthUsageKey(userId, monthOf(at)),
        UpdateExpression: 'ADD calls :one SET #type = :type',
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: { ':one': 1, ':type': 'usage_month' },
      }),
    );
  }
}

/** How long a change's mark is kept: past the stream's 24 hours, after which nothing replays it. */
const markSeconds = 48 * 3600;
/** TransactWriteItems takes 100 items: the counter's Update and up to 99 marks. */
const marksPerTransaction = 99;

/**
 * The owners' live counters, moved from the table's stream (functions/relay.ts). Each change
 * is applied with a mark (items/usage.ts) put on condition that it
 * does not exist, in the same transaction as the counter's Update, so a stream record handed
 * over twice moves nothing twice. One transaction per owner and batch: the owner's changes are
 * summed, so a batch's writes never contend for the counter with one another.
 */
export class DynamoLiveUsageLedger implements LiveUsageLedger {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async apply(changes: UsageChange[], now: number): Promise<void> {
    const byOwner = new Map<string, UsageChange[]>();
    for (const change of changes) byOwner.set(change.ownerId, [...(byOwner.get(change.ownerId) ?? []), change]);
    await Promise.all([...byOwner].map(([ownerId, owned]) => this.applyForOwner(ownerId, owned, now)));
  }

  private async applyForOwner(ownerId: string, changes: UsageChange[], now: number): Promise<void> {
    for (let start = 0; start < changes.length; start += marksPerTransaction) {
      let pending = changes.slice(start, start + marksPerTransaction);
      while (pending.length > 0) {
        const applied = await this.tryApply(ownerId, pending, now);
        if (applied === null) return;
        // Marks already there name changes applied before: apply the rest without them.
        pending = pending.filter((_, index) => !applied.has(index));
      }
    }
  }

  /** Null when the transaction went through; else the indexes of the changes already applied. */
  private async tryApply(ownerId: string, changes: UsageChange[], now: number): Promise<Set<number> | null> {
    const secrets = changes.reduce((sum, change) => sum + change.secrets, 0);
    const bytes = changes.reduce((sum, change) => sum + change.bytes, 0);
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            ...changes.map((change) => ({
              Put: {
                TableName: this.tableName,
                Item: {
                  ...usageMarkKey(ownerId, change),
                  type: 'usage_mark',
                  ttl: toEpochSeconds(now) + markSeconds,
                } satisfies UsageMarkItem,
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            })),
            { Update: usageAdjustment(this.tableName, ownerId, secrets, bytes) },
          ],
        }),
      );
      return null;
    } catch (error) {
      const reasons = (error as { name?: string; CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons;
      if ((error as { name?: string }).name !== 'TransactionCanceledException' || !reasons) throw error;
      const applied = new Set(
        reasons.flatMap((reason, index) => (reason.Code === 'ConditionalCheckFailed' && index < changes.length ? [index] : [])),
      );
      if (applied.size === 0) throw error;
      return applied;
    }
  }
}
