import type { ChatAppSource } from './domain/chat/app.ts';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { TxtResolver } from './domain/domains/ports.ts';
import type { Mailer } from './domain/mail.ts';
import type { Queue } from './domain/queue.ts';
import { systemClock, type Clock } from './clock.ts';
import { loadConfig, type Config } from './config.ts';
import type { SecretSealer, WebhookTransport } from './domain/webhooks/ports.ts';
import type { FileObjects, MultipartUploads } from './domain/files/ports.ts';
import { createLogger, type AppLogger } from './logger.ts';
import { CountingMetrics, PowertoolsMetrics, type AppMetrics } from './metrics.ts';
import { createDocumentClient } from './store/client.ts';
import type { PaymentProvider } from './domain/billing/ports.ts';
import type { HostnameHosting } from './domain/domains/ports.ts';
import type { IssuerDiscovery } from './domain/sso/issuer.ts';
import type { WithinDeadline } from './deadline.ts';

/**
 * What every function has, whatever it does: its settings, time, logs, metrics and the table.
 * Each function adds to it only the stores and adapters its own operations use (its
 * `compose` in `functions/<name>.ts`), so no bundle carries another function's clients.
 */
export interface Platform {
  config: Config;
  clock: Clock;
  logger: AppLogger;
  metrics: AppMetrics;
  db: DynamoDBDocumentClient;
}

export interface PlatformOverrides {
  clock?: Clock;
  logger?: AppLogger;
  /** In-memory counts instead of CloudWatch's embedded metric format on stdout. */
  metrics?: AppMetrics;
  /** One client shared by every function of the local runtime. */
  db?: DynamoDBDocumentClient;
}

export function createPlatform(config: Config, overrides: PlatformOverrides = {}): Platform {
  return {
    config,
    clock: overrides.clock ?? systemClock,
    logger: overrides.logger ?? createLogger(config),
    metrics: overrides.metrics ?? (config.HUSHLINK_MODE === 'local' ? new CountingMetrics() : new PowertoolsMetrics()),
    db: overrides.db ?? createDocumentClient({ region: config.REGION, endpoint: config.DYNAMODB_ENDPOINT }),
  };
}

/**
 * The adapters that differ between AWS and the local runtime. A function's `compose` names
 * the ones it uses (`Pick<Adapters, 'queue'>`); its Lambda entry builds those from AWS SDK
 * clients, and the local runtime hands it its own (outbox, in-process queue, local key).
 */
export interface Adapters {
  mailer: Mailer;
  queue: Queue;
  sealer: SecretSealer;
  transport: WebhookTransport;
  /** The files bucket by presigned requests: download URLs, deletes. */
  files: FileObjects;
  /** The files bucket's multipart uploads (the files function's S3 client). */
  uploads: MultipartUploads;
  /** The payment provider (Stripe; the local emulator in `npm start` and the tests), as each request asks it: bounded by its deadline. */
  paymentProvider: WithinDeadline<PaymentProvider>;
  /** TXT lookups of custom domains' challenges (`DNS_SERVERS`; the local DNS server in `npm start` and the tests). */
  dns: TxtResolver;
  /** Verified custom hostnames served (CloudFront distribution tenants; a stand-in in `npm start` and the tests). */
  hosting: HostnameHosting;
  /** The chat app (Slack; the local emulator in `npm start` and the tests), or none on a deployment without it. */
  chatApp: ChatAppSource;
  /** Seals chat bot tokens for their team (KMS context `chat_team`). */
  chatSealer: SecretSealer;
  /** Seals workspaces' SSO client secrets for their workspace (KMS context `sso_workspace`). */
  ssoSealer: SecretSealer;
  /** Identity providers' discovery documents, read when a workspace's SSO is saved (http to loopback in local mode). */
  issuerDiscovery: IssuerDiscovery;
}

/**
 * A Lambda entry point: builds the platform from the environment and the function on first
 * use, so importing a function module (as the local runtime does) creates no clients.
 */
export function lambdaEntry<E, C, R>(create: (platform: Platform) => (event: E, context: C) => Promise<R>) {
  let handler: ((event: E, context: C) => Promise<R>) | undefined;
  return (event: E, context: C): Promise<R> => {
    handler ??= create(createPlatform(loadConfig()));
    return handler(event, context);
  };
}
