import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Config } from '../config.ts';
import type { Queue } from '../domain/queue.ts';

/** The work queue in AWS. */
export class SqsQueue implements Queue {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async send(body: string, options: { delaySeconds?: number } = {}): Promise<void> {
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: body,
        ...(options.delaySeconds ? { DelaySeconds: options.delaySeconds } : {}),
      }),
    );
  }
}

/** The work queue of the functions the stack lets send to it (QUEUE_URL). */
export function sqsQueue(config: Pick<Config, 'REGION' | 'QUEUE_URL'>): SqsQueue {
  if (!config.QUEUE_URL) throw new Error('QUEUE_URL is not set: this function cannot send work');
  return new SqsQueue(new SQSClient({ region: config.REGION }), config.QUEUE_URL);
}
