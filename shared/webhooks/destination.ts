// Where a webhook may point. A webhook URL is chosen by a customer and fetched
// by us from inside AWS, so every rule here exists to stop it being aimed at
// something only we can reach: loopback (the Lambda runtime API), the VPC,
// instance/task metadata, or a name that a resolver answers with any of those.
import { isIPv4, isIPv6 } from 'node:net';
import { Resolver } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

export const MAX_WEBHOOK_URL_LENGTH = 2048;

export type RefusalReason =
  | 'invalid_url'
  | 'too_long'
  | 'not_https'
  | 'userinfo'
  | 'bad_port'
  | 'forbidden_name'
  | 'forbidden_address'
  | 'unresolvable'
  | 'dns_failed';

/** A destination we will not deliver to; `reason` is stable, `message` is for people. */
export class DestinationRefused extends Error {
  override readonly name = 'DestinationRefused';
  constructor(
    readonly reason: RefusalReason,
    message: string,
  ) {
    super(message);
  }
}

export interface HostResolver {
  resolve4(host: string): Promise<string[]>;
  resolve6(host: string): Promise<string[]>;
}

export interface Destination {
  address: string;
  family: 4 | 6;
}

// Metadata endpoints get their own class so a refusal says what was hit. Most
// already fall in a refused range; Azure's wireserver is a public address that
// only answers from inside Azure, and is the one this list actually adds.
const CLOUD_METADATA = new Set([
  '169.254.169.254', // AWS, GCP, Azure IMDS
  '169.254.170.2', // AWS ECS task metadata and credentials
  'fd00:ec2::254', // AWS IMDS over IPv6
  '100.100.100.200', // Alibaba Cloud
  '168.63.129.16', // Azure wireserver
]);

const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * The range an address belongs to; only 'unicast' is public. Non-canonical
 * spellings ('127.1', '0x7f.0.0.1') are 'invalid' here: URLs are normalised by
 * the WHATWG parser before they get this far, and DNS answers are canonical.
 */
export function classifyAddress(ip: string): string {
  if (ip.includes('%') || (!isIPv4(ip) && !isIPv6(ip))) return 'invalid';
  // process() turns ::ffff:a.b.c.d into a.b.c.d, which is where a dual-stack
  // socket would really connect.
  const addr = ipaddr.process(ip);
  if (CLOUD_METADATA.has(addr.toString())) return 'cloudMetadata';
  if (addr.kind() === 'ipv4') return addr.range();
  const v6 = addr as ipaddr.IPv6;
  // NAT64 (RFC 6052 well-known prefix) is judged by the IPv4 address it embeds:
  // refusing it outright would break every IPv4-only receiver behind a DNS64
  // resolver, and passing it would let 64:ff9b::7f00:1 reach loopback.
  if (v6.match(NAT64_WELL_KNOWN)) {
    return classifyAddress(ipaddr.fromByteArray(v6.toByteArray().slice(12)).toString());
  }
  const range = v6.range();
  // ipaddr.js calls whatever is not special 'unicast', including the
  // IPv4-compatible ::a.b.c.d block; only 2000::/3 is allocated as global.
  if (range === 'unicast' && !v6.match(GLOBAL_UNICAST_V6)) return 'reserved';
  // 6to4 (2002::/16) and Teredo (2001::/32) also embed IPv4 addresses but are
  // refused as they are: no one hosts a webhook receiver on a tunnel address.
  return range;
}

export function isPublicAddress(ip: string, options: { allowLoopback: boolean } = { allowLoopback: false }): boolean {
  const range = classifyAddress(ip);
  return range === 'unicast' || (options.allowLoopback && range === 'loopback');
}

// Special-use names no public receiver can have; a resolver that answers them
// at all answers with something local (RFC 6761, 6762, 8375, ICANN's .internal,
// where cloud providers put metadata.google.internal and ec2.internal).
const LOCAL_SUFFIXES = [
  'localhost',
  'local',
  'internal',
  'home.arpa',
  'localdomain',
  'lan',
  'intranet',
  'corp',
  'invalid',
  'test',
  'onion',
];

function isLoopbackName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost');
}

/** The hostname without brackets or a trailing dot, and whether it is an IP literal. */
function hostOf(url: URL): { host: string; literal: boolean } {
  const hostname = url.hostname;
  if (hostname.startsWith('[')) return { host: hostname.slice(1, -1), literal: true };
  const host = hostname.replace(/\.$/, '').toLowerCase();
  return { host, literal: isIPv4(host) };
}

function refuseAddress(address: string, context: string): never {
  throw new DestinationRefused('forbidden_address', `${context} ${address} is not a public address (${classifyAddress(address)})`);
}

/**
 * Checks a customer's webhook URL against every rule that needs no DNS, and
 * returns it without its fragment (never sent, and not ours to store).
 */
