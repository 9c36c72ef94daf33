import type { ServerResponse } from 'node:http';
import type { RecordedRequest } from './api.ts';
import { errorBody, invalidRequest, StripeApiError } from './errors.ts';
import { ids, type CheckoutSession, type StripeEvent, type Subscription } from './objects.ts';
import type { EventRecord } from './store.ts';

/**
 * What scripts and tests may do that Stripe's API does not offer: the same actions as the
 * emulator's methods (local/stripe/emulator.ts), over HTTP under `/_emulator/`, JSON in and out.
 */
export interface StripeControls {
  requests(): RecordedRequest[];
  clearRequests(): void;
  events(): EventRecord[];
  completeCheckout(sessionId: string, options?: { email?: string }): Promise<CheckoutSession>;
  failNextPayment(subscriptionId: string): Subscription;
  endPeriod(subscriptionId: string): Promise<StripeEvent[]>;
  tick(): Promise<StripeEvent[]>;
  resendEvent(eventId: string): Promise<EventRecord>;
  sendEvents(eventIds: readonly string[]): Promise<EventRecord[]>;
  holdEvents(holding: boolean): Promise<void>;
  /** The next `count` API requests answer Stripe's 500 `api_error`, saved under their idempotency keys as Stripe saves it. */
  failNextRequests(count: number): void;
  /** Saves (true) or unsaves the customer portal settings: unsaved, Stripe refuses portal sessions. */
  configurePortal(configured: boolean): void;
}

const json = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  response.end(JSON.stringify(body, null, 2));
};

/**
 * - `GET /_emulator/requests` (every API request: method, path, query, form, Idempotency-Key,
 *   Stripe-Version, status), `DELETE` to forget them;
 * - `GET /_emulator/events` (every event and each delivery's answer);
 * - `POST /_emulator/checkout/sessions/{id}/complete` `{email?}`: Pay;
 * - `POST /_emulator/subscriptions/{id}/fail_next_payment`: its next charge is declined;
 * - `POST /_emulator/subscriptions/{id}/period_end`: its period ends now (renewed, or canceled);
 * - `POST /_emulator/tick`: every period the clock has passed ends;
 * - `POST /_emulator/events/{id}/resend`; `POST /_emulator/events/send` `{ids: [...]}` in that order;
 * - `POST /_emulator/webhooks/hold` `{hold: true|false}`: new events wait, or go (those waiting first);
 * - `POST /_emulator/portal/configuration` `{saved: true|false}`: the customer portal settings saved, or not;
 * - `POST /_emulator/failures` `{count}`: the next `count` API requests answer Stripe's 500 (replayed to their keys).
 */
export async function handleControl(
  controls: StripeControls,
  method: string,
  path: string,
  rawBody: string,
  response: ServerResponse,
): Promise<boolean> {
  const parts = path.split('/').slice(2);
  const route = `${method} ${parts.map((part, index) => (isId(parts, index) ? '{id}' : part)).join('/')}`;
  const id = parts.find((_, index) => isId(parts, index)) ?? '';
  try {
    const body = rawBody ? parseJson(rawBody) : {};
    switch (route) {
      case 'GET requests':
        return (json(response, 200, controls.requests()), true);
      case 'DELETE requests':
        controls.clearRequests();
        return (json(response, 200, { deleted: true }), true);
      case 'GET events':
        return (json(response, 200, controls.events()), true);
      case 'POST checkout/sessions/{id}/complete':
        return (
          json(response, 200, await controls.completeCheckout(id, typeof body.email === 'string' ? { email: body.email } : {})), true
        );
      case 'POST subscriptions/{id}/fail_next_payment':
        return (json(response, 200, controls.failNextPayment(id)), true);
      case 'POST subscriptions/{id}/period_end':
        return (json(response, 200, { events: await controls.endPeriod(id) }), true);
      case 'POST tick':
        return (json(response, 200, { events: await controls.tick() }), true);
      case 'POST events/{id}/resend':
        return (json(response, 200, await controls.resendEvent(id)), true);
      case 'POST events/send': {
        const eventIds = body.ids;
        if (!Array.isArray(eventIds) || !eventIds.every((item) => typeof item === 'string'))
          throw invalidRequest('ids must be a list of event ids', { param: 'ids' });
        return (json(response, 200, await controls.sendEvents(eventIds)), true);
      }
      case 'POST webhooks/hold':
        if (typeof body.hold !== 'boolean') throw invalidRequest('hold must be true or false', { param: 'hold' });
        await controls.holdEvents(body.hold);
        return (json(response, 200, { holding: body.hold }), true);
      case 'POST failures':
        if (!Number.isSafeInteger(body.count) || (body.count as number) < 0)
          throw invalidRequest('count must be a whole number', { param: 'count' });
        controls.failNextRequests(body.count as number);
        return (json(response, 200, { count: body.count }), true);
      case 'POST portal/configuration':
        if (typeof body.saved !== 'boolean') throw invalidRequest('saved must be true or false', { param: 'saved' });
        controls.configurePortal(body.saved);
        return (json(response, 200, { saved: body.saved }), true);
      default:
        return false;
    }
  } catch (error) {
    if (!(error instanceof StripeApiError)) throw error;
    json(response, error.status, errorBody(error, ids.request()));
    return true;
  }
}

/** The path's object ids: Stripe's shapes (`cs_…`, `sub_…`, `evt_…`). */
const isId = (parts: string[], index: number) => index > 0 && /^(cs|sub|evt)_[A-Za-z0-9_]+$/.test(parts[index]!);

function parseJson(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // answered below
  }
  throw invalidRequest('The body must be a JSON object.');
}
