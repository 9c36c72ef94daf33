import { GetCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { UsageDay, UsageReportStore, UsageTotals } from '../domain/usage/ports.ts';
import { toEpochSeconds } from '../clock.ts';
import {
  currentUsageKey,
  dayUsageKey,
  dayUsageSk,
  monthUsageKey,
  usageListingPartition,
  usagePartition,
  usageShards,
  type DayUsageItem,
} from './items/index.ts';

const count = (value: unknown): number => (typeof value === 'number' ? value : Number(value ?? 0));

function dayFromItem(item: Record<string, unknown>): UsageDay {
  return {
    date: item.date as string,
    liveSecrets: count(item.live_secrets),
    bytesStored: count(item.bytes_stored),
    calls: count(item.calls),
    callsBase: count(item.calls_base),
    callsSeen: count(item.calls_seen),
  };
}

/**
 * Reads of a user's usage (its current counters, a month's calls) and the rollup's days, which
 * this store writes (items/usage.ts). Users with usage are listed on gsi2, set by the
 * transactional counter update in `usage.ts`.
 */
export class DynamoUsageReports implements UsageReportStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async totals(userId: string, month: string): Promise<UsageTotals> {
    // Two strongly consistent reads in parallel: no unprocessed-keys loop as a BatchGet would need.
    const [current, monthly] = await Promise.all(
      [currentUsageKey(userId), monthUsageKey(userId, month)].map((Key) =>
        this.db.send(new GetCommand({ TableName: this.tableName, Key, ConsistentRead: true })),
      ),
    );
    return {
      liveSecrets: count(current?.Item?.live_secrets),
      bytesStored: count(current?.Item?.bytes_stored),
      calls: count(monthly?.Item?.calls),
    };
  }

  async *usersWithUsage(): AsyncIterable<string> {
    for (let shard = 0; shard < usageShards; shard++) {
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await this.db.send(
          new QueryCommand({
            TableName: this.tableName,
            IndexName: 'gsi2',
            KeyConditionExpression: 'gsi2pk = :shard',
            ExpressionAttributeValues: { ':shard': usageListingPartition(shard) },
            ...(startKey ? { ExclusiveStartKey: startKey } : {}),
          }),
        );
        for (const item of page.Items ?? []) yield item.gsi2sk as string;
        startKey = page.LastEvaluatedKey;
      } while (startKey);
    }
  }

  async days(userId: string, from: string, to: string, limit: number): Promise<UsageDay[]> {
    const { Items } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': usagePartition(userId), ':from': dayUsageSk(from), ':to': dayUsageSk(to) },
        ScanIndexForward: false,
        Limit: limit,
        ConsistentRead: true,
      }),
    );
    return (Items ?? []).map(dayFromItem);
  }

  async putDay(userId: string, day: UsageDay, expiresAt: number): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...dayUsageKey(userId, day.date),
          type: 'usage_day',
          date: day.date,
          live_secrets: day.liveSecrets,
          bytes_stored: day.bytesStored,
          calls: day.calls,
          calls_base: day.callsBase,
          calls_seen: day.callsSeen,
          ttl: toEpochSeconds(expiresAt),
        } satisfies DayUsageItem,
      }),
    );
  }
}
