import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { dayOf } from '../../shared/domain/counters.ts';
import { callFrom } from '../support/accounts.ts';
import { apiClient, generousRateLimits, startTestRuntime } from '../support/runtime.ts';

const window = { limit: 2, windowSeconds: 3600 };

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
beforeAll(async () => {
  runtime = await startTestRuntime({ rateLimits: { ...generousRateLimits, cli_install: { perIp: window } } });
  api = apiClient(runtime);
});
afterAll(() => runtime?.stop());

const install = { source: 'script', os: 'linux', version: '1.0.0' };

describe('POST /v1/cli/install rate limit', () => {
  it('429 with retry-after once an address has used its window, and the refused install is not counted', async () => {
    // Start a minute into a fresh window, so the window cannot end midway.
    const nowSeconds = runtime.clock.now() / 1000;
    runtime.clock.advance(window.windowSeconds - (nowSeconds % window.windowSeconds) + 60);
    const day = dayOf(runtime.clock.now());
    for (let i = 0; i < window.limit; i++) expect((await api.post('/v1/cli/install', install)).status).toBe(202);

    const refused = await api.post('/v1/cli/install', install);
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('rate_limited');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(window.windowSeconds);
    expect((await runtime.stores.counters.read('cli_install', day))['script.linux']).toBe(window.limit);

    // Another address has its own window.
    expect((await callFrom(runtime, '127.0.0.2', 'POST', '/v1/cli/install', install)).status).toBe(202);

    // The limit is checked before the body: a bad body from a limited address is still 429.
    expect((await api.post('/v1/cli/install', { source: 'nope' })).status).toBe(429);

    // A new window opens after the old one ends.
    runtime.clock.advance(retryAfter);
    expect((await api.post('/v1/cli/install', install)).status).toBe(202);
  });
});
