import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startLocalDns, type LocalDns } from '../../local/dns.ts';
import { parseDnsServers, txtResolver } from '../../shared/adapters/dnsTxt.ts';
import type { TxtResolver } from '../../shared/domain/domains/ports.ts';

// The TXT adapter against the local DNS server on loopback: node's resolver (c-ares) asks it over
// real UDP and TCP, so every outcome here is what the service gets from a real server answering so.
let dns: LocalDns;
let resolver: TxtResolver;
const challenge = 'hushlink-verification=Z2l2ZW4tb25jZS1wZXItY2xhaW0';

beforeAll(async () => {
  dns = await startLocalDns();
  resolver = txtResolver([dns.server]);
});
afterAll(() => dns.stop());
beforeEach(() => dns.clear());

describe('txtResolver finds', () => {
  it('a TXT record', async () => {
    dns.setRecords('_hushlink-challenge.one.example', [{ type: 'TXT', data: challenge }]);
    expect(await resolver.lookupTxt('_hushlink-challenge.one.example')).toEqual({ kind: 'found', records: [challenge] });
    expect(dns.queries()).toEqual(['udp TXT _hushlink-challenge.one.example']);
  });

  it('ours among other TXT records, each whole', async () => {
    dns.setRecords('_hushlink-challenge.many.example', [
      { type: 'TXT', data: 'v=spf1 include:_spf.example.net ~all' },
      { type: 'TXT', data: challenge },
      { type: 'TXT', data: 'google-site-verification=abc123' },
      { type: 'TXT', data: '' },
    ]);
    const lookup = await resolver.lookupTxt('_hushlink-challenge.many.example');
    expect(lookup.kind).toBe('found');
    expect(lookup.kind === 'found' && [...lookup.records].sort()).toEqual(
      ['', 'google-site-verification=abc123', challenge, 'v=spf1 include:_spf.example.net ~all'].sort(),
    );
  });

  it('a record split into several character-strings, joined with nothing between them (RFC 7208 §3.3)', async () => {
    dns.setRecords('_hushlink-challenge.split.example', [
      { type: 'TXT', data: ['hushlink-verification=', 'Z2l2ZW4tb25j', 'ZS1wZXItY2xhaW0'] },
    ]);
    expect(await resolver.lookupTxt('_hushlink-challenge.split.example')).toEqual({ kind: 'found', records: [challenge] });
  });

  it('a long record split at 255 bytes, as providers publish it', async () => {
    const long = `hushlink-verification=${'a'.repeat(300)}${'b'.repeat(200)}`;
    dns.setRecords('_hushlink-challenge.long.example', [{ type: 'TXT', data: long }]);
    expect(await resolver.lookupTxt('_hushlink-challenge.long.example')).toEqual({ kind: 'found', records: [long] });
  });

  it('UTF-8 as published, a character split between two strings included', async () => {
    // 22 + 232 bytes, then é's two bytes: the first ends the first 255-byte string, the second starts the next.
    const straddling = `hushlink-verification=${'a'.repeat(232)}é${'b'.repeat(10)}`;
    dns.setRecords('_hushlink-challenge.utf8.example', [
      { type: 'TXT', data: 'note=café ✓' },
      { type: 'TXT', data: straddling },
    ]);
    const lookup = await resolver.lookupTxt('_hushlink-challenge.utf8.example');
    expect(lookup.kind === 'found' && [...lookup.records].sort()).toEqual([straddling, 'note=café ✓']);
  });

  it('records too large for UDP: the answer is truncated and the resolver asks again over TCP', async () => {
    // About 1.6 kB: over 512 bytes, and over the 1232 a resolver that offers EDNS may take.
    const records = [`v=spf1 ${'ip4:192.0.2.1 '.repeat(40)}-all`, challenge, 'x'.repeat(500), 'y'.repeat(400)];
    dns.setRecords(
      '_hushlink-challenge.big.example',
      records.map((data) => ({ type: 'TXT' as const, data })),
    );
    const lookup = await resolver.lookupTxt('_hushlink-challenge.big.example');
    expect(lookup.kind === 'found' && [...lookup.records].sort()).toEqual([...records].sort());
    expect(dns.queries()).toEqual(['udp TXT _hushlink-challenge.big.example', 'tcp TXT _hushlink-challenge.big.example']);
  });

  it('a name in any case, with or without its trailing dot', async () => {
    dns.setRecords('_Hushlink-Challenge.Case.EXAMPLE.', [{ type: 'TXT', data: challenge }]);
    for (const name of ['_hushlink-challenge.case.example', '_HUSHLINK-CHALLENGE.CASE.EXAMPLE', '_hushlink-challenge.Case.Example.']) {
      expect(await resolver.lookupTxt(name)).toEqual({ kind: 'found', records: [challenge] });
    }
  });

  it('the record as it is now, not as an earlier lookup saw it', async () => {
    const name = '_hushlink-challenge.changed.example';
    expect(await resolver.lookupTxt(name)).toEqual({ kind: 'none', reason: 'nxdomain' });
    dns.setRecords(name, [{ type: 'TXT', data: 'hushlink-verification=old' }]);
    expect(await resolver.lookupTxt(name)).toEqual({ kind: 'found', records: ['hushlink-verification=old'] });
    dns.setRecords(name, [{ type: 'TXT', data: challenge }]);
    expect(await resolver.lookupTxt(name)).toEqual({ kind: 'found', records: [challenge] });
    dns.remove(name);
    expect(await resolver.lookupTxt(name)).toEqual({ kind: 'none', reason: 'nxdomain' });
  });

  it('through a CNAME, as a customer delegating the challenge name would publish it', async () => {
    dns.setRecords('_hushlink-challenge.alias.example', [{ type: 'CNAME', data: 'challenges.dns-host.example' }]);
    dns.setRecords('challenges.dns-host.example', [{ type: 'TXT', data: challenge }]);
    expect(await resolver.lookupTxt('_hushlink-challenge.alias.example')).toEqual({ kind: 'found', records: [challenge] });
  });
});

