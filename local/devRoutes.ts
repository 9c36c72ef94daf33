import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LocalOutbox } from './mail.ts';
import type { LocalStripe } from './stripe/emulator.ts';
import { StripeApiError } from './stripe/errors.ts';

/**
 * Names a browser sends as `Host` for this machine. A page of another site that rebinds its own
 * name to 127.0.0.1 reaches this port with that name as `Host`, as its own origin, so it can
 * read what it fetches: the local-only routes answer loopback names only.
 */
const loopbackHost = /^(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/i;
const loopbackOrigin = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/i;

const checkoutCompletion = /^\/_dev\/billing\/checkout\/(cs_[A-Za-z0-9_]+)\/complete$/;

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  response.end(JSON.stringify(body));
}

/**
 * Local-only routes; they do not exist in AWS (any other `Host` gets the 404 of an unknown path):
 * - `GET /_dev/mail`: the outbox, newest first;
 * - `POST /_dev/billing/checkout/{id}/complete`: pays a checkout session at the Stripe emulator
 *   as its page's Pay button does (customer, subscription, invoice, signed events delivered to
 *   the webhook), for scripts. A page of another site cannot (a browser names its origin).
 */
export function devRoutes(request: IncomingMessage, response: ServerResponse, local: { outbox: LocalOutbox; stripe: LocalStripe }): boolean {
  const path = new URL(request.url ?? '/', 'http://localhost').pathname;
  if (!loopbackHost.test(request.headers.host ?? '')) return false;
  if (path === '/_dev/mail' && request.method === 'GET') {
    json(response, 200, local.outbox.list());
    return true;
  }
  const completion = checkoutCompletion.exec(path);
  if (completion && request.method === 'POST') {
    const origin = request.headers.origin;
    if (origin !== undefined && !loopbackOrigin.test(origin)) {
      json(response, 403, { error: 'Only this machine completes a checkout.' });
      return true;
    }
    request.resume();
    void completeCheckout(local.stripe, completion[1]!, response);
    return true;
  }
  return false;
}

async function completeCheckout(stripe: LocalStripe, sessionId: string, response: ServerResponse): Promise<void> {
  try {
    const session = await stripe.completeCheckout(sessionId);
    await stripe.settled();
    json(response, 200, { id: session.id, status: session.status, payment_status: session.payment_status, customer: session.customer, subscription: session.subscription });
  } catch (error) {
    if (!(error instanceof StripeApiError)) {
      json(response, 500, { error: `The local payment emulator failed: ${(error as Error).message}` });
      return;
    }
    json(response, error.status, { error: error.message });
  }
}
