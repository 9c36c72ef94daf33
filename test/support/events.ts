import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  type GetRecordsCommandOutput,
  GetShardIteratorCommand,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import type { Runtime } from '../../local/runtime.ts';
import { emittedEvents, type SecretEvent } from '../../shared/domain/secrets/model.ts';
import { secretWriteOf } from '../../shared/store/relayRecords.ts';

/**
 * Every event a secret emitted, in order, with its `views_left`: read from the table's stream
 * (from its start, a reader of its own beside the runtime's), as the webhook relay sees them.
 * The item itself keeps only its latest write's events.
 */
export async function secretEventsOf(runtime: Pick<Runtime, 'dynamo' | 'config'>, secretId: string): Promise<SecretEvent[]> {
  const options = { endpoint: runtime.dynamo.endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
  const db = new DynamoDBClient(options);
  const streams = new DynamoDBStreamsClient(options);
  try {
    const streamArn = (await db.send(new DescribeTableCommand({ TableName: runtime.config.TABLE_NAME }))).Table!.LatestStreamArn!;
    const shards: Shard[] = [];
    let start: string | undefined;
    do {
      const page = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId: start }));
      shards.push(...(page.StreamDescription?.Shards ?? []));
      start = page.StreamDescription?.LastEvaluatedShardId;
    } while (start);
    // Parents before children: a child's records come after its parent's.
    const ordered: Shard[] = [];
    const pending = [...shards];
    while (pending.length > 0) {
      const next = pending.findIndex((shard) => !shard.ParentShardId || !pending.some((other) => other.ShardId === shard.ParentShardId));
      ordered.push(...pending.splice(next, 1));
    }
    const events: SecretEvent[] = [];
    for (const shard of ordered) {
      let iterator: string | undefined;
      try {
        iterator = (
          await streams.send(
            new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard.ShardId, ShardIteratorType: 'TRIM_HORIZON' }),
          )
        ).ShardIterator;
      } catch (error) {
        if ((error as Error).name === 'TrimmedDataAccessException') continue;
        throw error;
      }
      while (iterator) {
        let page: GetRecordsCommandOutput;
        try {
          page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
        } catch (error) {
          // DynamoDB Local: a shard with no record yet.
          if ((error as Error).name === 'TrimmedDataAccessException') break;
          throw error;
        }
        for (const record of page.Records ?? []) {
          if (record.dynamodb?.Keys?.pk?.S !== `SECRET#${secretId}`) continue;
          const write = secretWriteOf(record);
          if (write) events.push(...emittedEvents(write.secret, write.events));
        }
        // An open shard's iterator never runs out: stop at its end for now.
        if ((page.Records ?? []).length === 0) break;
        iterator = page.NextShardIterator;
      }
    }
    return events;
  } finally {
    db.destroy();
    streams.destroy();
  }
}
