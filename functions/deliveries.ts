import { SESClient } from '@aws-sdk/client-ses';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { kmsSealer } from '../shared/adapters/kms.ts';
import { SesMailer } from '../shared/adapters/ses.ts';
import { sqsQueue } from '../shared/adapters/sqs.ts';
import { attemptDelivery } from '../shared/domain/webhooks/deliver.ts';
import type { WebhookPorts } from '../shared/domain/webhooks/ports.ts';
import { parseWorkMessage } from '../shared/domain/webhooks/work.ts';
import { webhookLimits } from '../shared/limits.ts';
import { lambdaEntry, type Adapters, type Platform } from '../shared/platform.ts';
import { DynamoUserStore } from '../shared/store/users.ts';
import { DynamoWebhookStore } from '../shared/store/webhooks.ts';
import { systemTransport } from '../shared/webhooks/transport.ts';

export type DeliveriesDeps = Platform & WebhookPorts;

/** The delivery worker's wiring: every webhook port (it attempts, retries and emails owners). */
export function compose(platform: Platform, adapters: Pick<Adapters, 'mailer' | 'queue' | 'sealer' | 'transport'>): DeliveriesDeps {
  const { db, config } = platform;
  return {
    ...platform,
    ...adapters,
    webhooks: new DynamoWebhookStore(db, config.TABLE_NAME, webhookLimits.deliveryLogSeconds),
    users: new DynamoUserStore(db, config.TABLE_NAME),
    local: config.HUSHLINK_MODE === 'local',
  };
}

/**
 * The work queue's consumer: makes delivery attempts (the relay, functions/relay.ts, queues
 * the first; a failure queues the next). Records are handled concurrently (a slow receiver does not hold up the batch);
 * one that throws is reported alone as a batch item failure, so SQS retries only it, and
 * after the redrive limit it lands in the dead-letter queue, which alarms. A failed delivery
 * attempt is not a thrown error: it is recorded and retried on the schedule of DESIGN.md §3.
 */
export const createHandler = (deps: DeliveriesDeps) => {
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const outcomes = await Promise.allSettled(
      event.Records.map(async (record) => {
        const message = parseWorkMessage(record.body);
        if (!message) {
          deps.logger.error('work message dropped: not one of ours', { message_id: record.messageId });
          return;
        }
        const outcome = await attemptDelivery(message, deps);
        deps.logger.info('delivery attempt', { delivery_id: message.delivery_id, endpoint_id: message.endpoint_id, attempt: message.attempt, outcome });
      }),
    );
    const failures = event.Records.filter((_, index) => outcomes[index]!.status === 'rejected');
    for (const [index, outcome] of outcomes.entries()) {
      if (outcome.status === 'rejected') {
        const error = outcome.reason as Error;
        deps.logger.error('work message failed', { message_id: event.Records[index]!.messageId, error: error.name, error_message: error.message });
      }
    }
    deps.metrics.flush();
    return { batchItemFailures: failures.map((record) => ({ itemIdentifier: record.messageId })) };
  };
};

// Opens signing secrets with KMS; emails the owner of an endpoint it switches off.
export const handler = lambdaEntry((platform) =>
  createHandler(
    compose(platform, {
      sealer: kmsSealer(platform.config),
      transport: systemTransport(),
      queue: sqsQueue(platform.config),
      mailer: new SesMailer(new SESClient({ region: platform.config.REGION }), platform.config.MAIL_FROM),
    }),
  ),
);