describe('txtResolver finds nothing', () => {
  it('for a name that does not exist (NXDOMAIN)', async () => {
    expect(await resolver.lookupTxt('_hushlink-challenge.nowhere.example')).toEqual({ kind: 'none', reason: 'nxdomain' });
  });

  it('for a name without TXT records (NODATA)', async () => {
    dns.setRecords('_hushlink-challenge.address.example', [{ type: 'A', data: '192.0.2.10' }]);
    expect(await resolver.lookupTxt('_hushlink-challenge.address.example')).toEqual({ kind: 'none', reason: 'nodata' });
  });

  it('for a name that exists only because a name below it does (NODATA, not NXDOMAIN)', async () => {
    dns.setRecords('_hushlink-challenge.parent.example', [{ type: 'TXT', data: challenge }]);
    expect(await resolver.lookupTxt('parent.example')).toEqual({ kind: 'none', reason: 'nodata' });
  });
});

describe('txtResolver reports a failure', () => {
  it('SERVFAIL', async () => {
    dns.setRecords('_hushlink-challenge.servfail.example', [{ type: 'TXT', data: challenge }]);
    dns.fail('_hushlink-challenge.servfail.example', 'servfail');
    expect(await resolver.lookupTxt('_hushlink-challenge.servfail.example')).toEqual({
      kind: 'failed',
      reason: 'servfail',
      code: 'ESERVFAIL',
    });
  });

  it('REFUSED', async () => {
    dns.fail('_hushlink-challenge.refused.example', 'refused');
    expect(await resolver.lookupTxt('_hushlink-challenge.refused.example')).toEqual({
      kind: 'failed',
      reason: 'refused',
      code: 'EREFUSED',
    });
  });

  it('a server that never answers: a timeout after the bounded tries', async () => {
    const name = '_hushlink-challenge.silent.example';
    dns.fail(name, 'timeout');
    const quick = txtResolver([dns.server], { timeoutMs: 200, tries: 1 });
    expect(await quick.lookupTxt(name)).toEqual({ kind: 'failed', reason: 'timeout', code: 'ETIMEOUT' });
    expect(dns.queries()).toEqual([`udp TXT ${name}`]);
    dns.fail(name, null);
    dns.setRecords(name, [{ type: 'TXT', data: challenge }]);
    expect(await quick.lookupTxt(name)).toEqual({ kind: 'found', records: [challenge] });
  });

  it('within the deadline, however many silent servers are listed', async () => {
    const others = await Promise.all([startLocalDns(), startLocalDns()]);
    const name = '_hushlink-challenge.deadline.example';
    for (const server of [dns, ...others]) server.fail(name, 'timeout');
    try {
      // c-ares alone would wait 200 ms on each server, then 400 ms on each again: about 1.8 s.
      const bounded = txtResolver([dns.server, ...others.map((server) => server.server)], { timeoutMs: 200, tries: 2, deadlineMs: 300 });
      const started = performance.now();
      expect(await bounded.lookupTxt(name)).toEqual({ kind: 'failed', reason: 'timeout', code: 'ETIMEOUT' });
      expect(performance.now() - started).toBeLessThan(1_000);
    } finally {
      await Promise.all(others.map((server) => server.stop()));
    }
  });

  it('a server that is not there, with the resolver’s code', async () => {
    const gone = await startLocalDns();
    await gone.stop();
    expect(await txtResolver([gone.server], { timeoutMs: 200, tries: 1 }).lookupTxt('_hushlink-challenge.one.example')).toEqual({
      kind: 'failed',
      reason: 'error',
      code: 'ECONNREFUSED',
    });
  });

  it('the next listed server answers when the first is silent', async () => {
    const second = await startLocalDns({ zone: { '_hushlink-challenge.fallback.example': [{ type: 'TXT', data: challenge }] } });
    dns.fail('_hushlink-challenge.fallback.example', 'timeout');
    try {
      const lookup = await txtResolver([dns.server, second.server], { timeoutMs: 200, tries: 1 }).lookupTxt(
        '_hushlink-challenge.fallback.example',
      );
      expect(lookup).toEqual({ kind: 'found', records: [challenge] });
    } finally {
      await second.stop();
    }
  });
});

