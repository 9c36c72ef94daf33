import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHandler, type BillingDeps } from '../../functions/billing.ts';
import { providerOutage, StripeProvider, stripeClient } from '../../shared/adapters/stripe.ts';
import { byDeadline, callSettings, stripeTiming } from '../../shared/adapters/stripeDeadline.ts';
import { LazyStripeProvider } from '../../shared/adapters/stripeSecrets.ts';
import { Deadline, defaultRequestBudget, requestDeadline } from '../../shared/deadline.ts';
import { Unavailable } from '../../shared/domain/refusals.ts';
import type { RequestGuard } from '../../shared/http/group.ts';
import { memoryWorkspacePorts } from '../fakes/index.ts';
import { StoppedClock } from '../support/clock.ts';

// A request's calls to Stripe share one deadline (ADR 0169): the function's timeout less 1.5 s to
// answer, from when the request started. Each call's timeout is what is left (3 s at most), a
// retry only when a whole second try fits, no call with less than 250 ms left; so two slow calls
// in a row are a 503 problem+json with retry-after the function still sends, not its timeout.

/** The 503's detail when no call was made, or Stripe refused it outright. */
const nothingChanged = /not answering right now; nothing was changed/;
/** The 503's detail when a call was sent and not answered in time: Stripe may have done it. */
const mayHaveApplied = /did not answer in time; what was asked may have been applied: check before retrying/;

/** A timeline that moves only when told. */
function manualTime(start = 1_000) {
  let ms = start;
  return { now: () => ms, advance: (by: number) => void (ms += by) };
}

