/**
 * The account pages of issue 31, end to end in one runtime: API keys and Devices confirm before
 * they revoke or sign out, and show a loading line and an error with "Retry"; a key form's
 * refusal stands beside its field; Webhooks' "Send test" with no key pasted makes a one-hour key,
 * tests with it and revokes it; Plans shows the provider's prices (and says when it cannot);
 * "Add to Slack" ends on a styled page; and a reload after a secret's last view says it was
 * opened, not that the link is incomplete. Screenshots at 1280×800 and 390×844, light and dark.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { priceCacheMs, priceFailureMs } from '../../shared/domain/billing/prices.ts';
import { sealText, toBase64 } from '../../shared/envelope/index.ts';
import { newEmail, signIn } from '../support/accounts.ts';
import { apiClient } from '../support/runtime.ts';
import { settleTraffic, signInThroughPage, startRuntimeAndBrowser, stopRuntimeAndBrowser, Session } from './harness.ts';

let runtime: Runtime;
let browser: Browser;
let api: ReturnType<typeof apiClient>;
let receiver: Server;
let receiverUrl: string;
const received: string[] = [];

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push(Buffer.concat(chunks).toString('utf8'));
      response.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  ({ runtime, browser } = await startRuntimeAndBrowser());
  api = apiClient(runtime);
}, 180_000);

afterAll(async () => {
  await stopRuntimeAndBrowser(runtime, browser);
  receiver?.closeAllConnections();
  await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
});

const ready = (s: Session, page: string) => s.page.waitForSelector(`html[data-ready="${page}"]`);
const path = (url: string) => new URL(url).pathname;

/** No CSP violation or page error; in web storage at most the sign-in's own entry, and no key. */
async function finish(s: Session, secrets: string[] = []): Promise<void> {
  expect(await s.problems(), `CSP violations or page errors in ${s.name}`).toEqual([]);
  const stored = await s.webStorage();
  // The sign-in's own entries only (where they are kept is the sign-in's ADR, not these pages').
  const signInEntries = ['hushlink.session', 'hushlink.refresh-token'];
  expect(Object.keys(stored.local).filter((key) => !signInEntries.includes(key))).toEqual([]);
  expect(Object.keys(stored.session).filter((key) => !signInEntries.includes(key))).toEqual([]);
  expect(stored.cookies).toBe('');
  expect(stored.indexedDb).toEqual([]);
  for (const secret of secrets) expect(JSON.stringify(stored).includes(secret)).toBe(false);
  await s.close();
}

const sizes = [
  { label: 'desktop', width: 1280, height: 800 },
  { label: 'phone', width: 390, height: 844 },
] as const;

/** Four screenshots of the page as it is: both sizes, light and dark. */
async function screenshots(s: Session, name: string): Promise<void> {
  for (const size of sizes) {
    await s.page.setViewportSize({ width: size.width, height: size.height });
    for (const scheme of ['light', 'dark'] as const) {
      await s.page.emulateMedia({ colorScheme: scheme });
      await s.screenshot(`${name}-${size.label}-${scheme}`);
    }
  }
  await s.page.emulateMedia({ colorScheme: 'light' });
  await s.page.setViewportSize({ width: 1280, height: 800 });
}

/** Holds the page's first `GET <pathname>` until released: the loading line can be read meanwhile. */
async function holdFirst(s: Session, pathname: string): Promise<() => Promise<void>> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held = false;
  const matches = (url: URL) => url.pathname === pathname;
  await s.page.route(matches, async (route: Route) => {
    if (held || route.request().method() !== 'GET') return route.fallback();
    held = true;
    await released;
    await route.fallback();
  });
  return async () => {
    release();
    await s.page.unroute(matches);
  };
}

