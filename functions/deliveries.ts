import { SESClient } from '@aws-sdk/client-ses';
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { kmsSealer } from '../shared/adapters/kms.ts';
import { SesMailer } from '../shared/adapters/ses.ts';
import { sqsQueue } from '../shared/adapters/sqs.ts';
import { chatAppSource, chatSettings } from '../shared/adapters/chatSecrets.ts';
import { SlackWebApi } from '../shared/adapters/slackApi.ts';
import { sendBillingNotice, type BillingNoticePorts } from '../shared/domain/billing/notices.ts';
import { sendChatNotice, type ChatNoticePorts } from '../shared/domain/chat/notices.ts';
import { attemptDelivery } from '../shared/domain/webhooks/deliver.ts';
import type { WebhookPorts } from '../shared/domain/webhooks/ports.ts';
import { parseWorkMessage } from '../shared/domain/webhooks/work.ts';
import { webhookLimits } from '../shared/limits.ts';
import { lambdaEntry, type Adapters, type Platform } from '../shared/platform.ts';
import { DynamoChatInstallationStore } from '../shared/store/chatInstallations.ts';
import { DynamoNoticeMarks } from '../shared/store/noticeMarks.ts';
import { DynamoBillingStore } from '../shared/store/billing.ts';
import { DynamoUserStore } from '../shared/store/users.ts';
import { DynamoWebhookStore } from '../shared/store/webhooks.ts';
import { systemTransport } from '../shared/webhooks/transport.ts';

export type DeliveriesDeps = Platform & WebhookPorts & ChatNoticePorts & BillingNoticePorts;

/**
 * The delivery worker's wiring: every webhook port (it attempts, retries and emails owners),
 * chat notices' (teams' installations, the notices' marks, Slack's API for DMs), and buyers'
 * notices' (the subscription read, the buyer, their marks; mailed). A DM takes only the bot
 * token; the app's client credentials (`chatApp`, read at the first renewal) renew a rotating
 * one, since Slack takes them with the refresh token.
 */
export function compose(
  platform: Platform,
  adapters: Pick<Adapters, 'mailer' | 'queue' | 'sealer' | 'transport' | 'chatSealer' | 'chatApp'>,
): DeliveriesDeps {
  const { db, config } = platform;
  return {
    ...platform,
    ...adapters,
    webhooks: new DynamoWebhookStore(db, config.TABLE_NAME, webhookLimits.deliveryLogSeconds),
    users: new DynamoUserStore(db, config.TABLE_NAME),
    local: config.HUSHLINK_MODE === 'local',
    chatInstallations: new DynamoChatInstallationStore(db, config.TABLE_NAME),
    chatNoticeMarks: new DynamoNoticeMarks(db, config.TABLE_NAME, 'chat_notice'),
    billing: new DynamoBillingStore(db, config.TABLE_NAME),
    billingNoticeMarks: new DynamoNoticeMarks(db, config.TABLE_NAME, 'billing_notice'),
    chatMessages: new SlackWebApi({ clientId: '', clientSecret: '', apiUrl: config.SLACK_API_URL }),
  };
}

/**
 * The work queue's consumer: makes delivery attempts (the relay, functions/relay.ts, queues
 * the first; a failure queues the next), sends chat notices and mails buyers' notices. Records are handled concurrently
 * (a slow receiver does not hold up the batch) by Powertools' batch processor: one that throws is
 * reported alone as a batch item failure, so SQS retries only it, and after the redrive limit it
 * lands in the dead-letter queue, which alarms. A batch that fails whole is reported the same way,
 * not thrown. A failed delivery attempt is not a thrown error: it is recorded and retried on the
 * schedule of DESIGN.md §3.
 */
export const createHandler = (deps: DeliveriesDeps) => {
  const handleRecord = async (record: SQSRecord): Promise<void> => {
    const message = parseWorkMessage(record.body);
    if (!message) {
      deps.logger.error('work message dropped: not one of ours', { message_id: record.messageId });
      return;
    }
    try {
      if (message.kind === 'billing_notice') {
        // Ids and the outcome only: never the buyer's address.
        const outcome = await sendBillingNotice(message, deps);
        deps.logger.info('billing notice', { event_id: message.event_id, subscription_id: message.subscription_id, outcome });
        return;
      }
      if (message.kind === 'chat_notice') {
        // Ids and the outcome only: never the token, the user's message or the whole secret id.
        const outcome = await sendChatNotice(message, deps);
        deps.logger.info('chat notice', { event_id: message.event_id, team_id: message.team_id, outcome });
        return;
      }
      const outcome = await attemptDelivery(message, deps);
      deps.logger.info('delivery attempt', {
        delivery_id: message.delivery_id,
        endpoint_id: message.endpoint_id,
        attempt: message.attempt,
        outcome,
      });
    } catch (error) {
      deps.logger.error('work message failed', {
        message_id: record.messageId,
        error: (error as Error).name,
        error_message: (error as Error).message,
      });
      throw error;
    }
  };
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    // A processor per batch: it keeps the batch's outcomes, and the local queue may run two at once.
    const response = await processPartialResponse(event, handleRecord, new BatchProcessor(EventType.SQS), {
      throwOnFullBatchFailure: false,
    });
    deps.metrics.flush();
    return { batchItemFailures: response.batchItemFailures };
  };
};

// Opens signing secrets and bot tokens with KMS, each in its own context (and seals renewed bot tokens); emails the owner of an endpoint it switches off.
export const handler = lambdaEntry((platform) =>
  createHandler(
    compose(platform, {
      sealer: kmsSealer(platform.config),
      chatSealer: kmsSealer(platform.config, 'chat_team'),
      chatApp: chatAppSource(() => chatSettings(platform.config)),
      transport: systemTransport(),
      queue: sqsQueue(platform.config),
      mailer: new SesMailer(new SESClient({ region: platform.config.REGION }), platform.config.MAIL_FROM),
    }),
  ),
);
