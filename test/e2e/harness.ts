/**
 * What the e2e suite shares: Debian's Chromium driven by playwright-core, a recorder of every
 * request a browser context makes, and the checks every page must pass (no CSP violation, no
 * page error, no fragment in the address bar, nothing in web storage).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page, type Request } from 'playwright-core';
import type { Runtime, RuntimeOptions } from '../../local/runtime.ts';
import { latestCode } from '../support/accounts.ts';
import { startTestRuntime } from '../support/runtime.ts';

export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const screenshotDir = fileURLToPath(new URL('./screenshots/', import.meta.url));

/** `extraArgs`: more command-line switches, such as a host resolver rule for a custom hostname. */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    args: [
      '--headless=new',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...extraArgs,
    ],
  });
}

/** One request as the browser sent it. */
export interface SentRequest {
  context: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  resourceType: string;
}

/** Every request of every context of the run, in order. */
export const traffic: SentRequest[] = [];
const pendingRecords: Promise<void>[] = [];

/** Resolves when every request seen so far has its headers recorded. */
export async function settleTraffic(): Promise<SentRequest[]> {
  await Promise.all(pendingRecords);
  return traffic;
}

function record(name: string, request: Request): void {
  const entry: SentRequest = {
    context: name,
    method: request.method(),
    url: request.url(),
    headers: request.headers(),
    body: request.postDataBuffer()?.toString('utf8') ?? '',
    resourceType: request.resourceType(),
  };
  traffic.push(entry);
  // allHeaders() includes what the network stack adds (cookies, referer, origin).
  pendingRecords.push(
    request.allHeaders().then(
      (headers) => void (entry.headers = headers),
      () => undefined,
    ),
  );
}

/** A fresh browser context (no shared storage, as a recipient on another machine) and its page. */
export class Session {
  readonly diagnostics: string[] = [];

  private constructor(
    readonly name: string,
    readonly context: BrowserContext,
    readonly page: Page,
  ) {}

  static async open(browser: Browser, name: string, options: BrowserContextOptions = {}): Promise<Session> {
    const context = await browser.newContext({
      locale: 'en-GB',
      timezoneId: 'Europe/Berlin',
      viewport: { width: 1000, height: 900 },
      ...options,
    });
    context.on('request', (request) => record(name, request));
    await context.addInitScript(() => {
      const violations: string[] = [];
      (window as unknown as { __cspViolations: string[] }).__cspViolations = violations;
      document.addEventListener('securitypolicyviolation', (event) => violations.push(`${event.violatedDirective} ${event.blockedURI}`));
    });
    const page = await context.newPage();
    const session = new Session(name, context, page);
    page.on('console', (message) => {
      // An API refusal (404, 410, …) is logged by Chromium as a failed load: expected, not a fault.
      if (/^Failed to load resource: the server responded with a status of \d+/.test(message.text())) return;
      if (message.type() === 'error' || /content security policy|refused to/i.test(message.text())) {
        session.diagnostics.push(`console ${message.type()}: ${message.text()}`);
      }
    });
    page.on('pageerror', (error) => session.diagnostics.push(`pageerror: ${error.message}`));
    return session;
  }

  /** Requests this session sent so far. */
  requests(): SentRequest[] {
    return traffic.filter((entry) => entry.context === this.name);
  }

  apiRequests(): SentRequest[] {
    return this.requests().filter((entry) => new URL(entry.url).pathname.startsWith('/v1/'));
  }

  /** Waits for the page script to have started. */
  async ready(page: 'compose' | 'reveal' | 'signin' | 'account' | 'keys' | 'sessions'): Promise<void> {
    await this.page.waitForSelector(`html[data-ready="${page}"]`);
  }

  async screen(): Promise<string | undefined> {
    return this.page.evaluate(() => document.documentElement.dataset.screen);
  }

  /** Waits for the reveal page's message screen and returns its name (`gone-burned`, …). */
  async message(): Promise<string> {
    await this.page.waitForSelector('html[data-screen="message"]');
    return (await this.page.getAttribute('#screen-message', 'data-message')) ?? '';
  }

  async screenshot(name: string): Promise<void> {
    mkdirSync(screenshotDir, { recursive: true });
    await this.page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: true });
  }

  /** CSP violations reported to the page and console/page errors, in this session. */
  async problems(): Promise<string[]> {
    const violations = await this.page
      .evaluate(() => (window as unknown as { __cspViolations?: string[] }).__cspViolations ?? [])
      .catch(() => [] as string[]);
    return [...this.diagnostics, ...violations.map((violation) => `csp: ${violation}`)];
  }

  /** What this origin keeps in the browser: must stay empty. */
  async storage(): Promise<{ local: number; session: number; cookies: string }> {
    return this.page.evaluate(() => ({ local: localStorage.length, session: sessionStorage.length, cookies: document.cookie }));
  }

  /** Everything this origin keeps in the browser: both web storages, cookies, IndexedDB names. */
  async webStorage(): Promise<{ local: Record<string, string>; session: Record<string, string>; cookies: string; indexedDb: string[] }> {
    return this.page.evaluate(async () => {
      const entries = (storage: Storage) =>
        Object.fromEntries(
          Array.from({ length: storage.length }, (_, i) => storage.key(i)!).map((key) => [key, storage.getItem(key) ?? '']),
        );
      const databases = typeof indexedDB.databases === 'function' ? await indexedDB.databases() : [];
      return {
        local: entries(localStorage),
        session: entries(sessionStorage),
        cookies: document.cookie,
        indexedDb: databases.map((db) => db.name ?? ''),
      };
    });
  }

  async close(): Promise<void> {
    await this.context.close();
  }
}

