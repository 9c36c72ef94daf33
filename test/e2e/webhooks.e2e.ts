/**
 * The webhooks page end to end, against a real receiver on 127.0.0.1 (local mode lets webhook
 * URLs be `http://` to loopback): add an endpoint (the signing secret shown once, errors next
 * to their field), send a test delivery with a pasted API key, let the in-process queue
 * deliver it, verify its `service-signature` with the secret the page showed, read the
 * delivery log (attempts, body sent, refresh, more) and delete with a confirm step. Every
 * request the browser makes is recorded: the signing secret is never sent, the API key only
 * as the bearer of the test call, and neither is ever stored.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { verifyWebhook } from '../../shared/webhooks/verify.ts';
import { latestCode, newEmail } from '../support/accounts.ts';
import { apiClient } from '../support/runtime.ts';
import {
  findLeaks,
  guard as guardValue,
  refreshCookie,
  Session,
  sessionMarker,
  settleTraffic,
  startRuntimeAndBrowser,
  stopRuntimeAndBrowser,
} from './harness.ts';

let runtime: Runtime;
let browser: Browser;
let api: ReturnType<typeof apiClient>;
/** Signing secrets: no browser may ever send one (it is shown once, and that is all). */
const guarded = new Map<string, string>();
const guard = (label: string, value: string) => guardValue(guarded, label, value);
/** API keys pasted into the page: sent only as the bearer of `POST /v1/webhooks/{id}/test`. */
const pastedKeys = new Set<string>();
/** What the API answered to the browsers: the bodies of `GET /v1/webhooks`, for the secret check. */
const listBodies: string[] = [];
const pendingBodies: Promise<void>[] = [];

interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}
/** Everything the receiver was sent, in order; it answers `receiverStatus`. */
const received: Received[] = [];
let receiver: Server;
let receiverUrl: string;

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks) });
      response.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/hushlink`;
  ({ runtime, browser } = await startRuntimeAndBrowser());
  api = apiClient(runtime);
}, 180_000);

afterAll(async () => {
  await stopRuntimeAndBrowser(runtime, browser);
  receiver?.closeAllConnections();
  await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
});

async function session(name: string): Promise<Session> {
  const s = await Session.open(browser, name);
  s.context.on('response', (response) => {
    const url = new URL(response.url());
    if (url.pathname === '/v1/webhooks' && response.request().method() === 'GET') {
      pendingBodies.push(
        response.text().then(
          (body) => void listBodies.push(body),
          () => undefined,
        ),
      );
    }
  });
  return s;
}

const ready = (s: Session, page: string) => s.page.waitForSelector(`html[data-ready="${page}"]`);

/** Opens /webhooks signed out: sign-in first (the code from the outbox), then back to it. */
async function signInTo(s: Session, email: string): Promise<void> {
  const { page } = s;
  await page.goto(`${runtime.url}/webhooks`);
  await page.waitForURL((url) => url.pathname === '/signin');
  expect(new URL(page.url()).searchParams.get('next')).toBe('/webhooks');
  await ready(s, 'signin');
  await page.fill('#email', email);
  await page.click('#send-code');
  await page.waitForSelector('html[data-step="code"]');
  const code = latestCode(runtime, email);
  if (!code) throw new Error(`no code was mailed to ${email}`);
  await page.fill('#code', code);
  await page.click('#verify-button');
  await page.waitForURL((url) => url.pathname === '/webhooks');
  await ready(s, 'webhooks');
}

/** Everything the page shows or holds in its fields, as text. */
const pageText = (s: Session) =>
  s.page.evaluate(() => {
    const values = [...document.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('input, textarea')].map((field) => field.value);
    return `${document.documentElement.outerHTML}\n${values.join('\n')}`;
  });

/**
 * What every page must pass before its session is closed: no CSP violation or page error, nothing
 * stored but the session's marker (the refresh token is the HttpOnly cookie, ADR 0178, which no
 * script reads and no storage holds).
 */
async function finish(s: Session): Promise<void> {
  expect(await s.problems(), `CSP violations or page errors in ${s.name}`).toEqual([]);
  const stored = await s.webStorage();
  expect(stored.local).toEqual(sessionMarker);
  expect(stored.session).toEqual({});
  expect(stored.cookies).toBe('');
  const cookie = await refreshCookie(s);
  expect(cookie, 'the sign-in’s refresh cookie').toBeDefined();
  expect(JSON.stringify(stored).includes(cookie!), 'the cookie’s refresh token in web storage').toBe(false);
  expect(stored.indexedDb).toEqual([]);
  const everything = JSON.stringify(stored);
  for (const [label, value] of guarded) expect(everything.includes(value), `${label} in web storage`).toBe(false);
  for (const key of pastedKeys) expect(everything.includes(key), 'an API key in web storage').toBe(false);
  await s.close();
}

describe('webhooks page', () => {
  it('is served at /webhooks with the hardening headers, without inline script or style', async () => {
    const response = await fetch(`${runtime.url}/webhooks`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await response.text();
    expect(html).toContain('<script type="module" src="/assets/webhooks.js"></script>');
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|\sstyle=/);
    expect(html).toContain('<a href="/webhooks" aria-current="page" data-i18n="common.nav.webhooks">Webhooks</a>');
    expect((await fetch(`${runtime.url}/assets/webhooks.js`)).status).toBe(200);
  });

  it('adds an endpoint, shows its secret once, sends a signed test with a pasted API key, logs it, and deletes it', async () => {
    const s = await session('webhooks');
    const { page } = s;
    await signInTo(s, newEmail('webhooks'));
    expect(await page.isVisible('#webhooks-empty')).toBe(true);
    expect(await page.getAttribute('header nav a[href="/webhooks"]', 'aria-current')).toBe('page');
    expect(await page.isVisible('header nav a[href="/webhooks"]')).toBe(true);

    // 1. A URL the API refuses: its message next to the URL field, which is marked and focused.
    await page.fill('#webhook-url', 'http://example.com/hook');
    await page.click('#add-webhook');
    await page.waitForSelector('#webhook-url-error:not([hidden])');
    expect(await page.textContent('#webhook-url-error')).toContain('https');
    expect(await page.getAttribute('#webhook-url', 'aria-invalid')).toBe('true');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('webhook-url');
    expect(await page.isVisible('#webhook-errors')).toBe(false);
    expect(await page.isVisible('#new-secret')).toBe(false);

    // 2. The receiver, two events: 201, the secret shown once in a read-only field with Copy.
    await page.fill('#webhook-url', receiverUrl);
    await page.check('#event-secret-viewed');
    await page.check('#event-secret-burned');
    await page.click('#add-webhook');
    await page.waitForSelector('#new-secret:not([hidden])');
    expect(await page.isVisible('#webhook-url-error')).toBe(false);
    expect(await page.getAttribute('#webhook-url', 'aria-invalid')).toBeNull();
    const secret = await page.inputValue('#new-secret-value');
    expect(secret).toMatch(/^whsec_/);
    guard('signing secret', secret);
    expect(await page.textContent('#new-secret')).toContain('You will not see this again');
    expect(await page.isVisible('#copy-secret')).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('new-secret-title');
    await settleTraffic();
    const registered = s.apiRequests().filter((request) => request.method === 'POST' && new URL(request.url).pathname === '/v1/webhooks');
    expect(registered.map((request) => JSON.parse(request.body))).toEqual([
      { url: 'http://example.com/hook' },
      { url: receiverUrl, events: ['secret.viewed', 'secret.burned'] },
    ]);
    expect(registered.every((request) => /^Bearer eyJ/.test(request.headers.authorization ?? ''))).toBe(true);

    const endpoint = page.locator('#webhooks > li');
    await endpoint.waitFor();
    expect(await endpoint.count()).toBe(1);
    const endpointId = (await endpoint.getAttribute('data-id'))!;
    expect(endpointId).toMatch(/^whk_/);
    expect(await endpoint.getAttribute('data-enabled')).toBe('true');
    expect(await endpoint.locator('.item-title').textContent()).toBe(receiverUrl);
    expect(await endpoint.locator('[data-role="state"]').textContent()).toBe('On');
    expect(await endpoint.locator('[data-role="events"] dd').textContent()).toBe('secret.viewed, secret.burned');
    expect(await endpoint.locator('[data-role="failures"] dd').textContent()).toBe('0 in a row');
    await s.screenshot('webhooks-added');

    // 3. "Done, hide it" takes the secret off the page.
    await page.click('#new-secret-done');
    expect(await page.isVisible('#new-secret')).toBe(false);
    expect(await page.inputValue('#new-secret-value')).toBe('');

    // 4. After a reload the secret is nowhere: not in the list, not in what the API listed.
    await page.reload();
    await ready(s, 'webhooks');
    await page.locator('#webhooks > li').waitFor();
    expect(await pageText(s)).not.toContain(secret);
    await Promise.all(pendingBodies);
    expect(listBodies.length).toBeGreaterThanOrEqual(2);
    for (const body of listBodies) expect(body).not.toContain(secret);
    expect(listBodies.at(-1)).toContain(endpointId);

    // 5. "Send test" with something pasted that is not an API key: said next to the key field, and
    // nothing is sent. (With the field empty the page makes a key for the test: pages-account.e2e.ts.)
    const testsSent = () =>
      s.apiRequests().filter((request) => request.method === 'POST' && /^\/v1\/webhooks\/[^/]+\/test$/.test(new URL(request.url).pathname));
    await page.fill('#test-key', 'whsec_not-an-api-key');
    await endpoint.locator('button[data-action="test"]').click();
    await page.waitForSelector('#test-key-error:not([hidden])');
    expect(await page.textContent('#test-key-error')).toContain('That is not an API key');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('test-key');
    await settleTraffic();
    expect(testsSent()).toEqual([]);
    await page.fill('#test-key', '');

    // 6. An API key from the keys page (through the navigation), and back.
    await page.click('header nav a:has-text("API keys")');
    await ready(s, 'keys');
    await page.fill('#key-name', 'webhook tests');
    await page.click('#create-key');
    await page.waitForSelector('#new-key:not([hidden])');
    const apiKey = await page.inputValue('#new-key-value');
    expect(apiKey).toMatch(/^hlk_/);
    pastedKeys.add(apiKey);
    await page.click('header nav a:has-text("Webhooks")');
    await page.waitForURL((url) => url.pathname === '/webhooks');
    await ready(s, 'webhooks');
    expect(await page.inputValue('#test-key')).toBe('');
    expect(await page.getAttribute('#test-key', 'type')).toBe('password');

    // 7. Pasted, "Send test": 202 with the key as the bearer (never the session's token).
    await page.fill('#test-key', apiKey);
    await endpoint.locator('button[data-action="test"]').click();
    const queued = endpoint.locator('[data-role="test-result"]');
    await queued.waitFor({ state: 'visible' });
    const deliveryId = (await queued.getAttribute('data-delivery-id'))!;
    expect(deliveryId).toMatch(/^dlv_/);
    expect(await queued.textContent()).toContain('Test delivery queued');
    await settleTraffic();
    expect(testsSent().map((request) => [new URL(request.url).pathname, request.headers.authorization])).toEqual([
      [`/v1/webhooks/${endpointId}/test`, `Bearer ${apiKey}`],
    ]);
    // The log opened and shows it queued (nothing sent yet: the queue has not run).
    const delivery = endpoint.locator(`[data-role="deliveries"] > li[data-id="${deliveryId}"]`);
    await delivery.waitFor();
    expect(await delivery.getAttribute('data-status')).toBe('pending');
    expect(received).toEqual([]);

    // 8. The queue delivers it: a webhook.test POST whose signature verifies with the shown secret.
    await runtime.drainWork();
    expect(received).toHaveLength(1);
    const [hit] = received;
    expect(hit!.method).toBe('POST');
    expect(hit!.path).toBe('/hooks/hushlink');
    expect(hit!.headers['content-type']).toBe('application/json');
    const sentBody = JSON.parse(hit!.body.toString('utf8'));
    expect(sentBody).toMatchObject({ type: 'webhook.test', secret_id: null, views_left: null });
    expect(verifyWebhook({ rawBody: hit!.body, header: hit!.headers['service-signature'], secret })).toMatchObject({ ok: true });
    expect(verifyWebhook({ rawBody: hit!.body, header: hit!.headers['service-signature'], secret: `${secret}x` })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
    expect(hit!.body.toString('utf8')).not.toContain(secret);

    // 9. Refresh: delivered, attempt 1 answered 200, and the exact body that was sent.
    await endpoint.locator('button[data-action="refresh"]').click();
    await endpoint.locator(`[data-role="deliveries"] > li[data-id="${deliveryId}"][data-status="delivered"]`).waitFor();
    expect(await delivery.locator('[data-role="status"]').textContent()).toBe('Delivered');
    const attempts = delivery.locator('[data-role="attempts"] > li');
    expect(await attempts.count()).toBe(1);
    expect(await attempts.first().getAttribute('data-status')).toBe('200');
    expect(await attempts.first().textContent()).toMatch(/^Attempt 1, .+: HTTP 200, \d+ ms$/);
    expect(await delivery.locator('[data-role="body"]').inputValue()).toBe(hit!.body.toString('utf8'));
    expect(await delivery.locator('.item-title').textContent()).toBe('webhook.test');
    await s.screenshot('webhooks-delivered');
    await page.setViewportSize({ width: 360, height: 740 });
    await page.waitForFunction(() => document.documentElement.clientWidth <= 360);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await s.screenshot('webhooks-narrow');
    await page.setViewportSize({ width: 1000, height: 900 });

    // 10. Ten more tests (through the API, same key), each sent before the next (at most five
    // may be pending): the log pages by ten, "More" shows the rest.
    for (let i = 0; i < 10; i++) {
      runtime.clock.advance(1);
      expect((await api.post(`/v1/webhooks/${endpointId}/test`, undefined, { authorization: `Bearer ${apiKey}` })).body).toMatchObject({
        queued: true,
      });
      await runtime.drainWork();
    }
    expect(received).toHaveLength(11);
    await endpoint.locator('button[data-action="refresh"]').click();
    const logItems = endpoint.locator('[data-role="deliveries"] > li');
    await page.waitForFunction(() => document.querySelectorAll('#webhooks [data-role="deliveries"] > li').length === 10);
    expect(await endpoint.locator(`[data-role="deliveries"] > li[data-id="${deliveryId}"]`).count()).toBe(0); // newest first
    const more = endpoint.locator('button[data-action="more"]');
    expect(await more.isVisible()).toBe(true);
    await more.click();
    await page.waitForFunction(() => document.querySelectorAll('#webhooks [data-role="deliveries"] > li').length === 11);
    expect(await logItems.last().getAttribute('data-id')).toBe(deliveryId);
    await page.waitForFunction(() => !document.querySelector('#webhooks button[data-action="more"]:not([hidden])'));
    const pages = s.apiRequests().filter((request) => new URL(request.url).pathname === `/v1/webhooks/${endpointId}/deliveries`);
    expect(new URL(pages.at(-1)!.url).searchParams.get('cursor')).toBeTruthy();
    expect(pages.every((request) => /^Bearer eyJ/.test(request.headers.authorization ?? ''))).toBe(true);

    // 10b. With five test deliveries still waiting, "Send test" says nothing was queued.
    for (let i = 0; i < 5; i++) {
      expect((await api.post(`/v1/webhooks/${endpointId}/test`, undefined, { authorization: `Bearer ${apiKey}` })).body).toMatchObject({
        queued: true,
      });
    }
    await endpoint.locator('button[data-action="test"]').click();
    await page.waitForSelector(`#webhooks [data-role="test-result"][data-queued="false"]`);
    expect(await queued.textContent()).toContain('Not queued: 5 test deliveries');
    await s.screenshot('webhooks-test-not-queued');
    await runtime.drainWork();
    expect(received).toHaveLength(16);

    // 11. Delete asks first; "Keep it" sends nothing, "Yes, delete it" removes it.
    const deletes = () => s.apiRequests().filter((request) => request.method === 'DELETE');
    await endpoint.locator('button[data-action="delete"]').click();
    const confirm = endpoint.locator('[data-role="confirm"]');
    expect(await confirm.isVisible()).toBe(true);
    expect(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.action)).toBe('confirm-delete');
    await s.screenshot('webhooks-confirm-delete');
    await endpoint.locator('button[data-action="cancel-delete"]').click();
    expect(await confirm.isVisible()).toBe(false);
    await settleTraffic();
    expect(deletes()).toEqual([]);
    await endpoint.locator('button[data-action="delete"]').click();
    await endpoint.locator('button[data-action="confirm-delete"]').click();
    await page.waitForSelector('#webhooks-empty:not([hidden])');
    expect(await page.locator('#webhooks > li').count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('webhooks-list-title');
    await settleTraffic();
    expect(deletes().map((request) => new URL(request.url).pathname)).toEqual([`/v1/webhooks/${endpointId}`]);
    // Gone for the API too, after a reload as well.
    await page.reload();
    await ready(s, 'webhooks');
    expect(await page.isVisible('#webhooks-empty')).toBe(true);
    expect((await api.post(`/v1/webhooks/${endpointId}/test`, undefined, { authorization: `Bearer ${apiKey}` })).status).toBe(404);
    await finish(s);
  });

  it('never sent a signing secret, and sent API keys only as the bearer of a test delivery', async () => {
    await Promise.all(pendingBodies);
    const requests = await settleTraffic();
    expect(guarded.size).toBeGreaterThan(0);
    expect(findLeaks(requests, guarded)).toEqual([]);
    expect(pastedKeys.size).toBeGreaterThan(0);
    for (const request of requests) {
      const url = new URL(request.url);
      expect(url.origin, 'no third-party origin').toBe(runtime.url);
      for (const key of pastedKeys) {
        expect(request.url.includes(key), `an API key in the URL ${request.url}`).toBe(false);
        expect(request.body.includes(key), `an API key in the body of ${request.url}`).toBe(false);
        for (const [name, value] of Object.entries(request.headers)) {
          if (!value.includes(key)) continue;
          expect(
            [name, request.method, /^\/v1\/webhooks\/whk_[\w-]+\/test$/.test(url.pathname)],
            `an API key in header ${name} of ${request.method} ${request.url}`,
          ).toEqual(['authorization', 'POST', true]);
        }
      }
    }
  });
});
