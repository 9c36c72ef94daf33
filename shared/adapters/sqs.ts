import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Queue } from './queue.ts';

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
