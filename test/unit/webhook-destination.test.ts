import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDns, type DnsRecord, type LocalDns } from '../../local/dns.ts';
import {
  classifyAddress,
  DestinationRefused,
  isPublicAddress,
  parseWebhookUrl,
  resolveDestination,
  systemResolver,
  type HostResolver,
} from '../../shared/webhooks/destination.ts';

function refusal(run: () => unknown): DestinationRefused {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(DestinationRefused);
    return error as DestinationRefused;
  }
  throw new Error('expected a refusal');
}

async function asyncRefusal(promise: Promise<unknown>): Promise<DestinationRefused> {
  const error = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(error).toBeInstanceOf(DestinationRefused);
  return error as DestinationRefused;
}

describe('parseWebhookUrl refuses (outside local mode)', () => {
  const refused: [string, string][] = [
    ['https://127.0.0.1/hook', 'forbidden_address'],
    ['https://127.1/hook', 'forbidden_address'],
    ['https://2130706433/hook', 'forbidden_address'],
    ['https://0x7f000001/hook', 'forbidden_address'],
    ['https://0x7f.1/hook', 'forbidden_address'],
    ['https://0177.0.0.1/hook', 'forbidden_address'],
    ['https://10.0.0.1/hook', 'forbidden_address'],
    ['https://172.16.0.1/hook', 'forbidden_address'],
    ['https://192.168.1.1/hook', 'forbidden_address'],
    ['https://169.254.169.254/latest/meta-data/', 'forbidden_address'],
    ['https://100.64.0.1/hook', 'forbidden_address'],
    ['https://100.100.100.200/hook', 'forbidden_address'],
    ['https://168.63.129.16/hook', 'forbidden_address'],
    ['https://0.0.0.0/hook', 'forbidden_address'],
    ['https://224.0.0.1/hook', 'forbidden_address'],
    ['https://255.255.255.255/hook', 'forbidden_address'],
    ['https://198.18.0.1/hook', 'forbidden_address'],
    ['https://240.0.0.1/hook', 'forbidden_address'],
    ['https://[::1]/hook', 'forbidden_address'],
    ['https://[::]/hook', 'forbidden_address'],
    ['https://[::ffff:127.0.0.1]/hook', 'forbidden_address'],
    ['https://[::ffff:a9fe:a9fe]/hook', 'forbidden_address'],
    ['https://[::127.0.0.1]/hook', 'forbidden_address'],
    ['https://[fe80::1]/hook', 'forbidden_address'],
    ['https://[fc00::1]/hook', 'forbidden_address'],
    ['https://[fd00:ec2::254]/hook', 'forbidden_address'],
    ['https://[ff02::1]/hook', 'forbidden_address'],
    ['https://[64:ff9b::7f00:1]/hook', 'forbidden_address'],
    ['https://[64:ff9b::a9fe:a9fe]/hook', 'forbidden_address'],
    ['https://[2002:7f00:1::]/hook', 'forbidden_address'],
    ['https://[2001::1]/hook', 'forbidden_address'],
    ['https://[2001:db8::1]/hook', 'forbidden_address'],
    ['https://localhost/hook', 'forbidden_name'],
    ['https://LOCALHOST./hook', 'forbidden_name'],
    ['https://api.localhost/hook', 'forbidden_name'],
    ['https://metadata.google.internal/computeMetadata/v1/', 'forbidden_name'],
    ['https://ip-10-0-0-1.ec2.internal/hook', 'forbidden_name'],
    ['https://printer.local/hook', 'forbidden_name'],
    ['https://nas.home.arpa/hook', 'forbidden_name'],
    ['https://metadata/hook', 'forbidden_name'],
    ['http://example.com/hook', 'not_https'],
    ['http://127.0.0.1:8080/hook', 'not_https'],
    ['ftp://example.com/hook', 'not_https'],
    ['file:///etc/passwd', 'not_https'],
    ['https://user:pass@example.com/hook', 'userinfo'],
    ['https://user@example.com/hook', 'userinfo'],
    ['https://example.com:0/hook', 'bad_port'],
    ['not a url', 'invalid_url'],
    ['https://', 'invalid_url'],
    ['https://256.0.0.1/hook', 'invalid_url'],
    [`https://example.com/${'a'.repeat(2048)}`, 'too_long'],
  ];

  it.each(refused)('%s → %s', (raw, reason) => {
    const error = refusal(() => parseWebhookUrl(raw, { local: false }));
    expect(error.reason).toBe(reason);
    expect(error.message).not.toBe('');
  });

  it('names the offending address and its range', () => {
    expect(refusal(() => parseWebhookUrl('https://0x7f.1/', { local: false })).message).toMatch(/127\.0\.0\.1.*loopback/);
  });
});

