import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as accountFunction from '../functions/account.ts';
import * as scheduleFunction from '../functions/schedule.ts';
import * as deliveriesFunction from '../functions/deliveries.ts';
import * as relayFunction from '../functions/relay.ts';
import * as openapiFunction from '../functions/openapi.ts';
import * as secretsFunction from '../functions/secrets.ts';
import * as gateFunction from '../functions/gate.ts';
import * as requestsFunction from '../functions/requests.ts';
import * as filesFunction from '../functions/files.ts';
import { PresignedFileObjects, type BucketLocation } from '../shared/adapters/fileObjects.ts';
import { S3MultipartUploads, s3Client } from '../shared/adapters/s3Uploads.ts';
import * as webhooksFunction from '../functions/webhooks.ts';
import * as workspacesFunction from '../functions/workspaces.ts';
import * as billingFunction from '../functions/billing.ts';
import * as billingWebhookFunction from '../functions/billingWebhook.ts';
import * as scimFunction from '../functions/scim.ts';
import * as chatFunction from '../functions/chat.ts';
import { chatAppSource, chatSettings } from '../shared/adapters/chatSecrets.ts';
import { startSlackEmulator, type LocalSlack } from './slack/emulator.ts';
import { startOidcProvider, type LocalOidc } from './oidc/provider.ts';
import { LazyStripeProvider, stripeSettings } from '../shared/adapters/stripeSecrets.ts';
import { AdjustableClock, type Clock } from '../shared/clock.ts';
import { loadConfig, type Config } from '../shared/config.ts';
import { HttpError, problemBody } from '../shared/http/errors.ts';
import { NotFound } from '../shared/domain/refusals.ts';
import { commonHeaders } from '../shared/http/middleware.ts';
import type { GroupHandler } from '../shared/http/group.ts';
import { createPlatform, type Adapters, type Platform } from '../shared/platform.ts';
import { createDocumentClient } from '../shared/store/client.ts';
import { localStores, type LocalStores } from './stores.ts';
import type { RateLimits } from '../shared/limits.ts';
import type { AppLogger } from '../shared/logger.ts';
import type { Group } from '../shared/routes.ts';
import { ensureTable, startDynamoLocal, type LocalDynamo } from './dynamodb.ts';
import { gatewayListener } from './gateway.ts';
import { txtResolver, type TxtResolverOptions } from '../shared/adapters/dnsTxt.ts';
import { checkHost, HostDirectory, isOwnHost } from '../shared/domain/domains/hosts.ts';
import { DynamoHostClaims } from '../shared/store/hostClaims.ts';
import { devRoutes } from './devRoutes.ts';
import { startLocalDns, type LocalDns } from './dns.ts';
import { LocalHostnames } from './hostnames.ts';
import { LocalOutbox, type OutboxEntry } from './mail.ts';
import { InProcessQueue } from './queue.ts';
import { LocalScheduler } from './scheduler.ts';
import { LocalStream } from './streams.ts';
import { relayFilters } from '../shared/store/relayRecords.ts';
import { webhookLimits } from '../shared/limits.ts';
import { startS3Local, type LocalS3 } from './s3.ts';
import { startStripeEmulator, type LocalStripe } from './stripe/emulator.ts';
import { serveWeb } from './web.ts';
import { buildWeb } from '../web/build.ts';
import { CountingMetrics } from '../shared/metrics.ts';
import { LocalSealer } from '../shared/adapters/sealer.ts';
import { oidcDiscovery } from '../shared/adapters/oidcDiscovery.ts';
import type { IssuerDiscovery } from '../shared/domain/sso/issuer.ts';
import { systemTransport } from '../shared/webhooks/transport.ts';

