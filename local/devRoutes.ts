import type { LocalSlack } from './slack/emulator.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as z from 'zod/mini';
import type { LocalDns } from './dns.ts';
import type { LocalHostnames } from './hostnames.ts';
import type { LocalOutbox } from './mail.ts';
import type { LocalStripe } from './stripe/emulator.ts';
import { StripeApiError } from './stripe/errors.ts';
import { loopbackHost } from './loopbackServer.ts';

/**
 * Names a browser sends as `Host` for this machine. A page of another site that rebinds its own
 * name to 127.0.0.1 reaches this port with that name as `Host`, as its own origin, so it can
 * read what it fetches: the local-only routes answer loopback names only.
 */
const loopbackOrigin = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/i;

const checkoutCompletion = /^\/_dev\/billing\/checkout\/(cs_[A-Za-z0-9_]+)\/complete$/;
const dnsName = /^\/_dev\/dns\/([A-Za-z0-9._-]{1,253})$/;

/** What `PUT /_dev/dns/{name}` takes: the name's records, replacing any it had. */
const dnsRecords = z.strictObject({
  records: z.array(
    z.union([
      z.strictObject({ type: z.literal('TXT'), data: z.union([z.string(), z.array(z.string())]), ttl: z.optional(z.int()) }),
      z.strictObject({ type: z.enum(['A', 'AAAA', 'CNAME']), data: z.string(), ttl: z.optional(z.int()) }),
    ]),
  ),
});
const readBody = (request: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= 64 * 1024) chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  response.end(JSON.stringify(body));
}

/**
 * Local-only routes; they do not exist in AWS (any other `Host` gets the 404 of an unknown path):
 * - `GET /_dev/mail`: the outbox, newest first;
 * - `POST /_dev/billing/checkout/{id}/complete`: pays a checkout session at the Stripe emulator
 *   as its page's Pay button does (customer, subscription, invoice, signed events delivered to
 *   the webhook), for scripts. A page of another site cannot (a browser names its origin);
 * - `GET /_dev/dns`: the local DNS server's address and every question it was asked;
 *   `PUT /_dev/dns/{name}` `{records: [{type: "TXT", data}]}` publishes a name's records (a
 *   custom domain's challenge, say), `DELETE /_dev/dns/{name}` removes them. Not kept across runs;
 * - `GET /_dev/hostnames`: the verified hostnames the stand-in for CloudFront serves and served
 *   (local/hostnames.ts), newest first, and the routing endpoint a customer's CNAME would name.
 */
export function devRoutes(
  request: IncomingMessage,
  response: ServerResponse,
  local: { outbox: LocalOutbox; stripe: LocalStripe; dns: LocalDns; hostnames: LocalHostnames; slack: LocalSlack },
): boolean {
  const path = new URL(request.url ?? '/', 'http://localhost').pathname;
  if (!loopbackHost.test(request.headers.host ?? '')) return false;
  if (path === '/_dev/chat' && request.method === 'GET') {
    response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(local.slack.listing());
    return true;
  }
  if (path === '/_dev/mail' && request.method === 'GET') {
    json(response, 200, local.outbox.list());
    return true;
  }
  if (path === '/_dev/dns' && request.method === 'GET') {
    json(response, 200, { server: local.dns.server, queries: local.dns.queries() });
    return true;
  }
  if (path === '/_dev/hostnames' && request.method === 'GET') {
    json(response, 200, {
      routing_endpoint: local.hostnames.routingEndpoint,
      tenants: local.hostnames.list().map((tenant) => ({
        hostname: tenant.hostname,
        domain_id: tenant.domainId,
        tenant_id: tenant.tenantId,
        served_at: new Date(tenant.servedAt).toISOString(),
        stopped_at: tenant.stoppedAt === null ? null : new Date(tenant.stoppedAt).toISOString(),
      })),
    });
    return true;
  }
  const name = dnsName.exec(path);
  if (name && (request.method === 'PUT' || request.method === 'DELETE')) {
    if (crossSite(request)) {
      json(response, 403, { error: 'Only this machine publishes local DNS records.' });
      return true;
    }
    void publishRecords(request, response, local.dns, name[1]!);
    return true;
  }
  const completion = checkoutCompletion.exec(path);
  if (completion && request.method === 'POST') {
    if (crossSite(request)) {
      json(response, 403, { error: 'Only this machine completes a checkout.' });
      return true;
    }
    request.resume();
    void completeCheckout(local.stripe, completion[1]!, response);
    return true;
  }
  return false;
}

/** A browser names the page's origin on a request it sends for another site's page. */
const crossSite = (request: IncomingMessage) => request.headers.origin !== undefined && !loopbackOrigin.test(request.headers.origin);

async function publishRecords(request: IncomingMessage, response: ServerResponse, dns: LocalDns, name: string): Promise<void> {
  if (request.method === 'DELETE') {
    request.resume();
    dns.remove(name);
    json(response, 200, { name, records: [] });
    return;
  }
  let parsed: ReturnType<typeof dnsRecords.safeParse> | null;
  try {
    parsed = dnsRecords.safeParse(JSON.parse(await readBody(request)));
  } catch {
    parsed = null;
  }
  if (!parsed?.success) {
    json(response, 400, { error: 'Send {"records": [{"type": "TXT", "data": "…"}]} (types TXT, A, AAAA, CNAME).' });
    return;
  }
  try {
    dns.setRecords(name, parsed.data.records);
  } catch (error) {
    json(response, 400, { error: (error as Error).message });
    return;
  }
  json(response, 200, { name, records: parsed.data.records });
}

async function completeCheckout(stripe: LocalStripe, sessionId: string, response: ServerResponse): Promise<void> {
  try {
    const session = await stripe.completeCheckout(sessionId);
    await stripe.settled();
    json(response, 200, {
      id: session.id,
      status: session.status,
      payment_status: session.payment_status,
      customer: session.customer,
      subscription: session.subscription,
    });
  } catch (error) {
    if (!(error instanceof StripeApiError)) {
      json(response, 500, { error: `The local payment emulator failed: ${(error as Error).message}` });
      return;
    }
    json(response, error.status, { error: error.message });
  }
}
