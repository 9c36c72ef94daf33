import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { sqsQueue } from '../shared/adapters/sqs.ts';
import type { WebhookPorts } from '../shared/domain/webhooks/ports.ts';
import { relaySecretChanges, type SecretChange } from '../shared/domain/webhooks/relay.ts';
import { deliverMessage, sendWork } from '../shared/domain/webhooks/work.ts';
import { secretLimits, webhookLimits } from '../shared/limits.ts';
import { lambdaEntry, type Adapters, type Platform } from '../shared/platform.ts';
import { projectSecretWrite } from '../shared/domain/relay/projections.ts';
import { secretWriteOf, testDeliveryOf } from '../shared/store/relayRecords.ts';
import { onFileEnded, type FileLifecyclePorts } from '../shared/domain/files/lifecycle.ts';
import { DynamoSecretStore } from '../shared/store/secrets.ts';
import { awsBucket, PresignedFileObjects } from '../shared/adapters/fileObjects.ts';
import { defaultProvider } from '../shared/adapters/lambdaCredentials.ts';
import { DynamoLiveUsageLedger } from '../shared/store/usage.ts';
import type { LiveUsageLedger, UsageChange } from '../shared/domain/usage/live.ts';
import type { ReceiptStore } from '../shared/domain/secrets/receipts.ts';
import { DynamoReceiptStore } from '../shared/store/receipts.ts';
import { deviceFamily } from '../shared/adapters/userAgent.ts';
import { DynamoWebhookStore } from '../shared/store/webhooks.ts';

/**
 * The relay's wiring: the owners' endpoints and their deliveries, the queue for attempts, the
 * owners' live usage counters, and the receipts of their secrets' views.
 */
export type RelayDeps = Platform &
  Pick<WebhookPorts, 'webhooks' | 'queue'> & { usage: LiveUsageLedger; receipts: ReceiptStore } & FileLifecyclePorts;

export function compose(platform: Platform, adapters: Pick<Adapters, 'queue' | 'files'>): RelayDeps {
  const { db, config } = platform;
  return {
    ...platform,
    queue: adapters.queue,
    files: adapters.files,
    secrets: new DynamoSecretStore(db, config.TABLE_NAME, secretLimits.tombstoneSeconds),
    webhooks: new DynamoWebhookStore(db, config.TABLE_NAME, webhookLimits.deliveryLogSeconds),
    usage: new DynamoLiveUsageLedger(db, config.TABLE_NAME),
    receipts: new DynamoReceiptStore(db, config.TABLE_NAME),
  };
}

/**
 * The table's stream consumer (the event source mapping hands over only what `relayFilters`
 * matches): turns the events that writes added to owned secrets into deliveries and queues
 * their first attempts, queues the first attempt of each test delivery written, and moves the
 * owners' live usage counters as secrets become theirs and end, writes a receipt for each
 * view of an owned secret, and queues a chat notice for each view or expiry of a subscribed
 * secret (sent once per event by the worker, whatever the stream retries). A record that fails is
 * reported as the batch's failure, so Lambda retries from it (each step is idempotent:
 * delivery ids come from the event and the endpoint, an attempt is claimed before it is made,
 * a usage change is applied once by its mark), and after its retries the batch's description
 * goes to the dead letters.
 */
export const createHandler =
  (deps: RelayDeps) =>
  async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
    const changes: Array<{ index: number; change: SecretChange }> = [];
    const usage: Array<{ index: number; change: UsageChange }> = [];
    // Work messages: test deliveries' first attempts and chat notices.
    const queued: Array<Promise<unknown>> = [];
    const queuedIndexes: number[] = [];
    const receipts: Array<Promise<unknown>> = [];
    const receiptIndexes: number[] = [];
    const fileEnds: Array<Promise<unknown>> = [];
    const fileEndIndexes: number[] = [];
    event.Records.forEach((record, index) => {
      // The store reads the write off the record; the domain says what it calls for.
      const { change, usage: usageChange, receipts: viewed, fileEnd, notices } = projectSecretWrite(secretWriteOf(record), deviceFamily);
      if (change) changes.push({ index, change });
      if (usageChange) usage.push({ index, change: usageChange });
      for (const { receipt, expiresAt } of viewed) {
        receipts.push(deps.receipts.put(receipt, expiresAt));
        receiptIndexes.push(index);
      }
      if (fileEnd) {
        fileEnds.push(onFileEnded(fileEnd, deps));
        fileEndIndexes.push(index);
      }
      const test = testDeliveryOf(record);
      if (test) {
        queuedIndexes.push(index);
        queued.push(sendWork(deps.queue, deliverMessage(test, 1)));
      }
      for (const notice of notices) {
        queuedIndexes.push(index);
        queued.push(sendWork(deps.queue, notice));
      }
    });
    const failures: Array<{ index: number; error: unknown }> = [];
    (
      await relaySecretChanges(
        changes.map(({ change }) => change),
        deps,
      )
    ).forEach((outcome, i) => {
      if (outcome.status === 'rejected') failures.push({ index: changes[i]!.index, error: outcome.reason });
    });
    // Queued again when a batch is retried: the worker claims each before acting, so sends once.
    (await Promise.allSettled(queued)).forEach((outcome, i) => {
      if (outcome.status === 'rejected') failures.push({ index: queuedIndexes[i]!, error: outcome.reason });
    });
    // A receipt is keyed by its view's event: writing it again is writing the same item.
    (await Promise.allSettled(receipts)).forEach((outcome, i) => {
      if (outcome.status === 'rejected') failures.push({ index: receiptIndexes[i]!, error: outcome.reason });
    });
    // Deleting an object (or aborting an upload) again is harmless: a retried record is too.
    (await Promise.allSettled(fileEnds)).forEach((outcome, i) => {
      if (outcome.status === 'rejected') failures.push({ index: fileEndIndexes[i]!, error: outcome.reason });
    });
    if (usage.length > 0)
      await deps.usage
        .apply(
          usage.map(({ change }) => change),
          deps.clock.now(),
        )
        .catch((error: unknown) => {
          // Applied per owner, each at most once: retrying from the first usage record is safe.
          failures.push({ index: usage[0]!.index, error });
        });
    deps.metrics.flush();
    // Records are in order: Lambda retries from the first one that failed.
    const failed = failures.sort((a, b) => a.index - b.index)[0];
    if (!failed) return { batchItemFailures: [] };
    const error = failed.error as Error;
    deps.logger.error('relay failed', { error: error.name, error_message: error.message });
    return { batchItemFailures: [{ itemIdentifier: event.Records[failed.index]!.dynamodb?.SequenceNumber ?? '' }] };
  };

export const handler = lambdaEntry((platform) =>
  createHandler(
    compose(platform, { queue: sqsQueue(platform.config), files: new PresignedFileObjects(awsBucket(platform.config, defaultProvider())) }),
  ),
);
