import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoveryLimits, oidcDiscovery } from '../../shared/adapters/oidcDiscovery.ts';
import { startDiscoveryServer } from '../support/discoveryServer.ts';

// The discovery reading's address rules (shared/adapters/oidcDiscovery.ts), which are the webhook
// destinations' (shared/webhooks/destination.ts): in AWS https to public addresses only, every DNS
// answer checked; in a local run http to loopback names too; and its bounds.

let idp: Awaited<ReturnType<typeof startDiscoveryServer>>;
beforeAll(async () => {
  idp = await startDiscoveryServer();
});
afterAll(() => idp?.stop());

/** A resolver answering every name with `addresses` (and asked names kept). */
const resolver = (...addresses: string[]) => {
  const asked: string[] = [];
  return {
    asked,
    resolve4: async (host: string) => (asked.push(host), addresses.filter((a) => !a.includes(':'))),
    resolve6: async () => addresses.filter((a) => a.includes(':')),
  };
};

describe('oidcDiscovery', () => {
  it('bounds the check at 3 s and 64 KiB, three redirects within the origin', () => {
    expect(discoveryLimits).toMatchObject({ timeoutMs: 3_000, maxBytes: 64 * 1024, maxRedirects: 3 });
  });

  it('in AWS reads nothing from loopback, private or metadata addresses, by literal or by any DNS answer', async () => {
    const aws = (answers: string[]) => oidcDiscovery({ local: false, resolver: resolver(...answers) });
    const port = new URL(idp.base).port;
    expect(await aws([]).check(`https://127.0.0.1:${port}/acme`)).toEqual({ outcome: 'unreachable', found: 'forbidden_address' });
    expect(await aws([]).check(idp.issuer('acme'))).toEqual({ outcome: 'unreachable', found: 'not_https' });
    expect(await aws(['93.184.215.14', '10.1.2.3']).check('https://idp.acme.example.com')).toEqual({
      outcome: 'unreachable',
      found: 'forbidden_address',
    });
    expect(await aws(['169.254.169.254']).check('https://idp.acme.example.com')).toEqual({
      outcome: 'unreachable',
      found: 'forbidden_address',
    });
    expect(await aws([]).check('https://idp.acme.example.com')).toEqual({ outcome: 'unreachable', found: 'unresolvable' });
    expect(await aws([]).check('https://idp.internal/x')).toEqual({ outcome: 'unreachable', found: 'forbidden_name' });
  });

  it('in a local run takes http to loopback by its names only: a name answered with a loopback address is still https-only', async () => {
    const answers = resolver('127.0.0.1');
    const local = oidcDiscovery({ local: true, resolver: answers });
    const port = new URL(idp.base).port;
    expect(await local.check(idp.issuer('acme'))).toEqual({ outcome: 'matches' });
    expect(await local.check(`http://localhost:${port}/acme`)).toEqual({ outcome: 'mismatch', found: idp.issuer('acme') });
    expect(await local.check(`http://idp.acme.example:${port}/acme`)).toEqual({ outcome: 'unreachable', found: 'not_https' });
    expect(answers.asked).toEqual([]);
  });

  it('gives up at its deadline, whatever the provider is doing', async () => {
    const started = performance.now();
    expect(await oidcDiscovery({ local: true, timeoutMs: 200 }).check(idp.issuer('slow'))).toEqual({
      outcome: 'unreachable',
      found: 'timeout',
    });
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(await oidcDiscovery({ local: true, maxBytes: 100 }).check(idp.issuer('acme'))).toEqual({
      outcome: 'unreachable',
      found: 'too_large',
    });
    expect(await oidcDiscovery({ local: true }).check(`http://127.0.0.1:1/closed`)).toEqual({
      outcome: 'unreachable',
      found: 'connection_refused',
    });
  });
});
