import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { priceObject } from '../../local/stripe/objects.ts';
import { LazyStripePrices } from '../../shared/adapters/stripePrices.ts';
import { Deadline } from '../../shared/deadline.ts';
import { listPlanPrices, PriceCache, priceCacheMs } from '../../shared/domain/billing/prices.ts';
import { Unavailable } from '../../shared/domain/refusals.ts';
import { StoppedClock } from '../support/clock.ts';

// The adapter's one call, as Stripe gets it: GET /v1/prices/{id}, no body, the secret key as the
// bearer; and the price read from Stripe's wire format (the emulator's own price object).

interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
  contentLength: string | undefined;
  body: string;
}

let server: Server;
let apiUrl: string;
const seen: Seen[] = [];
let answer: (url: string) => { status: number; body: unknown } = () => ({ status: 500, body: {} });

beforeAll(async () => {
  server = createServer((request: IncomingMessage, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      seen.push({
        method: request.method ?? '',
        url: request.url ?? '',
        authorization: request.headers.authorization,
        contentLength: request.headers['content-length'],
        body,
      });
      const { status, body: reply } = answer(request.url ?? '');
      response.writeHead(status, { 'content-type': 'application/json', 'request-id': 'req_prices' });
      response.end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const catalog = () => new LazyStripePrices(async () => ({ secretKey: 'sk_test_prices', webhookSecret: 'whsec_x', apiUrl }));

describe('the provider’s prices (Stripe SDK)', () => {
  it('asks GET /v1/prices/{id} with the secret key and nothing else, and reads the price', async () => {
    seen.splice(0);
    answer = () => ({
      status: 200,
      body: priceObject({ id: 'price_pro_monthly', unit_amount: 1200, currency: 'usd', nickname: 'Pro' }, 0),
    });
    const price = await catalog().within(Deadline.none).retrievePrice('price_pro_monthly');
    expect(price).toEqual({ id: 'price_pro_monthly', unitAmount: 1200, currency: 'usd', interval: 'month' });
    expect(seen).toEqual([
      { method: 'GET', url: '/v1/prices/price_pro_monthly', authorization: 'Bearer sk_test_prices', contentLength: undefined, body: '' },
    ]);
  });

  it('a 5xx is Unavailable (503), as an unknown price id is', async () => {
    answer = () => ({ status: 500, body: { error: { type: 'api_error', message: 'down' } } });
    await expect(catalog().within(Deadline.none).retrievePrice('price_pro_monthly')).rejects.toBeInstanceOf(Unavailable);
    answer = () => ({
      status: 404,
      body: { error: { type: 'invalid_request_error', code: 'resource_missing', message: 'No such price' } },
    });
    await expect(catalog().within(Deadline.none).retrievePrice('price_gone')).rejects.toBeInstanceOf(Unavailable);
  });
});

describe('listPlanPrices', () => {
  const config = { PRICE_PRO: 'price_pro', PRICE_TEAM_SEAT: 'price_seat' };
  const prices = {
    price_pro: { id: 'price_pro', unitAmount: 1500, currency: 'eur', interval: 'month' as const },
    price_seat: { id: 'price_seat', unitAmount: null, currency: 'eur', interval: 'month' as const },
  };

  it('answers each plan’s price per what it buys, leaves out one without an amount, and keeps them a few minutes', async () => {
    const clock = new StoppedClock();
    const asked: string[] = [];
    const ports = {
      clock,
      config,
      priceCache: new PriceCache(),
      prices: { retrievePrice: async (id: string) => (asked.push(id), prices[id as keyof typeof prices]) },
    };
    const expected = [{ plan: 'pro', interval: 'month', unit_amount: 1500, currency: 'eur', per: 'account' }];
    expect(await listPlanPrices(ports)).toEqual(expected);
    expect(await listPlanPrices(ports)).toEqual(expected);
    expect(asked).toEqual(['price_pro', 'price_seat']);
    clock.advance(priceCacheMs / 1000);
    await listPlanPrices(ports);
    expect(asked).toHaveLength(4);
  });
});
