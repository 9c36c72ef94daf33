import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDynamoLocal, type LocalDynamo } from '../../local/dynamodb.ts';
import { LocalStream } from '../../local/streams.ts';
import { createDocumentClient } from '../../shared/store/client.ts';

// The local event source mapping against DynamoDB Local's real stream (no runtime: the
// emulator and the poller alone).

const tableName = 'stream-test';
let dynamo: LocalDynamo;
let db: ReturnType<typeof createDocumentClient>;
const folders: string[] = [];
beforeAll(async () => {
  dynamo = await startDynamoLocal({ tableName });
  db = createDocumentClient({ region: 'local', endpoint: dynamo.endpoint });
});
afterAll(async () => {
  db?.destroy();
  await dynamo?.stop();
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

const filters = [{ eventName: ['INSERT'], dynamodb: { NewImage: { kind: { S: ['wanted'] } } } }];
const put = (pk: string, kind: string, extra: Record<string, unknown> = {}) =>
  db.send(new PutCommand({ TableName: tableName, Item: { pk, sk: 'X', kind, ...extra } }));
const keyOf = (record: DynamoDBRecord) => record.dynamodb?.Keys?.pk?.S;

/** A consumer that records what it is handed and answers as told. */
function consumer(answer: (event: DynamoDBStreamEvent, call: number) => DynamoDBBatchResponse = () => ({ batchItemFailures: [] })) {
  const calls: string[][] = [];
  return {
    calls,
    consume: async (event: DynamoDBStreamEvent) => {
      calls.push(event.Records.map((record) => keyOf(record)!));
      return answer(event, calls.length);
    },
  };
}

describe('LocalStream', () => {
  let stream: LocalStream;
  afterAll(() => stream?.stop());

  it('hands over, in order and as Lambda sends them, only what the filter matches', async () => {
    stream = new LocalStream({ endpoint: dynamo.endpoint, tableName, filters, batchSize: 2 });
    const seen = consumer();
    const records: DynamoDBRecord[] = [];
    stream.consume(async (event) => {
      records.push(...event.Records);
      return seen.consume(event);
    });
    await put('a', 'wanted', { bytes: new Uint8Array([1, 2, 3]) });
    await put('b', 'other');
    await put('c', 'wanted');
    await put('d', 'wanted');
    expect(await stream.drain()).toBe(3);
    expect(seen.calls).toEqual([['a', 'c'], ['d']]);
    // Lambda's JSON: binary base64, times in epoch seconds, the stream's ARN.
    expect(records[0]!.dynamodb?.NewImage?.bytes).toEqual({ B: 'AQID' });
    expect(records[0]!.eventSource).toBe('aws:dynamodb');
    expect(records[0]!.eventSourceARN).toMatch(/\/stream\//);
    expect(typeof records[0]!.dynamodb?.ApproximateCreationDateTime).toBe('number');
    // Nothing twice.
    expect(await stream.drain()).toBe(0);
  });

  it('retries from the record that failed, and sets the rest aside after its tries', async () => {
    const failing = consumer((event, call) => {
      // The second record fails twice, then goes through.
      const second = event.Records.find((record) => keyOf(record) === 'f2');
      return { batchItemFailures: second && call <= 2 ? [{ itemIdentifier: second.dynamodb!.SequenceNumber! }] : [] };
    });
    stream.consume(failing.consume);
    await put('f1', 'wanted');
    await put('f2', 'wanted');
    await put('f3', 'wanted');
    await stream.drain();
    expect(failing.calls).toEqual([['f1', 'f2'], ['f2'], ['f2'], ['f3']]);
    expect(stream.failedRecords).toEqual([]);

    const broken = consumer(() => {
      throw new Error('broken');
    });
    stream.consume(broken.consume);
    await put('g1', 'wanted');
    await stream.drain();
    expect(broken.calls).toHaveLength(10);
    expect(stream.failedRecords.map(keyOf)).toEqual(['g1']);
    // The stream went on past it.
    const after = consumer();
    stream.consume(after.consume);
    await put('g2', 'wanted');
    await stream.drain();
    expect(after.calls).toEqual([['g2']]);
  });

  it('resumes after the last record handed over when started again with its checkpoint', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'hushlink-stream-'));
    folders.push(folder);
    const checkpointFile = join(folder, 'positions.json');
    const first = new LocalStream({ endpoint: dynamo.endpoint, tableName, filters, checkpointFile });
    const before = consumer();
    first.consume(before.consume);
    await first.drain();
    await put('h1', 'wanted');
    await first.drain();
    await first.stop();
    expect(before.calls.flat()).toContain('h1');

    await put('h2', 'wanted');
    const second = new LocalStream({ endpoint: dynamo.endpoint, tableName, filters, checkpointFile });
    const resumed = consumer();
    second.consume(resumed.consume);
    await second.drain();
    await second.stop();
    expect(resumed.calls.flat()).toEqual(['h2']);
  });
});