describe('parseDnsServers', () => {
  it.each([
    ['127.0.0.1:5353', ['127.0.0.1:5353']],
    ['192.0.2.53', ['192.0.2.53']],
    [' 192.0.2.53 , 198.51.100.7:53 ', ['192.0.2.53', '198.51.100.7:53']],
    ['2001:db8::53', ['2001:db8::53']],
    ['[2001:db8::53]', ['2001:db8::53']],
    ['[::1]:5353', ['[::1]:5353']],
    ['::ffff:192.0.2.1', ['::ffff:192.0.2.1']],
    ['', []],
    ['   ', []],
  ])('accepts %j', (raw, servers) => {
    expect(parseDnsServers(raw)).toEqual(servers);
  });

  it.each([
    ['dns.google', /"dns.google" is not an IP address/],
    ['localhost:53', /"localhost:53" is not an IP address/],
    ['192.0.2.53,', /"" is empty/],
    ['192.0.2.53,,198.51.100.7', /"" is empty/],
    ['192.0.2.53:0', /port that is not 1 to 65535/],
    ['192.0.2.53:65536', /port that is not 1 to 65535/],
    ['192.0.2.53:', /port that is not 1 to 65535/],
    ['192.0.2.53:5a', /port that is not 1 to 65535/],
    ['[::1]:', /port that is not 1 to 65535/],
    ['[192.0.2.53]:53', /not an IPv6 address in brackets/],
    ['[dns.google]', /not an IPv6 address in brackets/],
    ['2001:db8::53:5353:1:2:3:4', /is not an IP address/],
    ['fe80::1%eth0', /zone index|not an IP address/],
    ['192.0.2.256', /is not an IP address/],
    ['https://192.0.2.53', /is not an IP address/],
  ])('refuses %j', (raw, message) => {
    expect(() => parseDnsServers(raw)).toThrow(message);
  });

  it('gives what the resolver takes', async () => {
    const servers = parseDnsServers(` ${dns.server} `);
    dns.setRecords('_hushlink-challenge.parsed.example', [{ type: 'TXT', data: challenge }]);
    expect(await txtResolver(servers).lookupTxt('_hushlink-challenge.parsed.example')).toEqual({ kind: 'found', records: [challenge] });
  });
});
