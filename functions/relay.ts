import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { sqsQueue } from '../shared/adapters/sqs.ts';
import type { WebhookPorts } from '../shared/domain/webhooks/ports.ts';
import { relaySecretChanges, type SecretChange } from '../shared/domain/webhooks/relay.ts';
import { deliverMessage, sendWork } from '../shared/domain/webhooks/work.ts';
import { webhookLimits } from '../shared/limits.ts';
import { lambdaEntry, type Adapters, type Platform } from '../shared/platform.ts';
import { secretChangeOf, testDeliveryOf } from '../shared/store/relayRecords.ts';
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
 * The table's stream consumer (the event source mapping hands over only what `relayFilters`
 * matches): turns the events that writes added to owned secrets into deliveries and queues
 * their first attempts, and queues the first attempt of each test delivery written. A record
 * that fails is reported as the batch's failure, so Lambda retries from it (relaying is
 * idempotent: delivery ids come from the event and the endpoint, and an attempt is claimed
 * before it is made), and after its retries the batch's description goes to the dead letters.
 */
export const createHandler =
  (deps: RelayDeps) =>
  async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
    const changes: Array<{ index: number; change: SecretChange }> = [];
    const tests: Array<Promise<unknown>> = [];
    const testIndexes: number[] = [];
    event.Records.forEach((record, index) => {
      const change = secretChangeOf(record);
      if (change) changes.push({ index, change });
      const test = testDeliveryOf(record);
      if (test) {
        testIndexes.push(index);
        tests.push(sendWork(deps.queue, deliverMessage(test, 1)));
      }
    });
    const outcomes = new Map<number, PromiseSettledResult<unknown>>();
    (await relaySecretChanges(changes.map(({ change }) => change), deps)).forEach((outcome, i) => outcomes.set(changes[i]!.index, outcome));
    (await Promise.allSettled(tests)).forEach((outcome, i) => outcomes.set(testIndexes[i]!, outcome));
    deps.metrics.flush();
    // Records are in order: Lambda retries from the first one that failed.
    const failed = [...outcomes].filter(([, outcome]) => outcome.status === 'rejected').sort(([a], [b]) => a - b)[0];
    if (!failed) return { batchItemFailures: [] };
    const error = (failed[1] as PromiseRejectedResult).reason as Error;
    deps.logger.error('relay failed', { error: error.name, message: error.message });
    return { batchItemFailures: [{ itemIdentifier: event.Records[failed[0]]!.dynamodb?.SequenceNumber ?? '' }] };
  };

export const handler = lambdaEntry((platform) => createHandler(compose(platform, { queue: sqsQueue(platform.config) })));
