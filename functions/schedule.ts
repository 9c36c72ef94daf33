import type { ScheduledEvent } from 'aws-lambda';
import { sqsQueue } from '../shared/adapters/sqs.ts';
import { awsBucket, PresignedFileObjects } from '../shared/adapters/fileObjects.ts';
import { S3MultipartUploads, s3Client } from '../shared/adapters/s3Uploads.ts';
import { defaultProvider } from '../shared/adapters/lambdaCredentials.ts';
import { txtResolver } from '../shared/adapters/dnsTxt.ts';
import { cloudFrontHostnames } from '../shared/adapters/cloudfrontTenants.ts';
import { recheckPendingDomains, type DomainCheckPorts } from '../shared/domain/domains/domains.ts';
import { hostVerifiedDomains, type HostingPorts } from '../shared/domain/domains/hosting.ts';
import { finishDueCompletions, type CompletionSweepPorts } from '../shared/domain/files/completions.ts';
import { purgeDueFiles, revokeStaleUploads } from '../shared/domain/files/lifecycle.ts';
import { expireDueSecrets } from '../shared/domain/secrets/end.ts';
import type { SecretPorts } from '../shared/domain/secrets/ports.ts';
import type { RollupPorts } from '../shared/domain/usage/rollup.ts';
import { rollUpUsage } from '../shared/domain/usage/rollup.ts';
import type { WebhookPorts } from '../shared/domain/webhooks/ports.ts';
import { queueDueRetries } from '../shared/domain/webhooks/relay.ts';
import { secretLimits, webhookLimits } from '../shared/limits.ts';
import { lambdaEntry, type Adapters, type Platform } from '../shared/platform.ts';
import type { ScheduledTask } from '../shared/schedules.ts';
import { DynamoCounters } from '../shared/store/counters.ts';
import { DynamoDomainHosting } from '../shared/store/domainHosting.ts';
import { DynamoDomainStore } from '../shared/store/workspaceDomains.ts';
import { DynamoSecretStore } from '../shared/store/secrets.ts';
import { DynamoUsageReports } from '../shared/store/usageReports.ts';
import { DynamoRequestStore } from '../shared/store/requests.ts';
import { DynamoTierSource } from '../shared/store/tiers.ts';
import { DynamoWebhookStore } from '../shared/store/webhooks.ts';

/** The schedule's wiring: what its tasks read and write, and the queue they hand work to. */
export type ScheduleDeps = Platform &
  SecretPorts &
  RollupPorts &
  Pick<WebhookPorts, 'webhooks' | 'queue'> &
  Pick<Adapters, 'files'> &
  CompletionSweepPorts &
  DomainCheckPorts &
  HostingPorts & { domainHosting: DynamoDomainHosting };

export function compose(platform: Platform, adapters: Pick<Adapters, 'queue' | 'files' | 'uploads' | 'dns' | 'hosting'>): ScheduleDeps {
  const { db, config } = platform;
  return {
    ...platform,
    queue: adapters.queue,
    files: adapters.files,
    // Large uploads' completions (the multipart S3 client), the plans their size is held to, and file responses' links.
    uploads: adapters.uploads,
    tiers: new DynamoTierSource(db, config.TABLE_NAME),
    requests: new DynamoRequestStore(db, config.TABLE_NAME),
    dns: adapters.dns,
    hosting: adapters.hosting,
    domains: new DynamoDomainStore(db, config.TABLE_NAME),
    domainHosting: new DynamoDomainHosting(db, config.TABLE_NAME),
    // No host is served from here: nothing to forget.
    hostsChanged: () => {},
    secrets: new DynamoSecretStore(db, config.TABLE_NAME, secretLimits.tombstoneSeconds),
    counters: new DynamoCounters(db, config.TABLE_NAME),
    usageReports: new DynamoUsageReports(db, config.TABLE_NAME),
    webhooks: new DynamoWebhookStore(db, config.TABLE_NAME, webhookLimits.deliveryLogSeconds),
  };
}

/** What each scheduled task does; `shared/schedules.ts` says when. */
const tasks: Record<ScheduledTask, (deps: ScheduleDeps) => Promise<number>> = {
  'expire-secrets': (deps) => expireDueSecrets(deps),
  'rollup-usage': (deps) => rollUpUsage(deps),
  // The retries SQS cannot delay, handed to the work queue when due.
  'sweep-webhooks': (deps) => queueDueRetries(deps),
  'purge-files': (deps) => purgeDueFiles(deps),
  'revoke-stale-uploads': (deps) => revokeStaleUploads(deps),
  'complete-uploads': (deps) => finishDueCompletions(deps),
  'check-domains': async (deps) => (await recheckPendingDomains(deps)).checked,
  'host-domains': async (deps) => (await hostVerifiedDomains(deps)).steps,
};

export type TaskEvent = ScheduledEvent<{ task: ScheduledTask }>;

export interface TaskResult {
  task: ScheduledTask;
  processed: number;
}

export const createHandler =
  (deps: ScheduleDeps) =>
  async (event: TaskEvent): Promise<TaskResult> => {
    const task = event.detail?.task;
    if (!task || !Object.hasOwn(tasks, task)) throw new Error(`unknown scheduled task: ${String(task)}`);
    try {
      const processed = await tasks[task](deps);
      deps.logger.info('scheduled task done', { task, processed });
      return { task, processed };
    } finally {
      // What the task counted (custom hostnames given up, say) is published with the invocation.
      deps.metrics.flush();
    }
  };

// Hands due retries to the work queue, deletes the objects of burned files when due, completes large uploads, checks pending
// domains' TXT records, and serves verified ones as distribution tenants (the one function that may).
export const handler = lambdaEntry((platform) => {
  const { config } = platform;
  const bucket = awsBucket(config, defaultProvider());
  return createHandler(
    compose(platform, {
      queue: sqsQueue(config),
      files: new PresignedFileObjects(bucket),
      uploads: new S3MultipartUploads(s3Client(bucket), bucket.bucket),
      dns: txtResolver(config.DNS_SERVERS),
      hosting: cloudFrontHostnames({
        distributionId: config.CUSTOM_HOSTNAMES_DISTRIBUTION_ID,
        connectionGroupId: config.CUSTOM_HOSTNAMES_CONNECTION_GROUP_ID,
        routingEndpoint: config.CUSTOM_HOSTNAMES_TARGET,
      }),
    }),
  );
});
