import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { accountRoutes } from './account.ts';
import type { StripeBilling } from './billing.ts';
import { errorBody, invalidRequest, StripeApiError, unrecognizedUrl } from './errors.ts';
import { parseForm, readParams, type FormHash, type ReadAll, type Specs } from './form.ts';
import { ids, priceObject, type StripeEvent } from './objects.ts';
import type { StripeStore } from './store.ts';
import type { Cause, Webhooks } from './webhooks.ts';

/** One request the API received, as tests assert it (what the service sent, exactly). */
export interface RecordedRequest {
  method: string;
  path: string;
  /** The query, parsed as Stripe parses it (GET parameters). */
  query: FormHash;
  /** The form body, parsed (`a[b][0][c]` nested, lists for indexes). */
  form: FormHash;
  idempotency_key: string | null;
  stripe_version: string | null;
  status: number;
  request_id: string;
}

export interface ApiContext {
  billing: StripeBilling;
  webhooks: Webhooks;
  store: StripeStore;
  apiKey: string;
  /** Answers are in this version's shapes; it is also the `Stripe-Version` answered. */
  apiVersion: string;
  log: RecordedRequest[];
  /** Requests still to answer with Stripe's 500 (`failNextRequests`), as a Stripe outage would. */
  faults: { pendingErrors: number };
}

interface Handled {
  status?: number;
  body: object;
  /** Sent after the answer, as Stripe delivers events after the request that made them. */
  events?: StripeEvent[];
}

interface Route<H extends Specs = Specs> {
  method: 'GET' | 'POST' | 'DELETE';
  path: RegExp;
  params: H;
  handle(context: ApiContext, params: ReadAll<H>, id: string, cause: Cause): Handled;
}

const route = <H extends Specs>(definition: Route<H>): Route => definition as unknown as Route;
const expandable = { expand: 'strings' } as const;
const id = '([A-Za-z0-9_]+)';

/** The subset of Stripe's REST API the service calls (issues 16 and 26), plus retrieving an invoice. */
const routes: Route[] = [
  route({
    method: 'POST',
    path: /^\/v1\/customers$/,
    params: { email: 'string', name: 'string', description: 'string', phone: 'string', metadata: 'metadata', ...expandable },
    handle: ({ billing }, params) => ({ body: billing.createCustomer(params) }),
  }),
  route({
    method: 'GET',
    path: new RegExp(`^/v1/customers/${id}$`),
    params: expandable,
    handle: ({ billing }, _, customer) => ({ body: billing.customer(customer) }),
  }),
  route({
    method: 'POST',
    path: /^\/v1\/checkout\/sessions$/,
    params: {
      mode: 'string',
      customer: 'string',
      customer_email: 'string',
      client_reference_id: 'string',
      line_items: { list: { price: 'string', quantity: 'integer' } },
      success_url: 'string',
      cancel_url: 'string',
      metadata: 'metadata',
      subscription_data: { hash: { metadata: 'metadata' } },
      allow_promotion_codes: 'boolean',
      ...expandable,
    },
    handle: ({ billing }, params) => ({ body: billing.createCheckoutSession(params) }),
  }),
  route({
    method: 'GET',
    path: /^\/v1\/checkout\/sessions$/,
    params: {
      customer: 'string',
      status: 'string',
      subscription: 'string',
      limit: 'integer',
      starting_after: 'string',
      ending_before: 'string',
      ...expandable,
    },
    handle: ({ billing }, params) => ({ body: billing.listCheckoutSessions(params) }),
  }),
  route({
    method: 'GET',
    path: new RegExp(`^/v1/checkout/sessions/${id}$`),
    params: expandable,
    handle: ({ billing }, _, session) => ({ body: billing.checkoutSession(session).session }),
  }),
  route({
    method: 'POST',
    path: new RegExp(`^/v1/checkout/sessions/${id}/expire$`),
    params: expandable,
    handle: ({ billing }, _, session) => ({ body: billing.expireCheckoutSession(session) }),
  }),
  route({
    method: 'POST',
    path: /^\/v1\/billing_portal\/sessions$/,
    params: { customer: 'string', return_url: 'string', ...expandable },
    handle: ({ billing }, params) => ({ body: billing.createPortalSession(params) }),
  }),
  route({
    method: 'GET',
    path: new RegExp(`^/v1/subscriptions/${id}$`),
    params: expandable,
    handle: ({ billing }, _, subscription) => ({ body: billing.subscriptions.get(subscription).subscription }),
  }),
  route({
    method: 'POST',
    path: new RegExp(`^/v1/subscriptions/${id}$`),
    params: {
      items: { list: { id: 'string', quantity: 'integer', price: 'string' } },
      proration_behavior: 'string',
      cancel_at_period_end: 'boolean',
      metadata: 'metadata',
      ...expandable,
    },
    handle: ({ billing }, params, subscription, cause) => {
      const { subscription: updated, events } = billing.subscriptions.update(subscription, params, cause);
      return { body: updated, events };
    },
  }),
  route({
    method: 'DELETE',
    path: new RegExp(`^/v1/subscriptions/${id}$`),
    params: {
      prorate: 'boolean',
      invoice_now: 'boolean',
      cancellation_details: { hash: { comment: 'string', feedback: 'string' } },
      ...expandable,
    },
    handle: ({ billing }, params, subscription, cause) => {
      const { subscription: canceled, events } = billing.subscriptions.cancel(subscription, params, cause);
      return { body: canceled, events };
    },
  }),
  route({
    method: 'GET',
    path: /^\/v1\/invoices$/,
    params: {
      customer: 'string',
      subscription: 'string',
      status: 'string',
      limit: 'integer',
      starting_after: 'string',
      ending_before: 'string',
      ...expandable,
    },
    handle: ({ billing }, params) => ({ body: billing.listInvoices(params) }),
  }),
  route({
    method: 'GET',
    path: new RegExp(`^/v1/invoices/${id}$`),
    params: expandable,
    handle: ({ billing }, _, invoice) => ({ body: billing.invoice(invoice) }),
  }),
  ...accountRoutes,
];

