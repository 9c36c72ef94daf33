import type { IncomingMessage, ServerResponse } from 'node:http';
import { listenOnLoopback, readBody } from '../loopbackServer.ts';
import Stripe from 'stripe';
import { systemClock, type Clock } from '../../shared/clock.ts';
import { handleApi, type RecordedRequest } from './api.ts';
import { StripeBilling } from './billing.ts';
import { handleControl, type StripeControls } from './controls.ts';
import { noSuch } from './errors.ts';
import type { PriceConfig, StripeEvent } from './objects.ts';
import { handlePage } from './pages.ts';
import { StripeStore } from './store.ts';
import { Webhooks } from './webhooks.ts';

/** The local account's fixed secret key: what the service's SDK must send. */
export const localStripeApiKey = 'sk_test_hushlink_local_emulator';
/** The local webhook endpoint's fixed signing secret. */
export const localStripeSigningSecret = 'whsec_hushlink_local_emulator';

/** What the emulator sells unless told otherwise: the service's default price ids. */
export const defaultStripePrices: readonly PriceConfig[] = [
  { id: 'price_pro_monthly', unit_amount: 1200, currency: 'usd', nickname: 'Hushlink Pro' },
  { id: 'price_team_seat_monthly', unit_amount: 800, currency: 'usd', nickname: 'Hushlink Team seat' },
];

export interface StripeEmulatorOptions {
  /** Where events are POSTed: the service's `/v1/billing/webhook`. */
  webhookUrl: string;
  /** Stripe's time: `created`, periods, and every signature's timestamp. */
  clock?: Clock;
  signingSecret?: string;
  apiKey?: string;
  prices?: readonly PriceConfig[];
  /** The API version answers and events are in; the SDK's pinned one by default. */
  apiVersion?: string;
  /** 0 or absent picks a free port. */
  port?: number;
  /** Keep the account here between runs; without it, everything is in memory. */
  dataDir?: string;
}

export interface LocalStripe extends StripeControls {
  /** `http://127.0.0.1:<port>`: the API under `/v1`, the pages, and `/_emulator/`. */
  url: string;
  host: string;
  port: number;
  apiKey: string;
  signingSecret: string;
  apiVersion: string;
  webhookUrl: string;
  /** Resolves once every event sent so far has been delivered (the API sends after answering). */
  settled(): Promise<void>;
  stop(): Promise<void>;
}

/** Requests with larger bodies are refused; the service's are a few hundred bytes. */

/**
 * The payment provider on this machine (issue 16, DESIGN.md §7 "Local emulators"): the subset
 * of Stripe's REST API the service calls, in Stripe's wire format (form-encoded parameters,
 * Stripe's objects and errors, the secret key, idempotency keys), so the official `stripe` SDK
 * talks to it through its `host`, `port` and `protocol` options; its checkout and portal pages;
 * signed events POSTed to the service; and test controls under `/_emulator/`. It answers only
 * to loopback host names, as `/_dev/*` does
 * (docs/adr/0101-npm-start-answers-at-once-reads-the-functions-settings-dev.md; the emulator's own:
 * docs/adr/0100-the-stripe-emulators-billing-pages-and-test-controls.md).
 */
export async function startStripeEmulator(options: StripeEmulatorOptions): Promise<LocalStripe> {
  const host = '127.0.0.1';
  const loopback = await listenOnLoopback(options.port);
  const { port } = loopback;
  const url = loopback.origin;
  const clock = options.clock ?? systemClock;
  const apiKey = options.apiKey ?? localStripeApiKey;
  const signingSecret = options.signingSecret ?? localStripeSigningSecret;
  const apiVersion = options.apiVersion ?? Stripe.API_VERSION;

  const store = new StripeStore(options.dataDir);
  const webhooks = new Webhooks(store, { clock, url: options.webhookUrl, signingSecret, apiVersion });
  const billing = new StripeBilling(store, webhooks, { clock, baseUrl: url, prices: options.prices ?? defaultStripePrices });
  const log: RecordedRequest[] = [];
  const faults = { pendingErrors: 0 };
  const delivered = async <T extends { events: readonly StripeEvent[] }>(made: T): Promise<T> => {
    await webhooks.send(made.events);
    return made;
  };
  const event = (id: string) => store.event(id) ?? throwing(noSuch('event', id, 'id'));

  const controls: StripeControls = {
    requests: () => [...log],
    clearRequests: () => void log.splice(0),
    events: () => [...webhooks.list()],
    completeCheckout: async (sessionId, completion = {}) => (await delivered(billing.completeCheckout(sessionId, completion))).session,
    failNextPayment: (subscriptionId) => billing.subscriptions.declineNextPayment(subscriptionId),
    endPeriod: async (subscriptionId) => (await delivered({ events: billing.subscriptions.endPeriod(subscriptionId) })).events,
    tick: async () => (await delivered({ events: billing.subscriptions.due() })).events,
    resendEvent: async (eventId) => (await webhooks.sendInOrder([event(eventId).event.id]), event(eventId)),
    sendEvents: async (eventIds) => (await webhooks.sendInOrder(eventIds), eventIds.map(event)),
    holdEvents: (holding) => webhooks.hold(holding),
    failNextRequests: (count) => {
      faults.pendingErrors = count;
    },
    configurePortal: (configured) => {
      billing.portalConfigured = configured;
    },
  };

  loopback.serve((request, response) => {
    serve(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ error: { type: 'api_error', message: `The local payment emulator failed: ${(error as Error).message}` } }),
      );
    });
  });

  async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const method = request.method ?? 'GET';
    const body = await readBody(request);
    if (body === undefined) return void response.writeHead(413).end();
    if (path.startsWith('/v1/')) return handleApi({ billing, webhooks, store, apiKey, apiVersion, log, faults }, request, response, body);
    if (path.startsWith('/_emulator/') && (await handleControl(controls, method, path, body, response))) return;
    if (await handlePage({ billing, webhooks }, method, path, new URLSearchParams(body), response)) return;
    response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found\n');
  }

  return {
    ...controls,
    url,
    host,
    port,
    apiKey,
    signingSecret,
    apiVersion,
    webhookUrl: options.webhookUrl,
    settled: () => webhooks.idle(),
    async stop() {
      await webhooks.stop();
      await loopback.close();
    },
  };
}

function throwing(error: Error): never {
  throw error;
}
