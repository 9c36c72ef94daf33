import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { signInAt, startOidcProvider, type LocalOidc } from '../../local/oidc/provider.ts';
import { expectProblem } from '../support/problem.ts';
import { apiClient, generousRateLimits, startTestRuntime } from '../support/runtime.ts';
import { ssoDirectory } from '../support/sso.ts';
import { teamWorkspace } from '../support/workspaces.ts';

/**
 * Single sign-on's routes at their edges (issue 29): the start's and the exchange's rate classes
 * (429), a malformed exchange (400), and a provider that goes away between the start and the
 * callback (503, bounded). A runtime of its own, with small windows for the two classes, and an
 * identity provider of its own that the last test stops. The flow itself: sso-signin.test.ts.
 */

let runtime: Runtime;
let idp: LocalOidc;
let api: ReturnType<typeof apiClient>;
let domain: string;
const window = { limit: 3, windowSeconds: 3600 };

beforeAll(async () => {
  [runtime, idp] = await Promise.all([
    startTestRuntime({ rateLimits: { ...generousRateLimits, otp_start: { perIp: window }, otp_verify: { perIp: window } } }),
    startOidcProvider(),
  ]);
  api = apiClient(runtime);
  const workspace = await teamWorkspace(runtime);
  domain = `limits-${process.pid}.example`;
  await ssoDirectory(runtime, workspace, { domain, idp, clientId: 'limits', clientSecret: randomBytes(24).toString('base64url') });
});
afterAll(async () => {
  await runtime?.stop();
  await idp?.close();
});

const start = (email: string) =>
  fetch(`${runtime.url}/v1/auth/sso/start?${new URLSearchParams({ email }).toString()}`, { redirect: 'manual' });

describe('single sign-on’s edges', () => {
  it('answers 503 when the provider goes away between the start and the callback, within its bound', async () => {
    const started = await start(`ana@${domain}`);
    expect(started.status).toBe(302);
    const redirect = await signInAt(idp, started.headers.get('location')!, `ana@${domain}`);
    await idp.close();
    const before = Date.now();
    // As a browser lands there (ADR 0173): a page that says what happened and when to try again.
    const answered = await fetch(`${runtime.url}${redirect.pathname}${redirect.search}`, {
      redirect: 'manual',
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    });
    expect(answered.status).toBe(503);
    expect(answered.headers.get('retry-after')).toBe('60');
    expect(answered.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const page = await answered.text();
    expect(page).toContain('<h1>A service this needs did not answer</h1>');
    expect(page).toContain('Your organization’s sign-in service did not answer: try again in a minute.');
    expect(page).toContain('(provider_unavailable, 503)');
    // One call to the provider has 5 s (ssoLimits.providerCallSeconds); a closed port answers at once.
    expect(Date.now() - before).toBeLessThan(15_000);
  });

  it('refuses a callback whose parameters are beyond any provider’s (400), unread', async () => {
    const url = new URL(`${runtime.url}/v1/auth/sso/callback`);
    url.search = new URLSearchParams({ state: 'x', error: 'access_denied', error_description: 'x'.repeat(3000) }).toString();
    const answered = await fetch(url, { redirect: 'manual' });
    expect(answered.status).toBe(400);
    expect(((await answered.json()) as { code: string }).code).toBe('invalid_request');
  });

  it('refuses a malformed exchange (400), and a source past the exchange’s window (429)', async () => {
    expectProblem(await api.post('/v1/auth/sso/exchange', { code: 'not-a-code' }), 400, 'invalid_request');
    const code = `hlx_${randomBytes(32).toString('base64url')}`;
    // The window (otp_verify's class) counts every call of the class: the owner's sign-in and the 400 above were two.
    const statuses = [];
    for (let i = 0; i < window.limit; i++) statuses.push((await api.post('/v1/auth/sso/exchange', { code })).status);
    expect(statuses).toEqual([401, 429, 429]);
  });

  it('answers 429 to a source past the start’s window, whatever the address', async () => {
    const statuses = [];
    for (let i = 0; i < window.limit + 1; i++) statuses.push((await start(`bo${i}@${domain}`)).status);
    expect(statuses.at(-1)).toBe(429);
  });
});