describe('a request’s deadline', () => {
  it('is the function’s timeout less the reply margin, from when the request started', () => {
    const time = manualTime();
    const deadline = requestDeadline({ functionTimeoutMs: 10_000, replyMarginMs: 1_500 }, undefined, time.now);
    expect(deadline.remaining()).toBe(8_500);
    time.advance(3_200);
    expect(deadline.remaining()).toBe(5_300);
    time.advance(6_000);
    expect(deadline.remaining()).toBe(-700);
  });

  it('in Lambda is what the invocation has left, less the margin, when that is less than the timeout', () => {
    const time = manualTime();
    expect(requestDeadline(defaultRequestBudget, 4_000, time.now).remaining()).toBe(2_500);
    // The local gateway's context says API Gateway's 30 s: the function's 10 s rules.
    expect(requestDeadline(defaultRequestBudget, 30_000, time.now).remaining()).toBe(8_500);
    // Already past: negative from the start, so no call is made.
    expect(requestDeadline(defaultRequestBudget, 1_000, time.now).remaining()).toBe(-500);
  });

  it('none is never reached', () => {
    expect(Deadline.none.remaining()).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('one Stripe call’s settings from the time left', () => {
  it.each([
    [Number.POSITIVE_INFINITY, { timeout: 3_000, maxNetworkRetries: 1 }],
    [8_500, { timeout: 3_000, maxNetworkRetries: 1 }],
    // Two whole tries and the SDK's back-off: 3 s + 0.5 s + 3 s.
    [6_500, { timeout: 3_000, maxNetworkRetries: 1 }],
    [6_499, { timeout: 3_000, maxNetworkRetries: 0 }],
    [3_000, { timeout: 3_000, maxNetworkRetries: 0 }],
    [1_234.9, { timeout: 1_234, maxNetworkRetries: 0 }],
    [250, { timeout: 250, maxNetworkRetries: 0 }],
  ])('%s ms left: %o', (left, settings) => {
    expect(callSettings(left)).toEqual(settings);
  });

  it.each([249, 0, -1_000, Number.NaN])('%s ms left: no call', (left) => {
    expect(callSettings(left)).toBeNull();
  });

  it('never takes longer than the time left, the SDK’s back-off included', () => {
    for (let left = stripeTiming.minimumCallMs; left <= 9_000; left += 7) {
      const settings = callSettings(left)!;
      const longest = settings.timeout * (1 + settings.maxNetworkRetries) + settings.maxNetworkRetries * stripeTiming.retryBackoffMs;
      expect(longest).toBeLessThanOrEqual(left);
      expect(settings.timeout).toBe(Math.min(stripeTiming.tryTimeoutMs, Math.floor(left)));
    }
  });
});

describe('the Stripe adapter within a deadline', () => {
  /** A Stripe that answers 500 at once: the SDK retries it when its settings allow. */
  let failing: Server;
  let failingUrl: string;
  let hits = 0;
  beforeAll(async () => {
    failing = createServer((_request, response) => {
      hits++;
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { type: 'api_error', message: 'down' } }));
    });
    failingUrl = await listen(failing);
  });
  afterAll(() => close(failing));

  /** The client the adapter uses, its HTTP client watched: each try's timeout. */
  function watched() {
    const stripe = stripeClient({ secretKey: 'sk_test_deadline', apiUrl: failingUrl });
    const http = (stripe as unknown as { getApiField(name: 'httpClient'): { makeRequest(...args: unknown[]): unknown } }).getApiField(
      'httpClient',
    );
    const tries = vi.spyOn(http, 'makeRequest');
    const provider = new StripeProvider(stripe, 'whsec_x', new StoppedClock());
    return { provider, timeouts: () => tries.mock.calls.map((call) => call[7]) };
  }

  it('gives each try the time left (3 s at most) and retries only when a whole second try fits', async () => {
    const time = manualTime();
    const ample = watched();
    await expect(ample.provider.within(new Deadline(time.now() + 8_000, time.now)).retrieveSubscription('sub_1')).rejects.toThrow();
    expect(ample.timeouts()).toEqual([3_000, 3_000]);

    const short = watched();
    await expect(short.provider.within(new Deadline(time.now() + 1_800, time.now)).retrieveSubscription('sub_1')).rejects.toThrow();
    expect(short.timeouts()).toEqual([1_800]);
  });

  it('makes no call with less than 250 ms left: Unavailable at once', async () => {
    const { provider, timeouts } = watched();
    const before = hits;
    const late = provider.within(new Deadline(performance.now() + 200));
    await expect(late.createCustomer('a@example.com', 'usr_1', 'customer-usr_1-x')).rejects.toBeInstanceOf(Unavailable);
    // Nothing was sent, so nothing was changed.
    await expect(late.listInvoices('cus_1', 10, null)).rejects.toThrow(nothingChanged);
    expect(timeouts()).toEqual([]);
    expect(hits).toBe(before);
  });

  it('without a deadline keeps the client’s own: two tries of 3 s', async () => {
    const { provider, timeouts } = watched();
    await expect(provider.openCheckouts('cus_1')).rejects.toThrow();
    expect(timeouts()).toEqual([3_000, 3_000]);
  });

  it('holds the deadline whatever the SDK does: a call with no answer by then is Unavailable, which may have been applied', async () => {
    const never = new Promise<string>(() => {});
    const started = performance.now();
    const cut = byDeadline(never, new Deadline(performance.now() + 60));
    await expect(cut).rejects.toBeInstanceOf(Unavailable);
    // Asked and not answered: Stripe may have done it (a subscription changed, a session made).
    await expect(cut).rejects.toThrow(mayHaveApplied);
    expect(performance.now() - started).toBeLessThan(1_000);
    await expect(byDeadline(Promise.resolve('made'), new Deadline(performance.now() + 60))).resolves.toBe('made');
    expect(byDeadline(never, Deadline.none)).toBe(never);
  });

  it('says a call Stripe never answered (the SDK’s timeout, a broken connection) may have been applied; its 429 or 5xx changed nothing', () => {
    const raw = (statusCode: number, type: string, message: string) =>
      ({ message, type, statusCode, headers: {}, requestId: 'req_1' }) as never;
    const timedOut = providerOutage(
      new Stripe.errors.StripeConnectionError(raw(0, 'StripeConnectionError', 'Request aborted due to timeout being reached (600ms)')),
    );
    expect(timedOut?.detail).toMatch(mayHaveApplied);
    for (const refused of [
      new Stripe.errors.StripeRateLimitError(raw(429, 'rate_limit_error', 'slow down')),
      new Stripe.errors.StripeAPIError(raw(500, 'api_error', 'down')),
    ])
      expect(providerOutage(refused)?.detail).toMatch(nothingChanged);
    // The same 503 either way: only the detail differs.
    expect([timedOut?.code, timedOut?.retryAfterSeconds]).toEqual(['provider_unavailable', 60]);
  });
});

// Real time against a slow server, so every bound below keeps at least 1 s of slack for a loaded
// machine (two shared cores): the tests assert what happened and in which order, and one generous
// upper bound each that proves the deadline held. Together they take about 3.5 s.
const customerMs = 1_000;
const sessionMs = 4_000;

describe('a checkout while Stripe is slow (a customer answered after 1 s, a session after 4 s)', () => {
  const delayMs: Record<string, number> = { '/v1/customers': customerMs, '/v1/checkout/sessions': sessionMs };
  let slow: Server;
  let slowUrl: string;
  /** What the slow Stripe was asked, and whether the caller hung up before its answer. */
  const asked: Array<{ method: string; path: string; abandoned: boolean }> = [];
  beforeAll(async () => {
    slow = createServer((request, response) => {
      const entry = { method: request.method ?? '', path: new URL(request.url ?? '/', 'http://x').pathname, abandoned: false };
      asked.push(entry);
      request.resume();
      const timer = setTimeout(() => {
        response.writeHead(200, { 'content-type': 'application/json', 'request-id': 'req_slow' });
        response.end(JSON.stringify(entry.path === '/v1/customers' ? { id: 'cus_slow', object: 'customer' } : sessionBody));
      }, delayMs[entry.path] ?? 0);
      response.on('close', () => {
        if (!response.writableFinished) {
          entry.abandoned = true;
          clearTimeout(timer);
        }
      });
    });
    slowUrl = await listen(slow);
  });
  afterAll(() => close(slow));

  function billingHandler(budget?: BillingDeps['requestBudget']) {
    const clock = new StoppedClock();
    const ports = memoryWorkspacePorts();
    ports.accounts.add({ id: 'usr_buyer', email: 'buyer@example.com', plan: 'free', createdAt: clock.now() });
    const signedIn: RequestGuard = async (_route, request) => {
      request.principal = { kind: 'session', userId: 'usr_buyer', sessionId: 'ses_1' };
    };
    const deps = {
      config: { WEB_ORIGIN: 'http://localhost:3000', PRICE_PRO: 'price_pro_monthly', PRICE_TEAM_SEAT: 'price_team_seat_monthly' },
      clock,
      logger: { info() {}, warn() {}, error() {}, debug() {} },
      metrics: { count() {}, flush() {} },
      guard: signedIn,
      ...(budget ? { requestBudget: budget } : {}),
      provider: new LazyStripeProvider(async () => ({ secretKey: 'sk_test_slow', webhookSecret: 'whsec_slow', apiUrl: slowUrl }), clock),
      billing: ports.billing,
      users: ports.users,
      checkoutWorkspaces: ports.checkoutWorkspaces,
    } as unknown as BillingDeps;
    return { handler: createHandler(deps), billing: ports.billing };
  }

  async function checkout(handler: ReturnType<typeof createHandler>, context: Partial<Context>) {
    asked.splice(0);
    const started = performance.now();
    const result = await handler(checkoutEvent(), context as Context);
    return { result, elapsed: performance.now() - started, problem: JSON.parse(result.body ?? '{}') };
  }

  it('the session, made near the deadline, is given up at the deadline: 503 problem+json with retry-after, inside the function’s time', async () => {
    // A function of 4 s with 1.5 s to answer: the calls have 2.5 s. The customer answers after 1 s,
    // so the session is asked with 1.5 s left (1.25 s more than a call needs) and would answer
    // at 5 s, 2.5 s past the deadline. Without a deadline the checkout would end at 5 s, past the
    // function's timeout.
    const budget = { functionTimeoutMs: 4_000, replyMarginMs: 1_500 };
    const callsMs = budget.functionTimeoutMs - budget.replyMarginMs;
    const { handler, billing } = billingHandler(budget);
    const { result, elapsed, problem } = await checkout(handler, {});
    expect(result.statusCode).toBe(503);
    expect(result.headers?.['content-type']).toBe('application/problem+json');
    expect(result.headers?.['retry-after']).toBe('60');
    // The session was sent and cut mid-flight: Stripe may have made it, so the detail does not say nothing was changed.
    expect(problem).toMatchObject({ status: 503, code: 'provider_unavailable', detail: expect.stringMatching(mayHaveApplied) });
    // The deadline held: answered before the function's timeout, 1.5 s after the deadline, and
    // long before the session's answer; and not before the session was given what was left.
    expect(elapsed).toBeLessThan(budget.functionTimeoutMs);
    expect(elapsed).toBeGreaterThan(callsMs - 1_000);
    // The customer was made and kept (the next checkout uses it); then the session was asked, and
    // hung up on at the deadline (the slow Stripe hears of it a moment later).
    await vi.waitFor(() => expect(asked[1]?.abandoned).toBe(true), { timeout: 2_000, interval: 10 });
    expect(asked).toEqual([
      { method: 'POST', path: '/v1/customers', abandoned: false },
      { method: 'POST', path: '/v1/checkout/sessions', abandoned: true },
    ]);
    expect(await billing.customerOf('usr_buyer')).toBe('cus_slow');
  });

  it('in Lambda, by the invocation’s remaining time: once too little is left the second call is not made', async () => {
    // The invocation has 2.65 s left, 1.5 s of it kept to answer: 1.15 s, of which the customer
    // takes 1 s; with less than 0.25 s left the session is not asked for. (On a machine so loaded
    // that the customer answers after the deadline, that call is cut instead: the session is not
    // asked for either way.)
    const invocationLeftMs = 2_650;
    const { handler } = billingHandler();
    const { result, elapsed, problem } = await checkout(handler, { getRemainingTimeInMillis: () => invocationLeftMs });
    expect([result.statusCode, result.headers?.['retry-after'], problem.code]).toEqual([503, '60', 'provider_unavailable']);
    expect(asked.map((entry) => entry.path)).toEqual(['/v1/customers']);
    // Answered 1.5 s after the deadline at the latest: the invocation's time held.
    expect(elapsed).toBeLessThan(invocationLeftMs);
  });
});

const sessionBody = { id: 'cs_slow', object: 'checkout.session', url: 'https://checkout.example/cs_slow' };

function checkoutEvent(): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: 'POST /v1/billing/checkout',
    rawPath: '/v1/billing/checkout',
    rawQueryString: '',
    headers: { 'content-type': 'application/json' },
    requestContext: {
      requestId: 'req_deadline',
      http: { method: 'POST', path: '/v1/billing/checkout', protocol: 'HTTP/1.1', sourceIp: '203.0.113.9', userAgent: 'test' },
    },
    body: JSON.stringify({ plan: 'pro' }),
    isBase64Encoded: false,
  } as unknown as APIGatewayProxyEventV2;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