describe('API keys', () => {
  it('loads with a status line, refuses beside the field, and revokes only after its confirm step', async () => {
    const s = await Session.open(browser, 'keys', { viewport: { width: 1280, height: 800 } });
    const { page } = s;
    await signInThroughPage(s, runtime, newEmail('account-pages-keys'));

    // Loading: a status line until the list answers.
    const release = await holdFirst(s, '/v1/api-keys');
    await page.goto(`${runtime.url}/keys`);
    await page.waitForSelector('.loading-line[role="status"]');
    await release();
    await ready(s, 'keys');
    expect(await page.locator('.loading-line').count()).toBe(0);

    // A read that fails: the error, and "Retry" that reads again.
    const keysList = (url: URL) => url.pathname === '/v1/api-keys';
    await page.route(keysList, (route) =>
      route.request().method() === 'GET'
        ? route.fulfill({
            status: 503,
            contentType: 'application/problem+json',
            body: JSON.stringify({ status: 503, title: 'Unavailable', detail: 'Try again in a minute.' }),
          })
        : route.fallback(),
    );
    await page.reload();
    await page.waitForSelector('#keys-error:not([hidden])');
    expect(await page.textContent('#keys-error')).toContain('Your keys could not be listed');
    await page.unroute(keysList);
    await page.click('button[data-action="retry"]');
    await page.waitForSelector('#keys-error', { state: 'hidden' });
    await page.waitForSelector('#keys-empty:not([hidden])');

    // An empty name: said under the name field, which is marked and focused.
    await page.fill('#key-name', '');
    await page.click('#create-key');
    await page.waitForSelector('#key-name-error:not([hidden])');
    expect(await page.textContent('#key-name-error')).toBe('Give the key a name.');
    expect(await page.getAttribute('#key-name', 'aria-invalid')).toBe('true');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('key-name');
    expect(await page.isVisible('#key-errors')).toBe(false);

    await page.fill('#key-name', 'deploy script');
    await page.click('#create-key');
    await page.waitForSelector('#new-key:not([hidden])');
    const key = await page.inputValue('#new-key-value');
    await page.click('#new-key-done');
    const item = page.locator('#keys > li').first();
    await item.waitFor();
    await screenshots(s, 'account-pages-keys');

    // Revoke asks first: "Keep it" sends nothing; "Yes, revoke it" revokes.
    const deletes = () => s.apiRequests().filter((request) => request.method === 'DELETE');
    await item.locator('button[data-action="revoke"]').click();
    expect(await item.locator('[data-role="confirm-revoke"]').isVisible()).toBe(true);
    expect(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.action)).toBe('confirm-revoke');
    await s.screenshot('account-pages-keys-confirm-revoke');
    await item.locator('button[data-action="cancel-revoke"]').click();
    expect(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.action)).toBe('revoke');
    await settleTraffic();
    expect(deletes()).toEqual([]);
    await item.locator('button[data-action="revoke"]').click();
    await item.locator('button[data-action="confirm-revoke"]').click();
    await page.waitForSelector('#keys-empty:not([hidden])');
    await settleTraffic();
    expect(deletes().map((request) => path(request.url))).toEqual([expect.stringMatching(/^\/v1\/api-keys\/.+/)]);
    const used = await api.get('/v1/secrets', { authorization: `Bearer ${key}` });
    expect(used.status).toBe(401);
    await finish(s, [key]);
  });
});

describe('Devices', () => {
  it('signs out everywhere, and this device, only after a confirm step', async () => {
    const s = await Session.open(browser, 'devices', { viewport: { width: 1280, height: 800 } });
    const { page } = s;
    await signInThroughPage(s, runtime, newEmail('account-pages-devices'));
    await page.goto(`${runtime.url}/sessions`);
    await ready(s, 'sessions');
    await page.locator('#devices > li').first().waitFor();
    await screenshots(s, 'account-pages-devices');

    const signOuts = () => s.apiRequests().filter((request) => /^\/v1\/auth\/logout/.test(path(request.url)));
    await page.click('#sign-out-everywhere');
    expect(await page.isVisible('[data-role="confirm-sign-out-everywhere"]')).toBe(true);
    await s.screenshot('account-pages-devices-confirm-everywhere');
    await page.click('button[data-action="cancel-sign-out-everywhere"]');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('sign-out-everywhere');
    await page.click('#sign-out-here');
    expect(await page.isVisible('[data-role="confirm-sign-out-everywhere"]')).toBe(false);
    expect(await page.isVisible('[data-role="confirm-sign-out-here"]')).toBe(true);
    await page.click('button[data-action="cancel-sign-out-here"]');
    await settleTraffic();
    expect(signOuts()).toEqual([]);

    await page.click('#sign-out-here');
    await page.click('button[data-action="confirm-sign-out-here"]');
    await page.waitForURL((url) => url.pathname === '/signin');
    expect(new URL(page.url()).searchParams.get('reason')).toBe('signed-out');
    await settleTraffic();
    expect(signOuts().map((request) => path(request.url))).toEqual(['/v1/auth/logout']);
    await finish(s);
  });
});

