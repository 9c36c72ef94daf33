import { createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isDeepStrictEqual } from 'node:util';
import type { Clock } from '../../shared/clock.ts';
import { noSuch } from './errors.ts';
import { ids, type StripeEvent } from './objects.ts';
import type { EventRecord, StripeStore } from './store.ts';

/** The event types the emulator makes: the ones the service's webhook endpoint subscribes to. */
export type EventType =
  | 'checkout.session.completed'
  | 'customer.subscription.created'
  | 'customer.subscription.updated'
  | 'customer.subscription.deleted'
  | 'invoice.paid'
  | 'invoice.payment_failed';

/** The API request that caused an event (`request` on the event), when one did. */
export interface Cause {
  requestId: string;
  idempotencyKey: string | null;
}

export interface WebhookOptions {
  clock: Clock;
  /** The service's endpoint, e.g. `http://localhost:3000/v1/billing/webhook`. */
  url: string;
  /** `whsec_…`: the key of every signature. */
  signingSecret: string;
  /** The `api_version` events are rendered in. */
  apiVersion: string;
  /** How long a receiver may take to answer; Stripe counts a slower answer as failed. */
  timeoutMs?: number;
}

/**
 * `Stripe-Signature` as Stripe writes it: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.payload"
 * keyed with the endpoint's signing secret>`.
 */
export function signatureHeader(payload: string, secret: string, timestamp: number): string {
  const v1 = createHmac('sha256', secret).update(`${timestamp}.${payload}`, 'utf8').digest('hex');
  return `t=${timestamp},v1=${v1}`;
}

/**
 * `data.previous_attributes` of an `*.updated` event: the top-level fields that changed, with
 * their earlier values (a nested field, such as `items`, is given whole).
 */
export function previousAttributes(before: object, after: object): Record<string, unknown> {
  const earlier = before as Record<string, unknown>;
  const later = after as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(later)
      .filter((key) => !isDeepStrictEqual(earlier[key], later[key]))
      .map((key) => [key, structuredClone(earlier[key] ?? null)]),
  );
}

/**
 * Events and their delivery. Each event is kept (with every attempt and its answer) and sent
 * to the one webhook URL, one at a time in the order made, as a POST whose body is the event's
 * JSON (indented, as Stripe's are) and whose signature is made at the attempt's time by the
 * injected clock, so a test that moves time still sends fresh signatures. A failed attempt is
 * recorded, not retried: tests resend on purpose. Holding keeps new events unsent until they
 * are sent in a chosen order, or released.
 */
export class Webhooks {
  private chain: Promise<void> = Promise.resolve();
  private held: string[] | undefined;
  private readonly stopping = new AbortController();

  constructor(
    private readonly store: StripeStore,
    private readonly options: WebhookOptions,
  ) {}

  /** Where events are delivered: the service's endpoint (the account's default webhook endpoint lists it). */
  get deliveryUrl(): string {
    return this.options.url;
  }

  /** Makes an event of `object` as it is now, and keeps it (not yet sent). */
  create(type: EventType, object: object, cause?: Cause, previous?: Record<string, unknown>): StripeEvent {
    const event: StripeEvent = {
      id: ids.event(),
      object: 'event',
      api_version: this.options.apiVersion,
      created: Math.floor(this.options.clock.now() / 1000),
      data: { object: structuredClone(object), ...(previous ? { previous_attributes: previous } : {}) },
      livemode: false,
      pending_webhooks: 1,
      request: { id: cause?.requestId ?? null, idempotency_key: cause?.idempotencyKey ?? null },
      type,
    };
    this.store.data.events.push({ event, deliveries: [] });
    this.store.save();
    return event;
  }

  /** Sends new events after any already under way; resolves once they are sent (or held). */
  send(events: readonly StripeEvent[]): Promise<void> {
    const eventIds = events.map((event) => event.id);
    if (this.held) {
      this.held.push(...eventIds);
      return Promise.resolve();
    }
    return this.enqueue(eventIds);
  }

  /** Sends these events now, in this order, sent before or not (duplicates, reordering). */
  sendInOrder(eventIds: readonly string[]): Promise<void> {
    const unknown = eventIds.find((id) => !this.store.event(id));
    if (unknown !== undefined) return Promise.reject(noSuch('event', unknown, 'ids'));
    if (this.held) this.held = this.held.filter((id) => !eventIds.includes(id));
    return this.enqueue(eventIds);
  }

  /** Holding: new events wait. Releasing sends what waited, in the order made. */
  hold(holding: boolean): Promise<void> {
    if (holding) {
      this.held ??= [];
      return Promise.resolve();
    }
    const waiting = this.held ?? [];
    this.held = undefined;
    return this.enqueue(waiting);
  }

  get holding(): boolean {
    return this.held !== undefined;
  }

  /** Resolves when every event sent so far has been delivered (or failed). */
  idle(): Promise<void> {
    return this.chain;
  }

  list(): EventRecord[] {
    return this.store.data.events;
  }

  /** Ends any attempt under way; nothing is sent afterwards. */
  stop(): Promise<void> {
    this.stopping.abort();
    return this.chain;
  }

  private enqueue(eventIds: readonly string[]): Promise<void> {
    const run = this.chain.then(async () => {
      for (const id of eventIds) await this.deliver(this.store.event(id)!);
    });
    this.chain = run.catch(() => {});
    return run;
  }

  private async deliver(record: EventRecord): Promise<void> {
    if (this.stopping.signal.aborted) return;
    const payload = JSON.stringify(record.event, null, 2);
    const at = Math.floor(this.options.clock.now() / 1000);
    try {
      const status = await post(
        this.options.url,
        payload,
        {
          'content-type': 'application/json; charset=utf-8',
          'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
          'cache-control': 'no-cache',
          accept: '*/*; q=0.5, application/xml',
          'stripe-signature': signatureHeader(payload, this.options.signingSecret, at),
        },
        AbortSignal.any([AbortSignal.timeout(this.options.timeoutMs ?? 10_000), this.stopping.signal]),
      );
      record.deliveries.push({ at, status });
    } catch (error) {
      record.deliveries.push({ at, error: (error as Error).message });
    }
    this.store.save();
  }
}

/**
 * One POST and its status, by node:http rather than `fetch`: the test suites wrap `fetch` to
 * check the service's answers to their own calls, and a delivery is the emulator's call, not
 * theirs. Redirects are not followed (Stripe counts a 3xx as a failed delivery).
 */
function post(url: string, body: string, headers: Record<string, string>, signal: AbortSignal): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = (url.startsWith('https:') ? httpsRequest : httpRequest)(
      url,
      { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, signal },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}