/** What each function of the runtime was wired with (its `compose`), as its Lambda would be. */
export interface LocalFunctions {
  secrets: secretsFunction.SecretsDeps;
  files: filesFunction.FilesDeps;
  gate: gateFunction.GateDeps;
  requests: requestsFunction.RequestsDeps;
  account: accountFunction.AccountDeps;
  webhooks: webhooksFunction.WebhooksDeps;
  workspaces: workspacesFunction.WorkspacesDeps;
  billing: billingFunction.BillingDeps;
  billingWebhook: billingWebhookFunction.BillingWebhookDeps;
  scim: scimFunction.ScimDeps;
  chat: chatFunction.ChatDeps;
  openapi: openapiFunction.OpenApiDeps;
  deliveries: deliveriesFunction.DeliveriesDeps;
  relay: relayFunction.RelayDeps;
  schedule: scheduleFunction.ScheduleDeps;
}

/** Each function's own wiring given the local adapters, as its Lambda entry does with AWS's. */
function composeFunctions(platform: Platform, adapters: Adapters): LocalFunctions {
  return {
    secrets: secretsFunction.compose(platform, adapters),
    files: filesFunction.compose(platform, adapters),
    gate: gateFunction.compose(platform, adapters),
    requests: requestsFunction.compose(platform, adapters),
    account: accountFunction.compose(platform, adapters),
    webhooks: webhooksFunction.compose(platform, adapters),
    workspaces: workspacesFunction.compose(platform, adapters),
    billing: billingFunction.compose(platform, adapters),
    billingWebhook: billingWebhookFunction.compose(platform, adapters),
    scim: scimFunction.compose(platform),
    chat: chatFunction.compose(platform, { chatApp: adapters.chatApp, tokenSealer: adapters.chatSealer }),
    openapi: openapiFunction.compose(platform),
    deliveries: deliveriesFunction.compose(platform, adapters),
    relay: relayFunction.compose(platform, adapters),
    schedule: scheduleFunction.compose(platform, adapters),
  };
}

export interface RuntimeOptions {
  /** 0 picks a free port. */
  port?: number;
  host?: string;
  /** Persist DynamoDB, S3 and mail under this folder; without it everything is in memory. */
  dataDir?: string;
  /** Run the queue poller and the schedule timers in the background (`npm start`). */
  background?: boolean;
  /**
   * The operator's settings, by the names of `shared/config.ts` (`npm start` passes
   * `process.env`); what the runtime decides itself (mode, table endpoint) is not taken from it.
   */
  env?: Record<string, string | undefined>;
  /** Overrides `HUSHLINK_RATE_LIMITS` and the defaults (tests and benches). */
  rateLimits?: RateLimits;
  /** false: a deployment without the chat app (no SLACK_CLIENT_ID): its routes answer 403 chat_not_configured. The emulator still runs. */
  chat?: boolean;
  logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT';
  logger?: AppLogger;
  announceMail?: (entry: OutboxEntry) => void;
  /** Sees the DynamoDB client before any store uses it (the benches meter requests here). */
  instrumentDynamo?: (client: DynamoDBDocumentClient) => void;
  /** How webhook deliveries resolve and post (tests and the bench bring their own DNS). */
  webhookTransport?: Adapters['transport'];
  /** The TXT lookups' bounds (tests shorten them, so a DNS server that never answers costs milliseconds). */
  dnsLookup?: TxtResolverOptions;
  /** How a workspace's SSO issuer is checked at save (tests whose issuers are made up bring a stand-in); the real reading otherwise. */
  issuerDiscovery?: IssuerDiscovery;
  /**
   * false: no local identity provider (`runtime.oidc` then throws on use). `npm start` always runs
   * one; tests start it only where they sign in through it, as its import and keys cost a second.
   */
  identityProvider?: boolean;
  /**
   * Aborting it during start-up stops whatever was already started (DynamoDB Local's Java
   * process, s3rver) and makes `startRuntime` reject; after start-up, call `stop()`.
   */
  signal?: AbortSignal;
  /**
   * Another runtime's DynamoDB Local, to run a second instance of the functions on the same
   * table (as two Lambda instances share one); it is left running at `stop()`.
   */
  dynamo?: LocalDynamo;
  /** Another runtime's clock, so two instances move through time together. */
  clock?: AdjustableClock;
}

