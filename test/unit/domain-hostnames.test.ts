import { describe, expect, it } from 'vitest';
import { StoppedClock } from '../support/clock.ts';
import { challengeName, challengeValue, normalizeHostname } from '../../shared/domain/domains/hostname.ts';
import { checkHost, HostDirectory, hostnameOf } from '../../shared/domain/domains/hosts.ts';
import type { HostClaim } from '../../shared/domain/domains/model.ts';
import { toHttpError } from '../../shared/http/refusals.ts';

const aws = { ownHost: 'secrets.example.com', local: false };

describe('normalizeHostname', () => {
  it('lower-cases, trims, drops a trailing dot and writes IDNs in punycode', () => {
    expect(normalizeHostname('  Links.Acme.COM. ', aws)).toEqual({ hostname: 'links.acme.com' });
    expect(normalizeHostname('geheim.bücher.de', aws)).toEqual({ hostname: 'geheim.xn--bcher-kva.de' });
    expect(normalizeHostname('xn--bcher-kva.de', aws)).toEqual({ hostname: 'xn--bcher-kva.de' });
  });

  it.each([
    ['an IPv4 address', '192.0.2.1'],
    ['an IPv4 address the URL parser reads', '0x7f.1'],
    ['an IPv6 literal', '[2001:db8::1]'],
    ['a single label', 'intranet'],
    ['a scheme', 'https://links.acme.com'],
    ['a path', 'links.acme.com/x'],
    ['a port', 'links.acme.com:443'],
    ['userinfo', 'a@links.acme.com'],
    ['a wildcard', '*.acme.com'],
    ['an empty label', 'links..acme.com'],
    ['a label of 64 characters', `${'a'.repeat(64)}.acme.com`],
    ['a leading dash', '-links.acme.com'],
    ['an all-digit top-level label', 'links.acme.123'],
    ['this deployment’s host', 'secrets.example.com'],
    ['a name under it', 'x.secrets.example.com'],
    ['localhost', 'app.localhost'],
    ['.local', 'printer.local'],
    ['.test', 'links.acme.test'],
    ['.example', 'links.acme.example'],
    ['.internal', 'svc.corp.internal'],
    ['home.arpa', 'nas.home.arpa'],
    ['nothing', '   '],
  ])('refuses %s', (_, raw) => {
    expect(normalizeHostname(raw, aws)).toHaveProperty('refused');
  });

  it('takes special-use names in a local run, where the local DNS server answers them', () => {
    expect(normalizeHostname('links.acme.example', { ownHost: 'localhost', local: true })).toEqual({ hostname: 'links.acme.example' });
    expect(normalizeHostname('localhost', { ownHost: 'localhost', local: true })).toHaveProperty('refused');
  });

  it('names the challenge', () => {
    expect(challengeName('links.acme.com')).toBe('_hushlink-challenge.links.acme.com');
    expect(challengeValue('abc')).toBe('hushlink-verification=abc');
  });
});

describe('HostDirectory', () => {
  const claim: HostClaim = { hostname: 'links.acme.com', domainId: 'dom_1', workspaceId: 'wks_1' };
  function directory(initial: HostClaim | null) {
    const clock = new StoppedClock();
    let current = initial;
    let reads = 0;
    const hosts = new HostDirectory({ verifiedClaim: async () => (reads++, current) }, clock, 5000);
    return { clock, hosts, set: (next: HostClaim | null) => (current = next), reads: () => reads };
  }

  it('reads a verified claim on every request: a deleted one is refused at once, with no cache to outlive it (issue 26)', async () => {
    const { hosts, set, reads } = directory(claim);
    expect(await hosts.claimOf('links.acme.com')).toEqual(claim);
    set(null);
    expect(await hosts.claimOf('links.acme.com')).toBeNull();
    expect(reads()).toBe(2);
  });

  it('keeps that a hostname has no claim for its bound, and reads again after it; forget() drops it at once', async () => {
    const { clock, hosts, set, reads } = directory(null);
    expect(await hosts.claimOf('links.acme.com')).toBeNull();
    set(claim);
    clock.advance(4.999);
    expect(await hosts.claimOf('links.acme.com')).toBeNull();
    expect(reads()).toBe(1);
    clock.advance(0.002);
    expect(await hosts.claimOf('links.acme.com')).toEqual(claim);
    set(null);
    expect(await hosts.claimOf('links.acme.com')).toBeNull();
    set(claim);
    hosts.forget('links.acme.com');
    expect(await hosts.claimOf('links.acme.com')).toEqual(claim);
    expect(reads()).toBe(4);
  });

  it('keeps nothing of a read begun before forget(): a verification counts at once here', async () => {
    const clock = new StoppedClock();
    let release: (claim: HostClaim | null) => void = () => {};
    let reads = 0;
    const hosts = new HostDirectory(
      { verifiedClaim: () => (reads++, reads === 1 ? new Promise((resolve) => (release = resolve)) : Promise.resolve(claim)) },
      clock,
      5000,
    );
    const inFlight = hosts.claimOf('links.acme.com');
    hosts.forget('links.acme.com');
    release(null);
    expect(await inFlight).toBeNull();
    expect(await hosts.claimOf('links.acme.com')).toEqual(claim);
    expect(reads).toBe(2);
  });

  it('checks a request’s host: its own host and (locally) loopback names pass, a verified hostname gives its claim, any other is 404 unknown_host', async () => {
    const { hosts } = directory(null);
    await expect(checkHost(null, 'https://secrets.example.com', false, hosts)).resolves.toBeNull();
    await expect(checkHost('SECRETS.example.com:443', 'https://secrets.example.com', false, hosts)).resolves.toBeNull();
    await expect(checkHost('127.0.0.1:3000', 'http://localhost:3000', true, hosts)).resolves.toBeNull();
    await expect(checkHost('127.0.0.1:3000', 'https://secrets.example.com', false, hosts).catch(toHttpError)).resolves.toMatchObject({
      status: 404,
      extras: { members: { reason: 'unknown_host' } },
    });
    const served = directory(claim);
    await expect(checkHost('Links.Acme.com.', 'https://secrets.example.com', false, served.hosts)).resolves.toEqual(claim);
    expect(hostnameOf('[::1]:3000')).toBe('[::1]');
  });
});