describe('Webhooks', () => {
  it('"Send test" with no key pasted makes a one-hour key, tests with it and revokes it at once', async () => {
    const email = newEmail('account-pages-webhooks');
    const s = await Session.open(browser, 'webhooks', { viewport: { width: 1280, height: 800 } });
    const { page } = s;
    await signInThroughPage(s, runtime, email, '/webhooks');
    await ready(s, 'webhooks');
    await page.fill('#webhook-url', receiverUrl);
    await page.click('#add-webhook');
    await page.waitForSelector('#new-secret:not([hidden])');
    await page.click('#new-secret-done');
    const endpoint = page.locator('#webhooks > li').first();
    await endpoint.waitFor();
    const endpointId = (await endpoint.getAttribute('data-id'))!;

    const before = s.apiRequests().length;
    expect(await page.inputValue('#test-key')).toBe('');
    await endpoint.locator('button[data-action="test"]').click();
    const queued = endpoint.locator('[data-role="test-result"]');
    await queued.waitFor({ state: 'visible' });
    expect(await queued.getAttribute('data-queued')).toBe('true');
    expect(await queued.getAttribute('data-key-revoked')).toBe('true');
    expect(await queued.getAttribute('data-delivery-id')).toMatch(/^dlv_/);
    expect(await queued.textContent()).toContain('revoked it straight after');

    await settleTraffic();
    const calls = s
      .apiRequests()
      .slice(before)
      .filter((request) => /^\/v1\/(api-keys|webhooks\/[^/]+\/test)/.test(path(request.url)));
    expect(calls.map((request) => `${request.method} ${path(request.url).replace(/\/v1\/api-keys\/.+/, '/v1/api-keys/{id}')}`)).toEqual([
      'POST /v1/api-keys',
      `POST /v1/webhooks/${endpointId}/test`,
      'DELETE /v1/api-keys/{id}',
    ]);
    const [made, test, revoked] = calls as [(typeof calls)[number], (typeof calls)[number], (typeof calls)[number]];
    expect(JSON.parse(made.body ?? '{}')).toEqual({
      name: 'Webhook test (made by this page)',
      scopes: ['receipts:read'],
      expires_in: 3600,
    });
    expect(made.headers.authorization).toMatch(/^Bearer eyJ/);
    expect(test.headers.authorization).toMatch(/^Bearer hlk_/);
    expect(revoked.headers.authorization).toMatch(/^Bearer eyJ/);
    // The key no longer works, and the account keeps no key from the test.
    expect((await api.post(`/v1/webhooks/${endpointId}/test`, undefined, { authorization: test.headers.authorization! })).status).toBe(401);
    const owner = await signIn(runtime, email);
    expect((await api.get('/v1/api-keys', owner.auth)).body.items).toEqual([]);
    await runtime.drainWork();
    expect(received.some((body) => body.includes('"webhook.test"'))).toBe(true);
    await screenshots(s, 'account-pages-webhooks');

    // Delete keeps the one confirm pattern.
    await endpoint.locator('button[data-action="delete"]').click();
    expect(await endpoint.locator('button[data-action="confirm-delete"]').isVisible()).toBe(true);
    await endpoint.locator('button[data-action="cancel-delete"]').click();
    await finish(s);
  });
});