/**
 * The one route whose body may carry some guarded values (those whose label starts with
 * `label`), such as a gate code in `gate/verify`. Never a URL or a header.
 */
export interface LeakAllowance {
  label: string;
  method: string;
  /** Matched against the request's path. */
  path: RegExp;
}

/** Where each occurrence of a guarded value sits in recorded traffic (none expected beyond `allowed`). */
export function findLeaks(requests: SentRequest[], guarded: Map<string, string>, allowed: LeakAllowance[] = []): string[] {
  const found: string[] = [];
  for (const request of requests) {
    const path = new URL(request.url).pathname;
    for (const [label, value] of guarded) {
      if (!value) continue;
      if (request.url.includes(value)) found.push(`${label} in URL of ${request.method} ${request.url}`);
      for (const [header, headerValue] of Object.entries(request.headers)) {
        if (headerValue.includes(value)) found.push(`${label} in header ${header} of ${request.method} ${request.url}`);
      }
      const bodyAllowed = allowed.some(
        (allowance) => label.startsWith(allowance.label) && allowance.method === request.method && allowance.path.test(path),
      );
      if (request.body.includes(value) && !bodyAllowed) found.push(`${label} in body of ${request.method} ${request.url}`);
    }
  }
  return found;
}

/**
 * A browser-wide sign-in (ADR 0178): the refresh token is an HttpOnly cookie the API sets, scoped
 * to `/v1/auth`, and localStorage keeps only this marker that it exists (no secret).
 */
export const sessionMarkerKey = 'hushlink.session';
export const sessionMarker: Readonly<Record<string, string>> = { [sessionMarkerKey]: 'cookie' };
export const refreshCookieName = 'hushlink_refresh';
/** "This is a shared computer": the tab's refresh token, in its sessionStorage (no cookie). */
export const tabRefreshKey = 'hushlink.refresh-token';

/** The refresh token of this browser's cookie, when it holds one (scripts cannot read it; the test can). */
export async function refreshCookie(s: Session): Promise<string | undefined> {
  return (await s.context.cookies()).find((cookie) => cookie.name === refreshCookieName)?.value;
}

/** What is wrong with a request's Cookie header: only the refresh cookie, and only to `/v1/auth/*`. */
export function cookieProblem(request: SentRequest): string | null {
  const cookie = request.headers.cookie;
  if (cookie === undefined) return null;
  const path = new URL(request.url).pathname;
  if (!path.startsWith('/v1/auth/')) return `a cookie sent with ${request.method} ${path}`;
  const names = cookie.split(';').map((pair) => pair.trim().split('=')[0]);
  if (names.some((name) => name !== refreshCookieName))
    return `another cookie than ${refreshCookieName} sent with ${request.method} ${path}`;
  return null;
}

/** One local runtime (in memory, free port; `options` as `startTestRuntime` takes them) and one Chromium for an e2e file. */
export async function startRuntimeAndBrowser(options: RuntimeOptions = {}): Promise<{ runtime: Runtime; browser: Browser }> {
  const [runtime, browser] = await Promise.all([startTestRuntime(options), launchChromium()]);
  return { runtime, browser };
}

export async function stopRuntimeAndBrowser(runtime: Runtime | undefined, browser: Browser | undefined): Promise<void> {
  await browser?.close();
  await runtime?.stop();
}

/** Records a value no browser may ever send (checked by `findLeaks` at the end of a file). */
export function guard(guarded: Map<string, string>, label: string, value: string): void {
  guarded.set(`${label} (${guarded.size})`, value);
}

/** On the sign-in page: the address typed, a code asked for, and the one the runtime's outbox got typed in. */
export async function typeSignInCode(s: Session, runtime: Pick<Runtime, 'outbox'>, email: string): Promise<void> {
  await s.page.fill('#email', email);
  await s.page.click('#send-code');
  await s.page.waitForSelector('html[data-step="code"]');
  await s.page.fill('#code', latestCode(runtime, email)!);
  await s.page.click('#verify-button');
}

/** Signs in through the page (`/signin`, or with `?next=`) and waits to land on `next`'s path. */
export async function signInThroughPage(
  s: Session,
  runtime: Pick<Runtime, 'url' | 'outbox'>,
  email: string,
  next = '/account',
): Promise<void> {
  await s.page.goto(`${runtime.url}/signin${next === '/account' ? '' : `?next=${encodeURIComponent(next)}`}`);
  await s.ready('signin');
  await typeSignInCode(s, runtime, email);
  await s.page.waitForURL((url) => url.pathname === new URL(next, 'http://localhost').pathname);
}