export function parseWebhookUrl(raw: string, options: { local: boolean }): URL {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) {
    throw new DestinationRefused('too_long', `Webhook URL is longer than ${MAX_WEBHOOK_URL_LENGTH} characters`);
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DestinationRefused('invalid_url', 'Webhook URL is not a valid URL');
  }
  const { host, literal } = hostOf(url);
  const loopbackHost = literal ? classifyAddress(host) === 'loopback' : isLoopbackName(host);

  if (url.protocol !== 'https:' && !(options.local && url.protocol === 'http:' && loopbackHost)) {
    throw new DestinationRefused(
      'not_https',
      options.local ? 'Webhook URL must use https (http only to loopback)' : 'Webhook URL must use https',
    );
  }
  // Credentials in a URL end up in logs and in our store; receivers should
  // authenticate us by the signature instead.
  if (url.username !== '' || url.password !== '') {
    throw new DestinationRefused('userinfo', 'Webhook URL must not contain a user name or password');
  }
  if (url.port === '0') throw new DestinationRefused('bad_port', 'Webhook URL has port 0');
  if (host === '') throw new DestinationRefused('invalid_url', 'Webhook URL has no host');

  if (literal) {
    if (!isPublicAddress(host, { allowLoopback: options.local })) refuseAddress(host, 'Webhook host');
  } else if (!(options.local && isLoopbackName(host))) {
    // A name without a dot is completed from the resolver's search list, so
    // 'metadata' or 'db' would mean whatever the network we run in says.
    if (!host.includes('.')) {
      throw new DestinationRefused('forbidden_name', `Webhook host ${host} is not a fully qualified domain name`);
    }
    if (LOCAL_SUFFIXES.some((suffix) => host === suffix || host.endsWith(`.${suffix}`))) {
      throw new DestinationRefused('forbidden_name', `Webhook host ${host} is a local or special-use name`);
    }
  }
  url.hash = '';
  return url;
}

function familyOf(address: string): 4 | 6 {
  return isIPv4(address) ? 4 : 6;
}

/**
 * The one address a delivery may connect to. Every rule of parseWebhookUrl is
 * applied again (a stored URL is checked against today's rules), and then
 * every A and AAAA record must be public: a name that mixes a public and a
 * private record could otherwise get past the check and be connected to the
 * private one. IPv4 is preferred because Lambda outside a dual-stack VPC has
 * no IPv6 egress.
 */
export async function resolveDestination(url: URL, options: { local: boolean; resolver: HostResolver }): Promise<Destination> {
  const checked = parseWebhookUrl(url.href, { local: options.local });
  const { host, literal } = hostOf(checked);
  const allowLoopback = options.local;

  if (literal) {
    // The connection goes to the unmapped IPv4 address, which is what was judged.
    const address = ipaddr.process(host).toString();
    return { address, family: familyOf(address) };
  }
  // RFC 6761 lets us answer these ourselves, and the DNS resolver would not
  // read /etc/hosts anyway.
  if (options.local && isLoopbackName(host)) return { address: '127.0.0.1', family: 4 };

  let answers: string[][];
  try {
    answers = await Promise.all([options.resolver.resolve4(host), options.resolver.resolve6(host)]);
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'error';
    throw new DestinationRefused('dns_failed', `Could not resolve webhook host ${host} (${code})`);
  }
  const addresses = answers.flat();
  if (addresses.length === 0) {
    throw new DestinationRefused('unresolvable', `Webhook host ${host} does not resolve to any address`);
  }
  for (const address of addresses) {
    if (!isPublicAddress(address, { allowLoopback })) refuseAddress(address, `Webhook host ${host} resolves to`);
  }
  const address = ipaddr.process(addresses[0]!).toString();
  return { address, family: familyOf(address) };
}

// Not finding a record of one family is normal (an IPv4-only host has no
// AAAA); NXDOMAIN shows up as ENOTFOUND for both and so as "no address".
const NO_RECORDS = new Set(['ENODATA', 'ENOTFOUND']);

async function orEmpty(lookup: Promise<string[]>): Promise<string[]> {
  try {
    return await lookup;
  } catch (error) {
    if (NO_RECORDS.has((error as { code?: string }).code ?? '')) return [];
    throw error;
  }
}

/**
 * A resolver that asks DNS servers directly (the system's, or `servers` as
 * 'ip' or 'ip:port'), bounded so that two tries fit well inside a delivery's
 * 10 s budget.
 */
export function systemResolver(servers?: string[]): HostResolver {
  const resolver = new Resolver({ timeout: 2_000, tries: 2 });
  if (servers) resolver.setServers(servers);
  return {
    resolve4: (host) => orEmpty(resolver.resolve4(host)),
    resolve6: (host) => orEmpty(resolver.resolve6(host)),
  };
}