describe('parseWebhookUrl accepts', () => {
  it.each([
    'https://93.184.215.14/hook',
    'https://[2606:4700::1111]/hook',
    'https://hooks.example.com:8443/a?b=c',
    'https://[::ffff:93.184.215.14]/',
  ])('%s', (raw) => {
    expect(parseWebhookUrl(raw, { local: false })).toBeInstanceOf(URL);
  });

  it('strips the fragment and keeps the rest', () => {
    expect(parseWebhookUrl('https://Example.COM/hook?x=1#secret', { local: false }).href).toBe('https://example.com/hook?x=1');
  });

  it('allows http to loopback in local mode only', () => {
    for (const raw of ['http://127.0.0.1:4010/hook', 'http://localhost:4010/hook', 'http://[::1]:4010/hook', 'https://localhost/hook']) {
      expect(parseWebhookUrl(raw, { local: true }).href).toBe(raw);
    }
    expect(refusal(() => parseWebhookUrl('http://example.com/hook', { local: true })).reason).toBe('not_https');
    expect(refusal(() => parseWebhookUrl('http://10.0.0.1/hook', { local: true })).reason).toBe('not_https');
    expect(refusal(() => parseWebhookUrl('https://10.0.0.1/hook', { local: true })).reason).toBe('forbidden_address');
  });
});