export interface Runtime {
  url: string;
  port: number;
  clock: AdjustableClock;
  /** The settings every function of this runtime runs with. */
  config: Config;
  /** The table's stores, for tests and benches to look at what the functions wrote. */
  stores: LocalStores;
  /** Each function's wiring (tests reach into a function's own store or limiter here). */
  functions: LocalFunctions;
  outbox: LocalOutbox;
  /** What CloudWatch would receive in AWS, counted in memory. */
  metrics: CountingMetrics;
  queue: InProcessQueue;
  /** The table's stream, read for the webhook relay as its event source mapping does. */
  stream: LocalStream;
  scheduler: LocalScheduler;
  /** Relays and delivers everything pending now (stream, then queue, until both are empty). */
  drainWork(): Promise<void>;
  dynamo: LocalDynamo;
  s3: LocalS3;
  /**
   * The payment provider's emulator (local/stripe/): Stripe's REST subset at `url` for the SDK
   * (`apiKey`), its checkout and portal pages, events signed with `signingSecret` and POSTed to
   * `/v1/billing/webhook`, and the test controls (`completeCheckout`, `requests()`, …).
   */
  stripe: LocalStripe;
  /** Slack's Web API emulator (local/slack/): installs (`authorize`), DMs (`messages()`), every call (`calls()`), `revokeTeam`. */
  slack: LocalSlack;
  /**
   * An OpenID Provider for single sign-on (local/oidc/, oidc-provider): its `issuer` is what a
   * workspace's SSO names; clients by `registerClient`, people by any address on its login page.
   */
  oidc: LocalOidc;
  /** The DNS server custom domains' TXT records are looked up at (local/dns.ts): `setRecords`, `fail`, `queries()`. */
  dns: LocalDns;
  /** The stand-in for CloudFront's tenants serving verified hostnames (local/hostnames.ts): `list()`, `calls()`, `answer`. */
  hostnames: LocalHostnames;
  stop(): Promise<void>;
}

export const tableName = 'hushlink';
export const filesBucket = 'hushlink-files';

/**
 * The whole service on one machine: DynamoDB Local, s3rver, the mail outbox, the queue, the
 * scheduler and the API gateway, each function wired by its own `compose`, as in Lambda.
 *
 * The port is bound first and answers every request from then on: 503 `starting` (with
 * `retry-after: 1`) until everything behind it is up, so a script that starts the service and
 * calls it at once gets an answer instead of a hung connection.
 */
