import { SESClient } from '@aws-sdk/client-ses';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { kmsSealer } from '../shared/adapters/kms.ts';
import { systemTransport } from '../shared/webhooks/transport.ts';
import { SesMailer } from '../shared/adapters/ses.ts';
import { sqsQueue } from '../shared/adapters/sqs.ts';
import { lambdaEntry, webhookPorts, type Deps } from '../shared/deps.ts';
import { attemptDelivery } from '../shared/domain/webhooks/deliver.ts';
import { relaySecretEvents } from '../shared/domain/webhooks/relay.ts';
import { parseWorkMessage } from '../shared/domain/webhooks/work.ts';

/**
 * The work queue's consumer: relays secrets' events into deliveries and makes delivery
 * attempts. Records are handled concurrently (a slow receiver does not hold up the batch);
 * one that throws is reported alone as a batch item failure, so SQS retries only it, and
 * after the redrive limit it lands in the dead-letter queue, which alarms. A failed delivery
 * attempt is not a thrown error: it is recorded and retried on the schedule of DESIGN.md §3.
 */
export const createHandler = (deps: Deps) => {
  const ports = webhookPorts(deps);
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const outcomes = await Promise.allSettled(
      event.Records.map(async (record) => {
        const message = parseWorkMessage(record.body);
        if (!message) {
          deps.logger.error('work message dropped: not one of ours', { message_id: record.messageId });
          return;
        }
        if (message.kind === 'relay') await relaySecretEvents(message.secret_id, ports);
        else {
          const outcome = await attemptDelivery(message, ports);
          deps.logger.info('delivery attempt', { delivery_id: message.delivery_id, endpoint_id: message.endpoint_id, attempt: message.attempt, outcome });
        }
      }),
    );
    const failures = event.Records.filter((_, index) => outcomes[index]!.status === 'rejected');
    for (const [index, outcome] of outcomes.entries()) {
      if (outcome.status === 'rejected') {
        const error = outcome.reason as Error;
        deps.logger.error('work message failed', { message_id: event.Records[index]!.messageId, error: error.name, message: error.message });
      }
    }
    deps.metrics.flush();
    return { batchItemFailures: failures.map((record) => ({ itemIdentifier: record.messageId })) };
  };
};

// Opens signing secrets with KMS; emails the owner of an endpoint it switches off.
export const handler = lambdaEntry(createHandler, (config) => ({
  sealer: kmsSealer(config),
  transport: systemTransport(),
  queue: sqsQueue(config),
  mailer: new SesMailer(new SESClient({ region: config.REGION }), config.MAIL_FROM),
}));