describe('classifyAddress', () => {
  it.each([
    ['93.184.215.14', 'unicast'],
    ['2606:4700::1111', 'unicast'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:93.184.215.14', 'unicast'],
    ['64:ff9b::5db8:d70e', 'unicast'],
    ['64:ff9b::a00:1', 'private'],
    ['64:ff9b:1::1', 'rfc6052'],
    ['::7f00:1', 'reserved'],
    ['4000::1', 'reserved'],
    ['2002:7f00:1::', '6to4'],
    ['169.254.169.254', 'cloudMetadata'],
    ['fd00:ec2::254', 'cloudMetadata'],
    ['168.63.129.16', 'cloudMetadata'],
    ['127.1', 'invalid'],
    ['fe80::1%eth0', 'invalid'],
    ['example.com', 'invalid'],
  ])('%s is %s', (ip, range) => {
    expect(classifyAddress(ip)).toBe(range);
  });

  it('lets loopback through only when asked to', () => {
    expect(isPublicAddress('127.0.0.1', { allowLoopback: false })).toBe(false);
    expect(isPublicAddress('::1', { allowLoopback: true })).toBe(true);
    expect(isPublicAddress('10.0.0.1', { allowLoopback: true })).toBe(false);
  });
});

describe('resolveDestination against a real DNS server', () => {
  let dns: LocalDns;
  let resolver: HostResolver;
  const resolve = (raw: string, local = false) => resolveDestination(new URL(raw), { local, resolver });

  beforeAll(async () => {
    const a = (data: string): DnsRecord => ({ type: 'A', data });
    const aaaa = (data: string): DnsRecord => ({ type: 'AAAA', data });
    dns = await startLocalDns({
      zone: {
        'public.example': [a('93.184.215.14')],
        'dual.example': [a('93.184.215.14'), aaaa('2606:2800:21f:cb07:6820:80da:af6b:8b2c')],
        'v6only.example': [aaaa('2606:4700::1111')],
        'private.example': [a('10.1.2.3')],
        'metadata.example': [a('169.254.169.254')],
        'loopback6.example': [aaaa('::1')],
        'mapped.example': [aaaa('::ffff:10.0.0.1')],
        'mixed.example': [a('93.184.215.14'), a('10.0.0.1')],
        'mixed-family.example': [a('93.184.215.14'), aaaa('fd00::1')],
        'loopback4.example': [a('127.0.0.1')],
        // A name with records, none of them addresses: NODATA for A and AAAA.
        'empty.example': [{ type: 'TXT', data: 'no address here' }],
      },
    });
    dns.fail('broken.example', 'servfail');
    resolver = systemResolver([dns.server]);
  });
  afterAll(() => dns.stop());

  it('accepts a name with a public address, preferring IPv4', async () => {
    expect(await resolve('https://public.example/hook')).toEqual({ address: '93.184.215.14', family: 4 });
    expect(await resolve('https://dual.example/hook')).toEqual({ address: '93.184.215.14', family: 4 });
    expect(await resolve('https://v6only.example/hook')).toEqual({ address: '2606:4700::1111', family: 6 });
    expect(dns.queries()).toEqual(expect.arrayContaining(['udp A public.example', 'udp AAAA public.example']));
  });

  it.each([
    ['private.example', /10\.1\.2\.3 .*private/],
    ['metadata.example', /169\.254\.169\.254 .*cloudMetadata/],
    ['loopback6.example', /::1 .*loopback/],
    ['mapped.example', /::ffff:10\.0\.0\.1 .*private/],
    ['mixed.example', /10\.0\.0\.1 .*private/],
    ['mixed-family.example', /fd00::1 .*uniqueLocal/],
    ['loopback4.example', /127\.0\.0\.1 .*loopback/],
  ])('refuses %s', async (name, message) => {
    const error = await asyncRefusal(resolve(`https://${name}/hook`));
    expect(error.reason).toBe('forbidden_address');
    expect(error.message).toMatch(message);
  });

  it('lets a name resolve to loopback in local mode, but nothing else private', async () => {
    expect(await resolve('https://loopback4.example/hook', true)).toEqual({ address: '127.0.0.1', family: 4 });
    expect((await asyncRefusal(resolve('https://mixed.example/hook', true))).reason).toBe('forbidden_address');
  });

  it('refuses a name with no address, with a clear reason', async () => {
    const missing = await asyncRefusal(resolve('https://nowhere.example/hook'));
    expect(missing.reason).toBe('unresolvable');
    expect(missing.message).toBe('Webhook host nowhere.example does not resolve to any address');
    expect((await asyncRefusal(resolve('https://empty.example/hook'))).reason).toBe('unresolvable');
  });

  it('reports a failing DNS server as dns_failed', async () => {
    expect((await asyncRefusal(resolve('https://broken.example/hook'))).reason).toBe('dns_failed');
  });

  it('re-applies the URL rules, so a stored URL is judged by them at delivery', async () => {
    expect((await asyncRefusal(resolve('http://public.example/hook'))).reason).toBe('not_https');
    expect((await asyncRefusal(resolve('https://localhost/hook'))).reason).toBe('forbidden_name');
  });
});

describe('resolveDestination without DNS', () => {
  const noDns: HostResolver = {
    resolve4: () => Promise.reject(new Error('no DNS expected')),
    resolve6: () => Promise.reject(new Error('no DNS expected')),
  };
  const resolve = (raw: string, local = false) => resolveDestination(new URL(raw), { local, resolver: noDns });

  it('uses IP literals as they are, unmapping IPv4-mapped IPv6', async () => {
    expect(await resolve('https://93.184.215.14/')).toEqual({ address: '93.184.215.14', family: 4 });
    expect(await resolve('https://[2606:4700::1111]/')).toEqual({ address: '2606:4700::1111', family: 6 });
    expect(await resolve('https://[::ffff:93.184.215.14]/')).toEqual({ address: '93.184.215.14', family: 4 });
    expect(await resolve('http://127.0.0.1:4010/', true)).toEqual({ address: '127.0.0.1', family: 4 });
  });

  it('answers localhost itself in local mode', async () => {
    expect(await resolve('http://localhost:4010/hook', true)).toEqual({ address: '127.0.0.1', family: 4 });
  });
});
