import { createHash } from 'node:crypto';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { InProcessQueue, type InProcessQueueOptions } from '../../local/queue.ts';
import { maxQueueDelaySeconds } from '../../shared/domain/queue.ts';
import { AdjustableClock } from '../../shared/clock.ts';

/** A queue on its own clock, and every batch its consumer was handed. */
function setup(
  options: Partial<InProcessQueueOptions> = {},
  answer: (event: SQSEvent, call: number) => SQSBatchResponse | undefined = () => undefined,
) {
  const clock = new AdjustableClock();
  const queue = new InProcessQueue({ name: 'test-work', clock, ...options });
  const batches: SQSRecord[][] = [];
  queue.consume(async (event) => {
    batches.push(event.Records);
    return answer(event, batches.length);
  });
  const delivered = () => batches.flat();
  return { clock, queue, batches, delivered };
}

const failing = () => {
  throw new Error('consumer failed');
};

describe('InProcessQueue', () => {
  it('delivers each message as an SQS record, then deletes it', async () => {
    const { queue, delivered } = setup();
    await queue.send('{"job":"one"}');
    expect(queue.depth).toBe(1);

    expect(await queue.drain()).toBe(1);
    const [record] = delivered();
    expect(record).toMatchObject({
      body: '{"job":"one"}',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:local:000000000000:test-work',
      md5OfBody: createHash('md5').update('{"job":"one"}').digest('hex'),
      attributes: { ApproximateReceiveCount: '1' },
    });
    expect(record!.messageId).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number(record!.attributes.SentTimestamp)).toBeGreaterThan(0);
    expect(queue.depth).toBe(0);
    expect(await queue.drain()).toBe(0);
  });

  it('keeps messages until a consumer is attached', async () => {
    const clock = new AdjustableClock();
    const queue = new InProcessQueue({ name: 'idle', clock });
    await queue.send('waiting');
    expect(await queue.drain()).toBe(0);
    expect(queue.depth).toBe(1);
    const bodies: string[] = [];
    queue.consume(async (event) => void bodies.push(...event.Records.map((record) => record.body)));
    expect(await queue.drain()).toBe(1);
    expect(bodies).toEqual(['waiting']);
  });

  it('holds a delayed message until the clock reaches its delay', async () => {
    const { clock, queue, delivered } = setup();
    await queue.send('later', { delaySeconds: 120 });
    await queue.send('now');
    expect(await queue.drain()).toBe(1);
    expect(delivered().map((record) => record.body)).toEqual(['now']);

    clock.advance(119);
    expect(await queue.drain()).toBe(0);
    clock.advance(1);
    expect(await queue.drain()).toBe(1);
    expect(delivered().map((record) => record.body)).toEqual(['now', 'later']);
  });

  it('redelivers after the visibility timeout when the consumer throws', async () => {
    const { clock, queue, delivered } = setup({ visibilityTimeoutSeconds: 45 }, (_, call) => (call === 1 ? failing() : undefined));
    await queue.send('retry me');
    expect(await queue.drain()).toBe(1);
    expect(queue.depth).toBe(1);

    // Invisible while the visibility timeout runs.
    clock.advance(44);
    expect(await queue.drain()).toBe(0);
    clock.advance(1);
    expect(await queue.drain()).toBe(1);

    const [first, second] = delivered();
    expect(second!.messageId).toBe(first!.messageId);
    expect(first!.attributes.ApproximateReceiveCount).toBe('1');
    expect(second!.attributes.ApproximateReceiveCount).toBe('2');
    expect(second!.attributes.ApproximateFirstReceiveTimestamp).toBe(first!.attributes.ApproximateFirstReceiveTimestamp);
    expect(queue.depth).toBe(0);
  });

  it('redelivers only the records named in batchItemFailures', async () => {
    const { clock, queue, batches } = setup({}, (event, call) =>
      call === 1
        ? {
            batchItemFailures: event.Records.filter((record) => record.body === 'b').map((record) => ({
              itemIdentifier: record.messageId,
            })),
          }
        : undefined,
    );
    for (const body of ['a', 'b', 'c']) await queue.send(body);
    expect(await queue.drain()).toBe(3);
    expect(batches[0]!.map((record) => record.body)).toEqual(['a', 'b', 'c']);
    expect(queue.depth).toBe(1);

    clock.advance(30);
    expect(await queue.drain()).toBe(1);
    expect(batches[1]!.map((record) => [record.body, record.attributes.ApproximateReceiveCount])).toEqual([['b', '2']]);
    expect(queue.depth).toBe(0);
  });

  it('moves a message to the dead letters after maxReceiveCount failed receives', async () => {
    const { clock, queue, delivered } = setup({ maxReceiveCount: 3, visibilityTimeoutSeconds: 10 }, failing);
    await queue.send('poison');
    for (let receive = 1; receive <= 3; receive++) {
      expect(queue.deadLetters).toEqual([]);
      expect(await queue.drain()).toBe(1);
      clock.advance(10);
    }
    expect(delivered().map((record) => record.attributes.ApproximateReceiveCount)).toEqual(['1', '2', '3']);
    expect(queue.deadLetters).toEqual([{ id: delivered()[0]!.messageId, body: 'poison' }]);
    expect(queue.depth).toBe(0);
    expect(await queue.drain()).toBe(0);
  });

  it('splits what is due into batches of batchSize', async () => {
    const { queue, batches } = setup({ batchSize: 4 });
    for (let i = 0; i < 10; i++) await queue.send(`m${i}`);
    expect(await queue.drain()).toBe(10);
    expect(batches.map((batch) => batch.length)).toEqual([4, 4, 2]);
    expect(batches.flat().map((record) => record.body)).toEqual(Array.from({ length: 10 }, (_, i) => `m${i}`));
  });

  it('runs one drain at a time, so concurrent drains never deliver a message twice', async () => {
    const { queue, delivered } = setup();
    await queue.send('once');
    const [first, second] = await Promise.all([queue.drain(), queue.drain()]);
    expect(first).toBe(1);
    expect(second).toBe(1);
    expect(delivered()).toHaveLength(1);
  });

  it('refuses delays SQS refuses: above 900 s, negative or fractional', async () => {
    const { queue } = setup();
    expect(maxQueueDelaySeconds).toBe(900);
    await expect(queue.send('x', { delaySeconds: 901 })).rejects.toThrow(/delaySeconds/);
    await expect(queue.send('x', { delaySeconds: -1 })).rejects.toThrow(/delaySeconds/);
    await expect(queue.send('x', { delaySeconds: 1.5 })).rejects.toThrow(/delaySeconds/);
    expect(queue.depth).toBe(0);
    await queue.send('x', { delaySeconds: 900 });
    expect(queue.depth).toBe(1);
  });
});
