/**
 * Every page as people meet it (issue 31): signed out and signed in, at 1280×800 and 390×844, in
 * light and dark. Each visit takes a screenshot (`pages-<name>-<size>-<scheme>.png`) and runs
 * axe-core: 0 critical or serious findings anywhere, 0 moderate on the product pages. The shell's
 * own promises are checked on the way: one header with the current page marked, the skip link,
 * the phone menu at most 64 px tall, the compose button on the first screen, the neutral header
 * and loading lines while the API is slow, "Retry" after a failed list, and the styled 404.
 *
 * One runtime, one browser and one context per sign-in state: sizes and schemes are switched on
 * the page (`setViewportSize`, `emulateMedia`) rather than with new contexts.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { newEmail, signIn as signInOverApi } from '../support/accounts.ts';
import { apiClient } from '../support/runtime.ts';
import { Session, screenshotDir, signInThroughPage, startRuntimeAndBrowser, stopRuntimeAndBrowser } from './harness.ts';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const sizes = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;
const schemes = ['light', 'dark'] as const;

interface Visit {
  name: string;
  path: string;
  /** `html[data-ready]` once the page has started. */
  ready: string;
  /** The header link marked `aria-current`, if any. */
  current?: string;
  /** A product page: no moderate axe finding either. */
  product: boolean;
  /** The page's script resumes the session and renders the header (false: the reveal and responder pages, which do not yet). */
  nav?: false;
  /** Shown once the page's later reads are done (a section loaded after `ready`): axe looks at it too. */
  settled?: string;
}

let runtime: Runtime;
let browser: Browser;
const email = newEmail('pages');
let secretLink = '';
let requestLink = '';
let workspaceId = '';
const started = Date.now();

beforeAll(async () => {
  mkdirSync(screenshotDir, { recursive: true });
  ({ runtime, browser } = await startRuntimeAndBrowser());
  const owner = await signInOverApi(runtime, email);
  const made = await apiClient(runtime).post<{ id: string }>('/v1/workspaces', { name: 'Pages Co' }, owner.auth);
  expect(made.status).toBe(201);
  workspaceId = made.body.id;
});

afterAll(async () => {
  console.log(`pages.e2e.ts: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  await stopRuntimeAndBrowser(runtime, browser);
});

type AxeImpact = 'minor' | 'moderate' | 'serious' | 'critical';
interface AxeViolation {
  id: string;
  impact: AxeImpact | null;
  nodes: { target: string[] }[];
}

/** axe-core in the page: evaluated over the debugging protocol, which the page's CSP does not govern (an inline script tag would be refused). */
async function axeFindings(page: Page, product: boolean): Promise<string[]> {
  const loaded = await page.evaluate(() => 'axe' in window);
  if (!loaded) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map(({ id, impact, nodes }) => ({ id, impact, nodes: nodes.map(({ target }) => ({ target })) }));
  });
  const blocking: AxeImpact[] = product ? ['critical', 'serious', 'moderate'] : ['critical', 'serious'];
  return violations
    .filter((violation) => violation.impact && blocking.includes(violation.impact))
    .map((violation) => `${violation.impact} ${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

/** Visits `visit` at every size and scheme: screenshot, axe, the header's promises. */
async function visitEverywhere(s: Session, visit: Visit, signedIn: boolean): Promise<void> {
  const { page } = s;
  for (const size of sizes) {
    await page.setViewportSize({ width: size.width, height: size.height });
    await page.goto(`${runtime.url}${visit.path}`);
    await page.waitForSelector(`html[data-ready="${visit.ready}"]`).catch(async (error: Error) => {
      throw new Error(`${visit.name} never got ready: ${error.message}\n${(await s.problems()).join('\n')}`);
    });
    if (visit.settled) await page.waitForSelector(visit.settled);
    if (visit.nav !== false) {
      // The session is settled: the header says signed in or out, never neither.
      await page.waitForSelector('[data-session-pending][hidden]', { state: 'attached' });
      expect(
        await page.isVisible(signedIn ? '.site-nav button[data-sign-out]' : '.site-nav a[href="/signin"]'),
        `${visit.name} ${size.name}`,
      ).toBe(size.name === 'desktop');
    }
    expect(await page.locator('body > *').first().getAttribute('class'), 'the skip link comes first').toBe('skip-link');
    const marked = await page
      .locator('.site-nav a[aria-current="page"]')
      .evaluateAll((links) => links.map((link) => link.getAttribute('href')));
    expect(marked, `${visit.name}: the current page`).toEqual(visit.current ? [visit.current] : []);
    const header = await page.locator('header.site-header').boundingBox();
    if (size.name === 'phone') expect(header!.height, `${visit.name}: the header on a phone`).toBeLessThanOrEqual(64);
    expect(await page.evaluate(() => document.documentElement.scrollWidth), `${visit.name}: no sideways scroll`).toBeLessThanOrEqual(
      size.width,
    );
    for (const scheme of schemes) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: `${screenshotDir}/pages-${visit.name}-${size.name}-${scheme}.png`, fullPage: false });
      expect(await axeFindings(page, visit.product), `axe on ${visit.name} at ${size.name} in ${scheme}`).toEqual([]);
    }
    await page.emulateMedia({ colorScheme: 'light' });
  }
  expect(await s.problems(), visit.name).toEqual([]);
}

/** Holds every request matching `pattern` until `release` is called. */
async function hold(page: Page, pattern: string): Promise<{ release(): Promise<void>; held: Promise<void> }> {
  const routes: Route[] = [];
  let released = false;
  let seen: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (seen = resolve));
  await page.route(pattern, async (route) => {
    if (released) return route.fallback();
    routes.push(route);
    seen();
  });
  return {
    held,
    async release() {
      released = true;
      for (const route of routes.splice(0)) await route.fallback();
      await page.unroute(pattern);
    },
  };
}

