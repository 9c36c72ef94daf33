import { createHash, randomUUID } from 'node:crypto';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { Clock } from '../shared/clock.ts';
import { maxQueueDelaySeconds, type Queue } from '../shared/domain/queue.ts';

export type QueueConsumer = (event: SQSEvent) => Promise<SQSBatchResponse | undefined>;

interface Message {
  id: string;
  body: string;
  sentAt: number;
  visibleAt: number;
  receiveCount: number;
  firstReceivedAt?: number;
}

export interface InProcessQueueOptions {
  name: string;
  clock: Clock;
  visibilityTimeoutSeconds?: number;
  /** Receives before a message moves to the dead-letter list, as an SQS redrive policy. */
  maxReceiveCount?: number;
  batchSize?: number;
}

/**
 * The local SQS: delays and visibility timeouts measured on the injected clock, consumers
 * invoked with real `SQSEvent` shapes, partial batch failures honoured, redelivery after the
 * visibility timeout, dead letters after `maxReceiveCount`. `drain()` delivers everything due
 * now, so tests move the clock instead of waiting.
 */
export class InProcessQueue implements Queue {
  private messages: Message[] = [];
  readonly deadLetters: Array<{ id: string; body: string }> = [];
  private consumer: QueueConsumer | undefined;
  private pump: NodeJS.Timeout | undefined;
  private draining: Promise<number> | undefined;
  private readonly visibilityTimeoutMs: number;
  private readonly maxReceiveCount: number;
  private readonly batchSize: number;

  constructor(private readonly options: InProcessQueueOptions) {
    this.visibilityTimeoutMs = (options.visibilityTimeoutSeconds ?? 30) * 1000;
    this.maxReceiveCount = options.maxReceiveCount ?? 5;
    this.batchSize = options.batchSize ?? 10;
  }

  async send(body: string, options: { delaySeconds?: number } = {}): Promise<void> {
    const delaySeconds = options.delaySeconds ?? 0;
    if (!Number.isInteger(delaySeconds) || delaySeconds < 0 || delaySeconds > maxQueueDelaySeconds) {
      throw new Error(`delaySeconds must be an integer from 0 to ${maxQueueDelaySeconds}`);
    }
    const now = this.options.clock.now();
    this.messages.push({ id: randomUUID(), body, sentAt: now, visibleAt: now + delaySeconds * 1000, receiveCount: 0 });
  }

  consume(consumer: QueueConsumer): void {
    this.consumer = consumer;
  }

  /** Messages not yet deleted, visible or not. */
  get depth(): number {
    return this.messages.length;
  }

  /** Delivers every message visible now, batch by batch; returns how many deliveries were made. */
  drain(): Promise<number> {
    // One drain at a time, like one poller, so a message is never in two batches at once.
    this.draining ??= this.deliverDue().finally(() => (this.draining = undefined));
    return this.draining;
  }

  /** Polls in the background (for `npm start`); tests call `drain()` instead. */
  start(intervalMs = 250): void {
    this.pump ??= setInterval(() => void this.drain().catch(() => {}), intervalMs);
    this.pump.unref();
  }

  stop(): void {
    clearInterval(this.pump);
    this.pump = undefined;
  }

  private async deliverDue(): Promise<number> {
    let delivered = 0;
    for (;;) {
      if (!this.consumer) return delivered;
      const now = this.options.clock.now();
      const batch = this.messages.filter((message) => message.visibleAt <= now).slice(0, this.batchSize);
      if (batch.length === 0) return delivered;
      for (const message of batch) {
        message.receiveCount += 1;
        message.firstReceivedAt ??= now;
        message.visibleAt = now + this.visibilityTimeoutMs;
      }
      delivered += batch.length;
      let failed: Set<string>;
      try {
        const response = await this.consumer({ Records: batch.map((message) => this.record(message)) });
        failed = new Set((response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
      } catch {
        failed = new Set(batch.map((message) => message.id));
      }
      const done = new Set(batch.filter((message) => !failed.has(message.id)).map((message) => message.id));
      for (const message of batch) {
        if (failed.has(message.id) && message.receiveCount >= this.maxReceiveCount) {
          this.deadLetters.push({ id: message.id, body: message.body });
          done.add(message.id);
        }
      }
      this.messages = this.messages.filter((message) => !done.has(message.id));
    }
  }

  private record(message: Message): SQSRecord {
    return {
      messageId: message.id,
      receiptHandle: `${message.id}:${message.receiveCount}`,
      body: message.body,
      attributes: {
        ApproximateReceiveCount: String(message.receiveCount),
        SentTimestamp: String(message.sentAt),
        SenderId: 'local',
        ApproximateFirstReceiveTimestamp: String(message.firstReceivedAt),
      },
      messageAttributes: {},
      md5OfBody: createHash('md5').update(message.body).digest('hex'),
      eventSource: 'aws:sqs',
      eventSourceARN: `arn:aws:sqs:local:000000000000:${this.options.name}`,
      awsRegion: 'local',
    };
  }
}
