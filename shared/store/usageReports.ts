import { GetCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { UsageDay, UsageReportStore, UsageTotals } from '../domain/usage/ports.ts';
import { toEpochSeconds } from '../clock.ts';
import { usageKey, usageShards } from './usage.ts';

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
 * Reads of `USAGE#<user>` (`CURRENT`, `MONTH#<yyyy-mm>`) and the rollup's `DAY#<yyyy-mm-dd>`
 * items. Users with usage are listed on gsi2 (`USAGE#<shard>` / `<userId>`, set by the
 * transactional counter update in `usage.ts`).
 */
export class DynamoUsageReports implements UsageReportStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async totals(userId: string, month: string): Promise<UsageTotals> {
    // Two strongly consistent reads in parallel: no unprocessed-keys loop as a BatchGet would need.
    const [current, monthly] = await Promise.all(
      ['CURRENT', `MONTH#${month}`].map((sk) =>
        this.db.send(new GetCommand({ TableName: this.tableName, Key: usageKey(userId, sk), ConsistentRead: true })),
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
            ExpressionAttributeValues: { ':shard': `USAGE#${shard}` },
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
        ExpressionAttributeValues: { ':pk': usageKey(userId, '').pk, ':from': `DAY#${from}`, ':to': `DAY#${to}` },
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
          ...usageKey(userId, `DAY#${day.date}`),
          type: 'usage_day',
          date: day.date,
          live_secrets: day.liveSecrets,
          bytes_stored: day.bytesStored,
          calls: day.calls,
          calls_base: day.callsBase,
          calls_seen: day.callsSeen,
          ttl: toEpochSeconds(expiresAt),
        },
      }),
    );
  }
}