/** Stripe keeps an idempotency key's answer for 24 hours. */
const idempotencyWindowSeconds = 24 * 3600;

/** Answers one `/v1/…` request (its body already read), and records it. */
export function handleApi(context: ApiContext, request: IncomingMessage, response: ServerResponse, rawBody: string): void {
  const requestId = ids.request();
  const url = new URL(request.url ?? '/', 'http://localhost');
  const method = request.method ?? 'GET';
  const idempotencyKey = header(request, 'idempotency-key');
  const stripeVersion = header(request, 'stripe-version');
  const recorded: RecordedRequest = {
    method,
    path: url.pathname,
    query: {},
    form: {},
    idempotency_key: idempotencyKey,
    stripe_version: stripeVersion,
    status: 0,
    request_id: requestId,
  };
  context.log.push(recorded);
  const headers: Record<string, string> = { 'request-id': requestId, 'stripe-version': stripeVersion ?? context.apiVersion };
  if (method === 'POST' && idempotencyKey !== null) headers['idempotency-key'] = idempotencyKey;
  const answer = (status: number, body: string, extra: Record<string, string> = {}) => {
    recorded.status = status;
    response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-cache, no-store', ...headers, ...extra });
    response.end(body);
  };

  let events: StripeEvent[] = [];
  try {
    authenticate(request, context.apiKey);
    recorded.query = parseForm(url.search.slice(1));
    recorded.form = parseForm(method === 'POST' ? rawBody : '');
    if (stripeVersion !== null && !/^\d{4}-\d{2}-\d{2}(\.[a-z]+)?$/.test(stripeVersion))
      throw invalidRequest(`Invalid Stripe API version: ${stripeVersion}`);
    const matched = routes.map((candidate) => ({ candidate, match: candidate.path.exec(url.pathname) })).filter(({ match }) => match);
    const found = matched.find(({ candidate }) => candidate.method === method);
    if (!found) throw unrecognizedUrl(method, url.pathname);
    // Idempotency is settled first: a retry gets its first answer even if the parameters would now be refused.
    const key = method === 'POST' ? idempotencyKey : null;
    const canonical = JSON.stringify(sorted(recorded.form));
    const replay = key === null ? undefined : previousAnswer(context.store, key, method, url.pathname, canonical, context.billing.now());
    if (replay) return answer(replay.status, replay.body, { 'idempotent-replayed': 'true', 'original-request': replay.requestId });
    const params = readParams(method === 'POST' ? recorded.form : recorded.query, found.candidate.params);
    if (context.faults.pendingErrors > 0) {
      context.faults.pendingErrors--;
      // Stripe saves the answer of a request that started executing, a 500 included, and replays
      // it to that key for 24 hours; only a refusal before execution (a bad parameter) is not saved.
      const failed = new StripeApiError(500, { type: 'api_error', message: 'An unknown error occurred' });
      if (key !== null)
        remember(context, key, method, url.pathname, canonical, 500, JSON.stringify(errorBody(failed, requestId), null, 2), requestId);
      throw failed;
    }
    const handled = found.candidate.handle(context, params, found.match![1] ?? '', { requestId, idempotencyKey: key });
    const status = handled.status ?? 200;
    const body = JSON.stringify(expand(context, handled.body, (params as { expand?: string[] }).expand ?? []), null, 2);
    if (key !== null) remember(context, key, method, url.pathname, canonical, status, body, requestId);
    events = handled.events ?? [];
    answer(status, body);
  } catch (error) {
    if (!(error instanceof StripeApiError)) throw error;
    answer(error.status, JSON.stringify(errorBody(error, requestId), null, 2));
  }
  if (events.length > 0) void context.webhooks.send(events);
}

/** Saves an answer under its idempotency key, for Stripe's 24 hours. */
function remember(
  context: ApiContext,
  key: string,
  method: string,
  path: string,
  params: string,
  status: number,
  body: string,
  requestId: string,
): void {
  forgetExpiredKeys(context.store, context.billing.now());
  context.store.data.idempotency[key] = { method, path, params, status, body, requestId, created: context.billing.now() };
  context.store.save();
}

