import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { systemClock, type Clock } from './clock.ts';
import { loadConfig, type Config } from './config.ts';
import type { SecretStore } from './domain/secrets/ports.ts';
import type { RateCounter } from './http/rateLimit.ts';
import { secretLimits, webhookLimits, type RateLimits } from './limits.ts';
import { createLogger, type AppLogger } from './logger.ts';
import { CountingMetrics, PowertoolsMetrics, type AppMetrics } from './metrics.ts';
import { createDocumentClient } from './store/client.ts';
import { DynamoRateCounter } from './store/rateLimits.ts';
import { DynamoSecretStore } from './store/secrets.ts';
import type { Mailer } from './adapters/mailer.ts';
import type { Queue } from './adapters/queue.ts';
import { noSealer } from './adapters/sealer.ts';
import { withOutboxNotices } from './domain/secrets/outboxNotices.ts';
import type { SecretSealer, WebhookPorts, WebhookStore, WebhookTransport } from './domain/webhooks/ports.ts';
import { sendWork } from './domain/webhooks/work.ts';
import { DynamoWebhookStore } from './store/webhooks.ts';
import type { AccountPorts } from './domain/accounts/ports.ts';
import { AccessTokens } from './domain/accounts/tokens.ts';
import { DynamoApiKeyStore } from './store/apiKeys.ts';
import { DynamoSessionStore } from './store/sessions.ts';
import { DynamoSignInCodeStore } from './store/signIn.ts';
import { DynamoSigningKeyStore } from './store/signingKeys.ts';
import { DynamoSsoPolicy } from './store/ssoPolicy.ts';
import { DynamoUserStore } from './store/users.ts';
import { DynamoCounters } from './store/counters.ts';
import type { Counters } from './domain/counters.ts';
import type { CallCounter, ProductEventStore, UsageReportStore } from './domain/usage/ports.ts';
import { DynamoCallCounter } from './store/usage.ts';
import { DynamoUsageReports } from './store/usageReports.ts';
import { DynamoProductEventStore } from './store/productEvents.ts';

/** Everything a function needs, built once per Lambda instance (or once by the local runtime). */
export interface Deps extends AccountPorts {
  config: Config;
  clock: Clock;
  logger: AppLogger;
  metrics: AppMetrics;
  secrets: SecretStore;
  rateCounter: RateCounter;
  rateLimits: RateLimits;
  accessTokens: AccessTokens;
  counters: Counters;
  calls: CallCounter;
  usageReports: UsageReportStore;
  productEvents: ProductEventStore;
  webhooks: WebhookStore;
  queue: Queue;
  sealer: SecretSealer;
  transport: WebhookTransport;
}

export interface DepsOverrides {
  clock?: Clock;
  rateLimits?: RateLimits;
  logger?: AppLogger;
  /** In-memory counts instead of CloudWatch's embedded metric format on stdout. */
  metrics?: AppMetrics;
  /** The local outbox replaces SES. */
  mailer?: Mailer;
  /** The in-process queue locally; SQS (`sqsQueue`) in the functions that send work. */
  queue?: Queue;
  /** Seals webhook signing secrets: KMS in the functions that need it, a local key locally. */
  sealer?: SecretSealer;
  /** How deliveries resolve and reach receivers (the bench and tests point it at their own DNS). */
  transport?: WebhookTransport;
  /** Sees the DynamoDB client before any store uses it (the claim bench meters requests here). */
  instrumentDynamo?: (client: DynamoDBDocumentClient) => void;
}

/** The real wiring, used by Lambda (from its environment) and by the local runtime alike. */
export function buildDeps(config: Config = loadConfig(), overrides: DepsOverrides = {}): Deps {
  const db = createDocumentClient({ region: config.REGION, endpoint: config.DYNAMODB_ENDPOINT });
  overrides.instrumentDynamo?.(db);
  const clock = overrides.clock ?? systemClock;
  const signingKeys = new DynamoSigningKeyStore(db, config.TABLE_NAME);
  const logger = overrides.logger ?? createLogger(config);
  // Only the functions that send work bring a queue (and the SQS client's code in their bundle).
  const queue = overrides.queue ?? noQueue;
  const secrets = withOutboxNotices(
    new DynamoSecretStore(db, config.TABLE_NAME, secretLimits.tombstoneSeconds),
    (secretId) => sendWork(queue, { kind: 'relay', secret_id: secretId }),
    logger,
  );
  return {
    config,
    clock,
    logger,
    metrics: overrides.metrics ?? (config.HUSHLINK_MODE === 'local' ? new CountingMetrics() : new PowertoolsMetrics()),
    secrets,
    rateCounter: new DynamoRateCounter(db, config.TABLE_NAME),
    rateLimits: overrides.rateLimits ?? config.rateLimits,
    users: new DynamoUserStore(db, config.TABLE_NAME),
    sessions: new DynamoSessionStore(db, config.TABLE_NAME),
    apiKeys: new DynamoApiKeyStore(db, config.TABLE_NAME),
    signInCodes: new DynamoSignInCodeStore(db, config.TABLE_NAME),
    signingKeys,
    ssoPolicy: new DynamoSsoPolicy(db, config.TABLE_NAME),
    // Only the functions that send mail bring a mailer (and the SES client's code in their bundle).
    mailer: overrides.mailer ?? noMailer,
    accessTokens: new AccessTokens(signingKeys, clock, config.WEB_ORIGIN),
    counters: new DynamoCounters(db, config.TABLE_NAME),
    calls: new DynamoCallCounter(db, config.TABLE_NAME),
    usageReports: new DynamoUsageReports(db, config.TABLE_NAME),
    productEvents: new DynamoProductEventStore(db, config.TABLE_NAME),
    webhooks: new DynamoWebhookStore(db, config.TABLE_NAME, webhookLimits.deliveryLogSeconds),
    queue,
    sealer: overrides.sealer ?? noSealer,
    // Only the webhook functions bring one (and the address checks' code in their bundle).
    transport: overrides.transport ?? noTransport,
  };
}

/** What the webhook domain needs: the deps, and whether http to loopback receivers is allowed. */
export const webhookPorts = (deps: Deps): WebhookPorts => ({ ...deps, local: deps.config.HUSHLINK_MODE === 'local' });

const noTransport: WebhookTransport = {
  resolver: {
    resolve4: () => Promise.reject(new Error('this function was built without a webhook transport')),
    resolve6: () => Promise.reject(new Error('this function was built without a webhook transport')),
  },
  post: () => Promise.reject(new Error('this function was built without a webhook transport')),
};

const noQueue: Queue = {
  send: () => Promise.reject(new Error('this function was built without a work queue')),
};

const noMailer: Mailer = {
  send: () => Promise.reject(new Error('this function was built without a mailer')),
};

/**
 * A Lambda entry point: builds the dependencies from the environment on first use, so
 * importing a function module (as the local runtime does) creates no clients. `extra` adds
 * what only this function needs (the account function's SES mailer).
 */
export function lambdaEntry<E, C, R>(
  create: (deps: Deps) => (event: E, context: C) => Promise<R>,
  extra: (config: Config) => DepsOverrides = () => ({}),
) {
  let handler: ((event: E, context: C) => Promise<R>) | undefined;
  return (event: E, context: C): Promise<R> => {
    if (!handler) {
      const config = loadConfig();
      handler = create(buildDeps(config, extra(config)));
    }
    return handler(event, context);
  };
}