describe('Plans', () => {
  it('shows the provider’s prices; says when they cannot be loaded, and loads them again', async () => {
    const s = await Session.open(browser, 'plans', { viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    const { page } = s;
    await page.goto(`${runtime.url}/plans`);
    await ready(s, 'plans');
    const price = (plan: string) => page.textContent(`li[data-plan="${plan}"] [data-role="price"] dd`);
    expect(await price('pro')).toBe('$12.00 a month, for your account');
    expect(await price('team')).toBe('$8.00 a month, per seat');
    expect(await price('free')).toBe('No payment.');
    expect(await page.isVisible('#plans-prices-error')).toBe(false);
    await screenshots(s, 'account-pages-plans');

    // The provider unreachable (and the function's copy too old): the plans without prices, and one line.
    runtime.stripe.failNextRequests(1000);
    runtime.clock.advance(priceCacheMs / 1000 + 1);
    await page.reload();
    await ready(s, 'plans');
    expect(await page.textContent('#plans-prices-error')).toContain('Prices could not be loaded');
    expect(await price('pro')).toContain('the payment page shows it before you pay');
    expect(await page.locator('#plans > li').count()).toBe(4);
    await s.screenshot('account-pages-plans-no-prices');
    runtime.stripe.failNextRequests(0);
    // The function answers its refusal again for its minute (retry-after 60) without asking the provider.
    runtime.clock.advance(priceFailureMs / 1000 + 1);
    await page.click('button[data-action="retry-prices"]');
    await page.waitForSelector('#plans-prices-error', { state: 'hidden' });
    // The line goes as the new read starts ("Loading the price…"); the price follows its answer.
    await expect.poll(() => price('pro')).toBe('$12.00 a month, for your account');
    await finish(s);
  });
});

describe('the page after Add to Slack', () => {
  it('is the web client’s styled page with the site header, naming the team', async () => {
    const s = await Session.open(browser, 'chat-installed', { viewport: { width: 1280, height: 800 } });
    const { page } = s;
    await page.goto(`${runtime.url}/chat/installed?${new URLSearchParams({ team: 'Acme <Ops>' })}`);
    await ready(s, 'chat-installed');
    expect(await page.textContent('h1')).toBe('Hushlink is installed in Acme <Ops>');
    expect(await page.locator('h1 *:not(#installed-team)').count()).toBe(0);
    expect(await page.isVisible('header.site-header')).toBe(true);
    expect(await page.locator('.chat-installed-steps > li').count()).toBe(3);
    await screenshots(s, 'account-pages-chat-installed');
    // A name no callback sends is not shown.
    await page.goto(`${runtime.url}/chat/installed?team=${'x'.repeat(500)}`);
    await ready(s, 'chat-installed');
    expect(await page.textContent('h1')).toBe('Hushlink is installed in your Slack workspace');
    await finish(s);
  });
});

describe('the reveal page’s ending', () => {
  it('a reload after the last view says the secret was opened and is gone; without a key on a live secret, that the link is incomplete', async () => {
    const sealed = await sealText('the last view');
    const created = await api.post('/v1/secrets', {
      kind: 'text',
      envelope: toBase64(sealed.envelope),
      salt: sealed.salt,
      size_bytes: sealed.envelope.length,
      max_views: 1,
      claim_verifier: sealed.claimVerifier,
      link_verifier: sealed.linkVerifier,
    });
    expect(created.status).toBe(201);
    const s = await Session.open(browser, 'reveal-ending', { viewport: { width: 1280, height: 800 } });
    const { page } = s;

    // The key is still needed while the secret is there.
    await page.goto(created.body.url_base);
    expect(await s.message()).toBe('missing-key');

    // A new document (not the same page with a fragment added), as opening the link is.
    await page.goto('about:blank');
    await page.goto(`${created.body.url_base}#${sealed.key}`);
    await page.waitForSelector('html[data-screen="ready"]');
    await page.click('#reveal-button');
    await page.waitForSelector('html[data-screen="revealed"]');
    expect(await page.inputValue('#secret-text')).toBe('the last view');
    expect(new URL(page.url()).hash).toBe('');

    await page.reload();
    expect(await s.message()).toBe('opened-gone');
    expect(await page.textContent('#message-title')).toBe('This secret was opened, and it is gone');
    expect(await page.textContent('#screen-message')).not.toContain('incomplete');
    await settleTraffic();
    // The reload asked the secret's state (a read that needs no key) and claimed nothing.
    const afterReload = s.apiRequests().filter((request) => request.method === 'POST' && path(request.url).endsWith('/claim'));
    expect(afterReload).toHaveLength(1);
    await s.screenshot('account-pages-reveal-opened-gone');
    await finish(s, [sealed.key]);
  });
});