export async function startRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  const host = options.host ?? '127.0.0.1';
  const { signal } = options;
  signal?.throwIfAborted();
  let listener: RequestListener = startingListener;
  const server = createServer((request, response) => listener(request, response));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host === '127.0.0.1' || host === '0.0.0.0' ? 'localhost' : host}:${port}`;

  const started: Array<{ stop(): Promise<void> }> = [];
  // Every emulator start, so a failed start-up waits for the others to finish starting before
  // it stops them (one failing first must not leave the other running unseen).
  const starting: Array<Promise<unknown>> = [];
  const start = <T extends { stop(): Promise<void> }>(service: Promise<T>): Promise<T> => {
    const tracked = service.then((value) => (started.push(value), value));
    starting.push(tracked);
    return tracked;
  };
  const stopStarted = async () => {
    await Promise.allSettled(starting);
    await Promise.all(started.map((service) => service.stop()));
  };
  try {
    // The settings are checked before any emulator starts, so a typo fails in a second.
    const config = localConfig(options, url);
    const dataDir = options.dataDir;
    // S3 too keeps this time: presigned URLs expire by it.
    const clock = options.clock ?? new AdjustableClock();
    // The identity provider for single sign-on (local/oidc/) starts beside the rest (its keys take a moment).
    const oidcStarting =
      options.identityProvider === false
        ? Promise.resolve(noIdentityProvider)
        : start(startOidcProvider().then((provider) => Object.assign(provider, { stop: () => provider.close() })));
    oidcStarting.catch(() => {}); // awaited below; a failure before then still stops what started
    const [dynamo, s3] = await Promise.all([
      options.dynamo ??
        start(
          startDynamoLocal({
            tableName: config.TABLE_NAME,
            ...(dataDir ? { dataDir: join(dataDir, 'ddb') } : {}),
            ...(signal ? { signal } : {}),
          }),
        ),
      // Its secret is this machine's own, kept beside the data (a published key would let anyone sign).
      start(
        startS3Local({
          bucket: filesBucket,
          webOrigin: config.WEB_ORIGIN,
          clock,
          ...(dataDir ? { dataDir: join(dataDir, 's3'), secretAccessKey: localSecret(join(dataDir, 's3-secret-access-key')) } : {}),
        }),
      ),
    ]);
    signal?.throwIfAborted();
    if (options.dynamo) await ensureTable(dynamo.endpoint, config.TABLE_NAME);

    // The payment provider's emulator: the service's SDK calls it, and it posts its signed events
    // to the service's webhook route on this runtime's own port (it answers once start-up ends).
    const stripe = await start(
      startStripeEmulator({ clock, webhookUrl: `${url}/v1/billing/webhook`, ...(dataDir ? { dataDir: join(dataDir, 'stripe') } : {}) }),
    );
    signal?.throwIfAborted();

    // DNS for custom domains' TXT records: names are published here (`/_dev/dns`, runtime.dns).
    const dns = await start(startLocalDns());
    signal?.throwIfAborted();

    // Slack's Web API (local/slack/): installs, DMs; its calls listed at `/_dev/chat`. The app's
    // signing secret is this machine's own (kept beside the data), so a person can sign a command.
    const slack = await start(startSlackEmulator({ clock }).then((emulator) => Object.assign(emulator, { stop: () => emulator.close() })));
    signal?.throwIfAborted();
    const oidc = await oidcStarting;
    signal?.throwIfAborted();
    const slackSigningSecret = dataDir ? localSecret(join(dataDir, 'slack-signing-secret')) : randomBytes(16).toString('hex');

    const runConfig: Config = {
      ...config,
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      // The operator's DNS_SERVERS when set (a resolver of theirs on loopback, say); else the local one.
      DNS_SERVERS: config.DNS_SERVERS && config.DNS_SERVERS.length > 0 ? config.DNS_SERVERS : [dns.server],
      // The SDK talks to the emulator, with its fixed local key and signing secret.
      STRIPE_API_URL: stripe.url,
      STRIPE_SECRET_KEY: stripe.apiKey,
      STRIPE_WEBHOOK_SECRET: stripe.signingSecret,
      ...(options.chat === false
        ? {}
        : {
            SLACK_API_URL: slack.url,
            SLACK_CLIENT_ID: slack.clientId,
            SLACK_CLIENT_SECRET: slack.clientSecret,
            SLACK_SIGNING_SECRET: slackSigningSecret,
          }),
      ...(options.rateLimits ? { rateLimits: options.rateLimits } : {}),
    };
    const outbox = new LocalOutbox(clock, {
      from: config.MAIL_FROM,
      ...(dataDir ? { dataDir: join(dataDir, 'mail') } : {}),
      ...(options.announceMail ? { announce: options.announceMail } : {}),
    });
    const metrics = new CountingMetrics();
    const queue = new InProcessQueue({ name: 'hushlink-work', clock });
    // One client and one clock for every function; each function builds its own stores on them.
    const db = createDocumentClient({ region: runConfig.REGION, endpoint: runConfig.DYNAMODB_ENDPOINT });
    options.instrumentDynamo?.(db);
    const platform = createPlatform(runConfig, { clock, metrics, db, ...(options.logger ? { logger: options.logger } : {}) });
    const hostnames = new LocalHostnames(clock, new URL(runConfig.WEB_ORIGIN).host);
    const adapters: Adapters = {
      mailer: outbox,
      queue,
      sealer: new LocalSealer(dataDir ? localSealingKey(join(dataDir, 'webhook-sealing.key')) : undefined),
      transport: options.webhookTransport ?? systemTransport(),
      ...localBucket(s3, clock),
      paymentProvider: new LazyStripeProvider(() => stripeSettings(runConfig), clock),
      dns: txtResolver(runConfig.DNS_SERVERS, options.dnsLookup),
      hosting: hostnames,
      chatApp: chatAppSource(() => chatSettings(runConfig)),
      chatSealer: new LocalSealer(dataDir ? localSealingKey(join(dataDir, 'webhook-sealing.key')) : undefined, 'chat_team'),
      ssoSealer: new LocalSealer(dataDir ? localSealingKey(join(dataDir, 'webhook-sealing.key')) : undefined, 'sso_workspace'),
      issuerDiscovery: options.issuerDiscovery ?? oidcDiscovery({ local: true }),
    };

    const functions = composeFunctions(platform, adapters);
    // The local edge serves the web client on a workspace's hostname while its claim is verified, as the API does (rule 5).
    const webHostDirectory = new HostDirectory(new DynamoHostClaims(db, runConfig.TABLE_NAME), clock);
    const webHosts = (host: string | undefined): true | Promise<boolean> =>
      host === undefined || isOwnHost(host, runConfig.WEB_ORIGIN, true)
        ? true
        : checkHost(host, runConfig.WEB_ORIGIN, true, webHostDirectory).then(
            () => true,
            (error: unknown) => {
              if (error instanceof NotFound) return false;
              throw error;
            },
          );
    queue.consume(deliveriesFunction.createHandler(functions.deliveries));
    const stream = new LocalStream({
      endpoint: dynamo.endpoint,
      tableName: runConfig.TABLE_NAME,
      filters: relayFilters,
      batchSize: webhookLimits.relayBatchSize,
      maxAttempts: webhookLimits.relayAttempts,
      ...(dataDir ? { checkpointFile: join(dataDir, 'stream-positions.json') } : {}),
    });
    stream.consume(relayFunction.createHandler(functions.relay));
    const scheduler = new LocalScheduler(scheduleFunction.createHandler(functions.schedule), clock, (task, error) =>
      platform.logger.error('scheduled task failed', { task, error: (error as Error).message }),
    );

    const web = await buildWeb();
    signal?.throwIfAborted();
    const handlers: Record<Group, GroupHandler> = {
      secrets: secretsFunction.createHandler(functions.secrets),
      files: filesFunction.createHandler(functions.files),
      gate: gateFunction.createHandler(functions.gate),
      requests: requestsFunction.createHandler(functions.requests),
      account: accountFunction.createHandler(functions.account),
      webhooks: webhooksFunction.createHandler(functions.webhooks),
      workspaces: workspacesFunction.createHandler(functions.workspaces),
      billing: billingFunction.createHandler(functions.billing),
      billingWebhook: billingWebhookFunction.createHandler(functions.billingWebhook),
      scim: scimFunction.createHandler(functions.scim),
      chat: chatFunction.createHandler(functions.chat),
      openapi: openapiFunction.createHandler(functions.openapi),
    };
    listener = gatewayListener({
      handlers,
      webOrigin: runConfig.WEB_ORIGIN,
      localRoutes: (request, response) =>
        devRoutes(request, response, { outbox, stripe, dns, hostnames, slack }) || serveWeb(web, request, response, s3.endpoint, webHosts),
    });

    if (options.background) {
      stream.start();
      queue.start();
      scheduler.start();
    }

    return {
      url,
      port,
      clock,
      config: runConfig,
      stores: localStores(platform),
      functions,
      metrics,
      outbox,
      queue,
      stream,
      scheduler,
      dynamo,
      s3,
      stripe,
      slack,
      oidc,
      dns,
      hostnames,
      async drainWork() {
        // A relay queues attempts; a failed attempt may queue a retry: until nothing moves.
        while ((await stream.drain()) + (await queue.drain()) > 0);
      },
      async stop() {
        queue.stop();
        await stream.stop();
        await scheduler.stop();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await stopStarted();
      },
    };
  } catch (error) {
    server.closeAllConnections();
    server.close();
    await stopStarted();
    throw error;
  }
}

/**
 * The settings of a local run: the operator's (`env`) where they apply locally, over local
 * defaults. The mode is always local, the table's endpoint is the emulator's, and the settings
 * that only mean something in AWS (the queue URL, KMS key, CloudFront's proof and tenant
 * distribution) are not read.
 */
function localConfig(options: RuntimeOptions, url: string): Config {
  const {
    QUEUE_URL: _queue,
    WEBHOOK_KEY_ID: _key,
    ORIGIN_VERIFY: _origin,
    DYNAMODB_ENDPOINT: _endpoint,
    CUSTOM_HOSTNAMES_DISTRIBUTION_ID: _distribution,
    CUSTOM_HOSTNAMES_CONNECTION_GROUP_ID: _connectionGroup,
    CUSTOM_HOSTNAMES_TARGET: _target,
    ...env
  } = options.env ?? {};
  return loadConfig({
    ...env,
    HUSHLINK_MODE: 'local',
    TABLE_NAME: env.TABLE_NAME || tableName,
    WEB_ORIGIN: env.WEB_ORIGIN || url,
    REGION: env.REGION || 'local',
    LOG_LEVEL: options.logLevel ?? (env.LOG_LEVEL || 'SILENT'),
  });
}

type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;

/** What the port answers until the runtime is ready: 503 `starting`, try again in a second. */
const startingListener: RequestListener = (request, response) => {
  request.resume();
  const requestId = randomBytes(12).toString('base64url');
  const error = new HttpError(503, 'starting', 'The service is starting; try again in a second.', { headers: { 'retry-after': '1' } });
  response.writeHead(503, {
    ...commonHeaders(requestId, undefined, ''),
    'content-type': 'application/problem+json',
    ...error.extras.headers,
  });
  response.end(JSON.stringify(problemBody(error, requestId)));
};

/** The files bucket of the local S3, as the functions reach it: the same adapters as in AWS, pointed at it. */
function localBucket(s3: LocalS3, clock: Clock): Pick<Adapters, 'files' | 'uploads'> {
  const location: BucketLocation = { bucket: s3.bucket, region: 'us-east-1', endpoint: s3.endpoint, credentials: s3.credentials };
  return { files: new PresignedFileObjects(location, clock), uploads: new S3MultipartUploads(s3Client(location), s3.bucket, clock) };
}

/** A secret of this machine (the chat app's signing secret, the local S3's key): 32 hex characters, made once, kept beside the local data. */
function localSecret(file: string): string {
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dirname(file), { recursive: true });
  const secret = randomBytes(16).toString('hex');
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

/** The local stand-in for the KMS key: made once, kept beside the local data. */
function localSealingKey(file: string): Buffer {
  if (existsSync(file)) return readFileSync(file);
  mkdirSync(dirname(file), { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, key, { mode: 0o600 });
  return key;
}

/** `runtime.oidc` of a runtime started without its identity provider: any use says how to get one. */
const noIdentityProvider = new Proxy({} as LocalOidc, {
  get(_, property) {
    // Symbols, `then` and `toJSON`: what inspecting or awaiting the runtime asks, not a use of the provider.
    if (typeof property === 'symbol' || property === 'then' || property === 'toJSON') return undefined;
    throw new Error(
      `runtime.oidc.${String(property)}: this runtime was started without its identity provider (startTestRuntime({ identityProvider: true }))`,
    );
  },
});
