import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { sqsQueue } from '../shared/adapters/sqs.ts';
import type { WebhookPorts } from '../shared/domain/webhooks/ports.ts';
import { relaySecretChanges, type SecretChange } from '../shared/domain/webhooks/relay.ts';
import { webhookLimits } from '../shared/limits.ts';
import { lambdaEntry, type Adapters, type Platform } from '../shared/platform.ts';
import { secretChangeOf } from '../shared/store/secretChanges.ts';
import { DynamoWebhookStore } from '../shared/store/webhooks.ts';

/** The relay's wiring: the owners' endpoints and their deliveries, and the queue for attempts. */
export type RelayDeps = Platform & Pick<WebhookPorts, 'webhooks' | 'queue'>;

export function compose(platform: Platform, adapters: Pick<Adapters, 'queue'>): RelayDeps {
  const { db, config } = platform;
  return {
    ...platform,
    queue: adapters.queue,
    webhooks: new DynamoWebhookStore(db, config.TABLE_NAME, webhookLimits.deliveryLogSeconds),
  };
}

/**
 * The table's stream consumer: turns the events that writes added to owned secrets into
 * deliveries, and queues their first attempts. The event source mapping hands over only owned
 * secrets' changes (`secretChangeFilter`). A record that fails is reported as the batch's
 * failure, so Lambda retries from it (relaying is idempotent: delivery ids come from the event
 * and the endpoint), and after its retries the batch's description goes to the dead letters.
 */
export const createHandler =
  (deps: RelayDeps) =>
  async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
    const changes: Array<{ sequence: string; change: SecretChange }> = [];
    for (const record of event.Records) {
      const change = secretChangeOf(record);
      if (change) changes.push({ sequence: record.dynamodb?.SequenceNumber ?? '', change });
    }
    const outcomes = await relaySecretChanges(
      changes.map(({ change }) => change),
      deps,
    );
    const failed = outcomes.findIndex((outcome) => outcome.status === 'rejected');
    deps.metrics.flush();
    if (failed < 0) return { batchItemFailures: [] };
    const error = (outcomes[failed] as PromiseRejectedResult).reason as Error;
    deps.logger.error('relay failed', { secret_id: changes[failed]!.change.secret.id, error: error.name, message: error.message });
    // Records are in order: Lambda retries from the first one that failed.
    return { batchItemFailures: [{ itemIdentifier: changes[failed]!.sequence }] };
  };

export const handler = lambdaEntry((platform) => createHandler(compose(platform, { queue: sqsQueue(platform.config) })));
