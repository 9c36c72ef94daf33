import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHandler, type BillingDeps } from '../../functions/billing.ts';
import { callSettings, StripeProvider, stripeClient, stripeTiming } from '../../shared/adapters/stripe.ts';
import { byDeadline, LazyStripeProvider } from '../../shared/adapters/stripeSecrets.ts';
import { Deadline, defaultRequestBudget, requestDeadline } from '../../shared/deadline.ts';
import { Unavailable } from '../../shared/domain/refusals.ts';
import type { RequestGuard } from '../../shared/http/group.ts';
import { memoryWorkspacePorts } from '../fakes/index.ts';
import { StoppedClock } from '../support/clock.ts';

// A request's calls to Stripe share one deadline (ADR 0169): the function's timeout less 1.5 s to
// answer, from when the request started. Each call's timeout is what is left (3 s at most), a
// retry only when a whole second try fits, no call with less than 250 ms left; so two slow calls
// in a row are a 503 problem+json with retry-after the function still sends, not its timeout.

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
    await expect(late.listInvoices('cus_1', 10, null)).rejects.toBeInstanceOf(Unavailable);
    expect(timeouts()).toEqual([]);
    expect(hits).toBe(before);
  });

  it('without a deadline keeps the client’s own: two tries of 3 s', async () => {
    const { provider, timeouts } = watched();
    await expect(provider.openCheckouts('cus_1')).rejects.toThrow();
    expect(timeouts()).toEqual([3_000, 3_000]);
  });

  it('holds the deadline whatever the SDK does: a call with no answer by then is Unavailable', async () => {
    const never = new Promise<string>(() => {});
    const started = performance.now();
    await expect(byDeadline(never, new Deadline(performance.now() + 60))).rejects.toBeInstanceOf(Unavailable);
    expect(performance.now() - started).toBeLessThan(1_000);
    await expect(byDeadline(Promise.resolve('made'), new Deadline(performance.now() + 60))).resolves.toBe('made');
    expect(byDeadline(never, Deadline.none)).toBe(never);
  });
});

describe('a checkout while Stripe is slow (a customer answered after 0.5 s, a session after 1.5 s)', () => {
  const delayMs: Record<string, number> = { '/v1/customers': 500, '/v1/checkout/sessions': 1_500 };
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
    // A function of 1.5 s with 0.4 s to answer: the calls have 1.1 s. Without a deadline the two
    // calls would answer after 2 s, past the function's timeout.
    const functionTimeoutMs = 1_500;
    const { handler, billing } = billingHandler({ functionTimeoutMs, replyMarginMs: 400 });
    const { result, elapsed, problem } = await checkout(handler, {});
    expect(result.statusCode).toBe(503);
    expect(result.headers?.['content-type']).toBe('application/problem+json');
    expect(result.headers?.['retry-after']).toBe('60');
    expect(problem).toMatchObject({ status: 503, code: 'provider_unavailable' });
    expect(elapsed).toBeLessThan(functionTimeoutMs);
    expect(elapsed).toBeGreaterThanOrEqual(1_100 - 50);
    // The customer was made and kept (the next checkout uses it); the session was asked with the
    // 0.6 s that was left, and hung up on at the deadline (the slow Stripe hears of it a moment later).
    await vi.waitFor(() => expect(asked[1]?.abandoned).toBe(true), { timeout: 500, interval: 5 });
    expect(asked).toEqual([
      { method: 'POST', path: '/v1/customers', abandoned: false },
      { method: 'POST', path: '/v1/checkout/sessions', abandoned: true },
    ]);
    expect(await billing.customerOf('usr_buyer')).toBe('cus_slow');
  });

  it('in Lambda, by the invocation’s remaining time: once too little is left the second call is not made', async () => {
    // The invocation has 2.15 s left, 1.5 s of it kept to answer: 0.65 s, of which the customer
    // takes 0.5 s; with less than 0.25 s left the session is not asked for.
    const invocationLeftMs = 2_150;
    const { handler } = billingHandler();
    const { result, elapsed, problem } = await checkout(handler, { getRemainingTimeInMillis: () => invocationLeftMs });
    expect([result.statusCode, result.headers?.['retry-after'], problem.code]).toEqual([503, '60', 'provider_unavailable']);
    expect(elapsed).toBeLessThan(invocationLeftMs);
    expect(asked.map((entry) => entry.path)).toEqual(['/v1/customers']);
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