function header(request: IncomingMessage, name: string): string | null {
  const value = request.headers[name];
  return typeof value === 'string' ? value : null;
}

/** The secret key, as a Bearer token (what the SDK sends) or Basic auth's user name (curl -u). */
function authenticate(request: IncomingMessage, apiKey: string): void {
  const authorization = header(request, 'authorization') ?? '';
  const bearer = /^Bearer (.+)$/i.exec(authorization)?.[1];
  const basic = /^Basic (.+)$/i.exec(authorization)?.[1];
  const given = bearer ?? (basic ? Buffer.from(basic, 'base64').toString('utf8').split(':')[0] : undefined);
  if (!given) {
    throw invalidRequest(
      "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY'). See https://stripe.com/docs/api#authentication for details, or we can help at https://support.stripe.com/.",
      { status: 401 },
    );
  }
  const digest = (value: string) => createHash('sha256').update(value).digest();
  if (!timingSafeEqual(digest(given), digest(apiKey))) {
    // Stripe shows the key's last four characters only.
    throw invalidRequest(`Invalid API Key provided: ${given.slice(0, 8)}${'*'.repeat(Math.max(0, given.length - 12))}${given.slice(-4)}`, {
      status: 401,
    });
  }
}

/**
 * The answer an earlier request with this key got, when this is its retry (same endpoint, same
 * parameters); the same key on another endpoint or with other parameters is Stripe's 400
 * idempotency_error. Only answers that were carried out are kept (2xx); a refusal of the
 * parameters is not, as Stripe saves nothing for a request that fails validation.
 */
function previousAnswer(store: StripeStore, key: string, method: string, path: string, params: string, now: number) {
  if (key.length > 255) throw invalidRequest('Idempotency keys can be no longer than 255 characters.', { param: 'Idempotency-Key' });
  const previous = store.data.idempotency[key];
  if (!previous || previous.created + idempotencyWindowSeconds < now) return undefined;
  const retry = `Try using a key other than '${key}' if you meant to execute a different request.`;
  if (previous.method !== method || previous.path !== path) {
    throw new StripeApiError(400, {
      type: 'idempotency_error',
      message: `Keys for idempotent requests can only be used for the same endpoint they were first used for ('${previous.method} ${previous.path}' vs '${method} ${path}'). ${retry}`,
    });
  }
  if (previous.params !== params) {
    throw new StripeApiError(400, {
      type: 'idempotency_error',
      message: `Keys for idempotent requests can only be used with the same parameters they were first used with. ${retry}`,
    });
  }
  return previous;
}

function forgetExpiredKeys(store: StripeStore, now: number): void {
  for (const [key, result] of Object.entries(store.data.idempotency)) {
    if (result.created + idempotencyWindowSeconds < now) delete store.data.idempotency[key];
  }
}

/** The parameters with every hash's keys sorted: the same request however the client ordered them. */
function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sorted((value as Record<string, unknown>)[key])]),
    );
  return value;
}

/**
 * `expand[]`: each dotted path's id replaced by the object it names (`subscription`,
 * `latest_invoice`, `data.customer` in a list…), on a copy; a field that holds no id of a
 * known object cannot be expanded, as Stripe says.
 */
function expand(context: ApiContext, body: object, paths: readonly string[]): object {
  if (paths.length === 0) return body;
  const copy = structuredClone(body) as Record<string, unknown>;
  for (const path of paths) expandPath(context, copy, path.split('.'), path);
  return copy;
}

function expandPath(context: ApiContext, target: Record<string, unknown>, steps: string[], path: string): void {
  const [step, ...rest] = steps;
  if (step === undefined) return;
  if (target.object === 'list' && step === 'data') {
    for (const item of target.data as Record<string, unknown>[]) expandPath(context, item, rest, path);
    return;
  }
  let value = target[step];
  if (typeof value === 'string') {
    const found = lookup(context, value);
    if (!found) throw invalidRequest(`This property cannot be expanded (${path}).`, { param: 'expand' });
    value = target[step] = structuredClone(found);
  } else if (value === undefined || (value !== null && typeof value !== 'object')) {
    throw invalidRequest(`This property cannot be expanded (${path}).`, { param: 'expand' });
  }
  if (value && rest.length > 0) expandPath(context, value as Record<string, unknown>, rest, path);
}

function lookup(context: ApiContext, objectId: string): object | undefined {
  const { data } = context.store;
  if (objectId.startsWith('cus_')) return data.customers[objectId];
  if (objectId.startsWith('sub_')) return data.subscriptions[objectId]?.subscription;
  if (objectId.startsWith('in_')) return context.store.invoice(objectId);
  if (objectId.startsWith('cs_')) return data.checkoutSessions[objectId]?.session;
  try {
    return priceObject(context.billing.price(objectId, 'expand'), 0);
  } catch {
    return undefined;
  }
}
