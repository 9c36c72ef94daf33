import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  type GetRecordsCommandOutput,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { eventFilter, type FilterPattern } from './eventFilter.ts';

export type StreamConsumer = (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse | undefined>;

export interface LocalStreamOptions {
  endpoint: string;
  tableName: string;
  /** The event source mapping's filters (Lambda drops what none matches, uncharged). */
  filters: readonly FilterPattern[];
  /** Records per invocation at most. */
  batchSize?: number;
  /** Tries of a failing batch before its records are set aside, as `maximumRetryAttempts` + 1. */
  maxAttempts?: number;
  /** Where to keep each shard's position between runs (`npm start` with a data folder). */
  checkpointFile?: string;
}

interface ShardState {
  shard: Shard;
  iterator?: string | undefined;
  /** The last record handed over (or filtered out); reading resumes after it. */
  lastSequence?: string | undefined;
  /** The shard has no more records and never will. */
  finished: boolean;
}

/**
 * The local Lambda event source mapping for the table's DynamoDB stream: reads DynamoDB
 * Local's real stream (DescribeStream, GetShardIterator, GetRecords), keeps what the filter
 * matches, and invokes the consumer with the `DynamoDBStreamEvent` Lambda would send (records
 * as JSON, binary values base64). Honours partial batch failures: the records from the first
 * failed one are tried again, up to `maxAttempts`, then set aside in `failedRecords` (the
 * mapping's on-failure destination). Shards are read parents first, each in order.
 * `drain()` hands over everything written so far, so tests move on without waiting.
 */
export class LocalStream {
  readonly failedRecords: DynamoDBRecord[] = [];
  private readonly db: DynamoDBClient;
  private readonly streams: DynamoDBStreamsClient;
  private readonly matches: (record: unknown) => boolean;
  private readonly shards = new Map<string, ShardState>();
  private streamArn: string | undefined;
  private consumer: StreamConsumer | undefined;
  private draining: Promise<number> | undefined;
  private pump: NodeJS.Timeout | undefined;

  constructor(private readonly options: LocalStreamOptions) {
    const client = {
      endpoint: options.endpoint,
      region: 'local',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 1,
    };
    this.db = new DynamoDBClient(client);
    this.streams = new DynamoDBStreamsClient(client);
    this.matches = eventFilter(options.filters);
  }

  consume(consumer: StreamConsumer): void {
    this.consumer = consumer;
  }

  /** Hands over every record written so far; returns how many reached the consumer. */
  drain(): Promise<number> {
    // One reader at a time, as one mapping reads a shard.
    this.draining ??= this.readAll().finally(() => (this.draining = undefined));
    return this.draining;
  }

  /** Polls in the background (for `npm start`); tests call `drain()` instead. */
  start(intervalMs = 250): void {
    this.pump ??= setInterval(() => void this.drain().catch(() => {}), intervalMs);
    this.pump.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.pump);
    this.pump = undefined;
    await this.draining?.catch(() => {});
    this.db.destroy();
    this.streams.destroy();
  }

  private async readAll(): Promise<number> {
    if (!this.consumer) return 0;
    await this.refreshShards();
    let delivered = 0;
    for (;;) {
      let progressed = false;
      for (const state of this.readableShards()) {
        const read = await this.readShard(state);
        delivered += read.delivered;
        progressed ||= read.records > 0;
      }
      if (!progressed) break;
    }
    this.saveCheckpoints();
    return delivered;
  }

  /** Shards whose parent is gone or read to its end: a child's records come after its parent's. */
  private readableShards(): ShardState[] {
    return [...this.shards.values()].filter((state) => {
      if (state.finished) return false;
      const parent = state.shard.ParentShardId ? this.shards.get(state.shard.ParentShardId) : undefined;
      return !parent || parent.finished;
    });
  }

  private async readShard(state: ShardState): Promise<{ records: number; delivered: number }> {
    state.iterator ??= await this.iteratorFor(state);
    if (!state.iterator) return { records: 0, delivered: 0 };
    let page: GetRecordsCommandOutput;
    try {
      page = await this.streams.send(new GetRecordsCommand({ ShardIterator: state.iterator, Limit: 1000 }));
    } catch (error) {
      const name = (error as Error).name;
      // An iterator past its 15 minutes, or (DynamoDB Local) one taken on a shard still empty:
      // take a new one from the last record handed over.
      if (name === 'ExpiredIteratorException' || name === 'TrimmedDataAccessException') {
        state.iterator = undefined;
        return { records: 0, delivered: 0 };
      }
      throw error;
    }
    const records = page.Records ?? [];
    state.iterator = page.NextShardIterator;
    if (!page.NextShardIterator) state.finished = true;
    let delivered = 0;
    const batchSize = this.options.batchSize ?? 100;
    const wanted = records.map((record) => toLambdaRecord(record, this.streamArn!)).filter((record) => this.matches(record));
    for (let start = 0; start < wanted.length; start += batchSize) {
      const batch = wanted.slice(start, start + batchSize);
      delivered += batch.length;
      await this.invoke(batch);
    }
    if (records.length > 0) state.lastSequence = records.at(-1)!.dynamodb?.SequenceNumber;
    return { records: records.length, delivered };
  }

  /**
   * One invocation, retried from the first failed record as Lambda does with
   * ReportBatchItemFailures; after `maxAttempts` the rest of the batch is set aside.
   */
  private async invoke(batch: DynamoDBRecord[]): Promise<void> {
    let pending = batch;
    for (let attempt = 1; pending.length > 0; attempt++) {
      let failedAt: string | undefined;
      try {
        const response = await this.consumer!({ Records: pending });
        failedAt = response?.batchItemFailures?.[0]?.itemIdentifier;
      } catch {
        failedAt = pending[0]!.dynamodb?.SequenceNumber;
      }
      if (failedAt === undefined) return;
      const from = pending.findIndex((record) => record.dynamodb?.SequenceNumber === failedAt);
      pending = pending.slice(Math.max(0, from));
      if (attempt >= (this.options.maxAttempts ?? 10)) {
        this.failedRecords.push(...pending);
        return;
      }
    }
  }

  private async refreshShards(): Promise<void> {
    this.streamArn ??= (await this.db.send(new DescribeTableCommand({ TableName: this.options.tableName }))).Table?.LatestStreamArn;
    if (!this.streamArn) throw new Error(`table ${this.options.tableName} has no stream`);
    const saved = this.shards.size === 0 ? this.loadCheckpoints() : {};
    let exclusiveStart: string | undefined;
    do {
      const page = await this.streams.send(new DescribeStreamCommand({ StreamArn: this.streamArn, ExclusiveStartShardId: exclusiveStart }));
      for (const shard of page.StreamDescription?.Shards ?? []) {
        if (!this.shards.has(shard.ShardId!))
          this.shards.set(shard.ShardId!, { shard, lastSequence: saved[shard.ShardId!], finished: false });
      }
      exclusiveStart = page.StreamDescription?.LastEvaluatedShardId;
    } while (exclusiveStart);
  }

  private async iteratorFor(state: ShardState): Promise<string | undefined> {
    const from = state.lastSequence
      ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER' as const, SequenceNumber: state.lastSequence }
      : { ShardIteratorType: 'TRIM_HORIZON' as const };
    try {
      return (await this.streams.send(new GetShardIteratorCommand({ StreamArn: this.streamArn, ShardId: state.shard.ShardId, ...from })))
        .ShardIterator;
    } catch (error) {
      // A saved position the emulator no longer has (its records are gone): start over.
      if ((error as Error).name === 'TrimmedDataAccessException' && state.lastSequence) {
        state.lastSequence = undefined;
        return undefined;
      }
      throw error;
    }
  }

  private loadCheckpoints(): Record<string, string> {
    const file = this.options.checkpointFile;
    if (!file || !existsSync(file)) return {};
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
    } catch {
      return {};
    }
  }

  private saveCheckpoints(): void {
    const file = this.options.checkpointFile;
    if (!file) return;
    const positions = Object.fromEntries(
      [...this.shards].filter(([, state]) => state.lastSequence).map(([id, state]) => [id, state.lastSequence!]),
    );
    writeFileSync(file, `${JSON.stringify(positions, null, 2)}\n`);
  }
}

/** A record as Lambda delivers it: JSON, so binary values are base64 and times epoch seconds. */
function toLambdaRecord(record: StreamRecord, streamArn: string): DynamoDBRecord {
  const { ApproximateCreationDateTime, ...dynamodb } = record.dynamodb ?? {};
  return JSON.parse(
    JSON.stringify(
      {
        ...record,
        eventSourceARN: streamArn,
        dynamodb: {
          ...dynamodb,
          ...(ApproximateCreationDateTime ? { ApproximateCreationDateTime: Math.floor(ApproximateCreationDateTime.getTime() / 1000) } : {}),
        },
      },
      (_key, value: unknown) => (value instanceof Uint8Array ? Buffer.from(value).toString('base64') : value),
    ),
  ) as DynamoDBRecord;
}