describe('every page, signed out', () => {
  let s: Session;
  beforeAll(async () => {
    s = await Session.open(browser, 'signed-out', { viewport: { width: 1280, height: 800 } });
  });
  afterAll(() => s.close());

  it('compose: the button on the first screen at both sizes, the options folded and summed up', async () => {
    const { page } = s;
    for (const size of sizes) {
      await page.setViewportSize({ width: size.width, height: size.height });
      await page.goto(`${runtime.url}/`);
      await s.ready('compose');
      const button = (await page.locator('#create-button').boundingBox())!;
      expect(button.y, size.name).toBeGreaterThanOrEqual(0);
      expect(button.y + button.height, `${size.name}: "Create secret link" in the first screen`).toBeLessThanOrEqual(size.height);
      expect(button.x + button.width, size.name).toBeLessThanOrEqual(size.width);
      expect(await page.getAttribute('#more-options', 'open')).toBeNull();
      expect(await page.textContent('#more-options summary')).toBe('Options: 1 day, 1 view');
    }
    // Every field has its error element under it, named by the field (as served: the compose scripts may rename a hint).
    const served = await (await fetch(`${runtime.url}/`)).text();
    for (const id of ['secret-text', 'secret-file', 'expiry', 'max-views', 'passphrase', 'not-before', 'secret-label', 'send-in']) {
      const described = new RegExp(`id="${id}"[^>]*aria-describedby="([^"]*)"`).exec(served)?.[1] ?? '';
      expect(described.split(' '), id).toContain(`${id}-error`);
      expect(await page.locator(`#${id}-error.field-error[hidden]`).count(), id).toBe(1);
    }
    // A secret to reveal on the pages below: the ready screen of its link spends no view.
    await page.fill('#secret-text', 'pages e2e: a secret');
    await page.click('#create-button');
    await page.waitForSelector('#result:not([hidden])');
    secretLink = await page.inputValue('#share-link');
    expect(await s.problems()).toEqual([]);
  });

  it('the phone menu: Menu opens the links, Escape closes them and gives the focus back; the skip link reaches the form', async () => {
    const { page } = s;
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${runtime.url}/plans`);
    await page.waitForSelector('html[data-ready="plans"]');
    const menu = page.locator('.menu-button');
    expect(await menu.getAttribute('aria-controls')).toBe('site-menu');
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await page.isVisible('#site-menu')).toBe(false);
    await menu.click();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    expect(await page.isVisible('#site-menu a[href="/signin"]')).toBe(true);
    await page.screenshot({ path: `${screenshotDir}/pages-menu-open-phone-light.png` });
    await page.focus('#site-menu a[href="/"]');
    await page.keyboard.press('Escape');
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await page.isVisible('#site-menu')).toBe(false);
    expect(await page.evaluate(() => document.activeElement?.classList.contains('menu-button'))).toBe(true);

    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${runtime.url}/`);
    await s.ready('compose');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.className)).toBe('skip-link');
    expect(await page.isVisible('.skip-link')).toBe(true);
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('secret-text');
  });

  it('answers unknown paths with the styled 404, status 404; the API keeps its own', async () => {
    for (const path of ['/nope', '/s/', '/q/', '/account/x']) {
      const response = await fetch(`${runtime.url}${path}`);
      expect(response.status, path).toBe(404);
      expect(response.headers.get('content-type'), path).toMatch(/^text\/html/);
      expect(response.headers.get('content-security-policy'), path).toContain("script-src 'self'");
      const html = await response.text();
      expect(html, path).toContain('<h1 data-i18n="notFound.title">This page does not exist</h1>');
      expect(html, path).toContain('class="site-header"');
    }
    const api = await fetch(`${runtime.url}/v1/nope`);
    expect(api.status).toBe(404);
    expect(api.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('every public page at both sizes, light and dark', async () => {
    expect(secretLink).toMatch(/\/s\/sec_/);
    const visits: Visit[] = [
      { name: 'compose', path: '/', ready: 'compose', current: '/', product: true },
      { name: 'signin', path: '/signin', ready: 'signin', current: '/signin', product: false },
      { name: 'plans', path: '/plans', ready: 'plans', current: '/plans', product: false },
      // An invitation's page without its token; /join is in no navigation.
      { name: 'join', path: '/join', ready: 'join', product: false },
      { name: 'not-found', path: '/nope', ready: 'not-found', product: false },
      { name: 'not-found-secret', path: '/s/', ready: 'not-found', product: false },
      { name: 'reveal', path: new URL(secretLink).pathname + new URL(secretLink).hash, ready: 'reveal', product: true, nav: false },
    ];
    for (const visit of visits) await visitEverywhere(s, visit, false);
    expect(await s.storage()).toEqual({ local: 0, session: 0, cookies: '' });
  });
});

describe('every page, signed in', () => {
  let s: Session;
  beforeAll(async () => {
    s = await Session.open(browser, 'signed-in', { viewport: { width: 1280, height: 800 } });
    await signInThroughPage(s, runtime, email);
  });
  afterAll(() => s.close());

  it('while the API is slow: a busy header, then a loading line, never a blank list; a failed list offers Retry', async () => {
    const { page } = s;
    const refresh = await hold(page, '**/v1/auth/refresh');
    await page.goto(`${runtime.url}/account`);
    await refresh.held;
    expect(await page.isVisible('[data-session-pending] [aria-busy="true"]')).toBe(true);
    expect(await page.isVisible('a[href="/signin"]')).toBe(false);
    expect(await page.isVisible('button[data-sign-out]')).toBe(false);
    expect(await page.isVisible('.loading-line[role="status"]')).toBe(true);
    await page.screenshot({ path: `${screenshotDir}/pages-account-loading-desktop-light.png` });
    const list = await hold(page, '**/v1/secrets?*');
    await refresh.release();
    await list.held;
    expect(await page.isVisible('button[data-sign-out]')).toBe(true);
    expect(await page.isVisible('.loading-line[role="status"]')).toBe(true);
    expect(await page.getAttribute('#secrets', 'aria-busy')).toBe('true');
    await list.release();
    await s.ready('account');
    expect(await page.locator('.loading-line').count()).toBe(0);
    expect(await page.getAttribute('#secrets', 'aria-busy')).toBe('false');

    // A list that fails says why, with Retry; Retry reads it again.
    await page.route('**/v1/secrets?*', (route) =>
      route.fulfill({ status: 503, contentType: 'application/problem+json', body: '{"code":"unavailable","message":"Try again."}' }),
    );
    await page.goto(`${runtime.url}/account`);
    await page.waitForSelector('#list-error:not([hidden])');
    const retry = page.locator('[data-action="retry"]:visible');
    expect(await retry.count()).toBe(1);
    await page.unroute('**/v1/secrets?*');
    await retry.click();
    await page.waitForSelector('#list-error', { state: 'hidden' });
    expect(await page.locator('#secrets > li').count()).toBeGreaterThanOrEqual(0);
    expect(await page.isVisible('[data-action="retry"]')).toBe(false);
  });

  it('every account page at both sizes, light and dark', async () => {
    const { page } = s;
    // A request link of this account, to open as a responder below.
    await page.goto(`${runtime.url}/requests`);
    await page.waitForSelector('html[data-ready="requests"]');
    await page.click('#create-request');
    await page.waitForSelector('#request-result:not([hidden])');
    requestLink = await page.inputValue('#request-link');

    const visits: Visit[] = [
      { name: 'compose-signed-in', path: '/', ready: 'compose', current: '/', product: true },
      { name: 'account', path: '/account', ready: 'account', current: '/account', product: true },
      { name: 'requests', path: '/requests', ready: 'requests', current: '/requests', product: true },
      { name: 'workspaces', path: '/workspaces', ready: 'workspaces', current: '/workspaces', product: true },
      { name: 'keys', path: '/keys', ready: 'keys', current: '/keys', product: true },
      { name: 'sessions', path: '/sessions', ready: 'sessions', current: '/sessions', product: true },
      { name: 'webhooks', path: '/webhooks', ready: 'webhooks', current: '/webhooks', product: true },
      { name: 'billing', path: '/billing', ready: 'billing', current: '/billing', product: true },
      { name: 'plans-signed-in', path: '/plans', ready: 'plans', current: '/plans', product: false },
      { name: 'not-found-signed-in', path: '/nope', ready: 'not-found', product: false },
      {
        name: 'workspace',
        path: `/workspace?id=${workspaceId}`,
        ready: 'workspace',
        current: '/workspaces',
        product: true,
        // The audit trail's rows: its scrolling table is a landmark of its own.
        settled: '#audit-rows > tr',
      },
    ];
    for (const visit of visits) {
      await visitEverywhere(s, visit, true);
      // Signed in, the 404 page offers My secrets too.
      if (visit.ready === 'not-found') expect(await page.isVisible('main a[href="/account"]')).toBe(true);
    }
  });

  it('a request link, as its responder opens it', async () => {
    expect(requestLink).toMatch(/\/q\/rql_/);
    const responder = await Session.open(browser, 'responder', { viewport: { width: 1280, height: 800 } });
    const url = new URL(requestLink);
    await visitEverywhere(
      responder,
      { name: 'respond', path: url.pathname + url.hash, ready: 'respond', product: true, nav: false },
      false,
    );
    await responder.close();
  });
});
