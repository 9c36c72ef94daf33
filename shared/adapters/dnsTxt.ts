// TXT lookups for custom-domain verification (issue 17). The service asks DNS servers directly
// (`DNS_SERVERS`, or the system's) rather than through getaddrinfo, which has no TXT, and says
// exactly how a lookup ended: "no such record" may be told to the customer and tried again
// later, a failing server is ours or theirs to wait out, and the two must not be confused.
import { Resolver } from 'node:dns/promises';
import { isIPv4, isIPv6 } from 'node:net';
import type { TxtLookup, TxtResolver } from '../domain/domains/ports.ts';

export interface TxtResolverOptions {
  /** The first try's wait for an answer; c-ares doubles it for each later round (measured). */
  timeoutMs?: number;
  /** Tries per server. */
  tries?: number;
  /**
   * The whole lookup ends by then, however many servers are listed: c-ares asks each in turn, so
   * its own worst case grows with the list (measured with 2 s and 2 tries: 5–6 s for one server,
   * 12 s for two, 16 s for three).
   */
  deadlineMs?: number;
}

/**
 * One server's worst case fits the deadline (2 s, then up to 4 s), and a verify request, which
 * looks up once, answers well inside API Gateway's 30 s.
 */
export const defaultTxtLookupBounds = { timeoutMs: 2_000, tries: 2, deadlineMs: 6_000 } as const;

const outcomes: Record<string, TxtLookup> = {
  ENOTFOUND: { kind: 'none', reason: 'nxdomain' },
  ENODATA: { kind: 'none', reason: 'nodata' },
  ESERVFAIL: { kind: 'failed', reason: 'servfail', code: 'ESERVFAIL' },
  EREFUSED: { kind: 'failed', reason: 'refused', code: 'EREFUSED' },
  ETIMEOUT: { kind: 'failed', reason: 'timeout', code: 'ETIMEOUT' },
  // Only the deadline cancels: each lookup has a resolver of its own.
  ECANCELLED: { kind: 'failed', reason: 'timeout', code: 'ETIMEOUT' },
};

/**
 * A TXT resolver asking `servers` ('ip' or 'ip:port', as parseDnsServers gives them), or the
 * system's when none are given.
 */
export function txtResolver(servers?: string[], options: TxtResolverOptions = {}): TxtResolver {
  const { timeoutMs, tries, deadlineMs } = { ...defaultTxtLookupBounds, ...options };
  return {
    async lookupTxt(name) {
      // A resolver per lookup, so the deadline's cancel() ends this lookup alone, and no answer
      // is ever served from an earlier lookup's cache: a verify must see the record as it is now.
      const resolver = new Resolver({ timeout: timeoutMs, tries });
      if (servers && servers.length > 0) resolver.setServers(servers);
      const deadline = setTimeout(() => resolver.cancel(), deadlineMs);
      try {
        const records = await resolver.resolveTxt(name);
        // Node hands each character-string over as Latin-1, one character per byte: joined, the
        // bytes are read again as the UTF-8 they were published in, a character split across two
        // strings included.
        return { kind: 'found', records: records.map((strings) => Buffer.from(strings.join(''), 'latin1').toString('utf8')) };
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        const known = typeof code === 'string' ? outcomes[code] : undefined;
        return known ?? { kind: 'failed', reason: 'error', code: typeof code === 'string' ? code : 'EUNKNOWN' };
      } finally {
        clearTimeout(deadline);
      }
    },
  };
}

/**
 * The `DNS_SERVERS` setting: a comma-separated list of addresses, each with an optional port
 * (`192.0.2.53`, `192.0.2.53:5353`, `2001:db8::53`, `[2001:db8::53]:5353`), in the form
 * `Resolver.setServers` takes. Blank means the system's servers (an empty list). Names are
 * refused: finding the DNS server would itself need DNS.
 */
export function parseDnsServers(raw: string): string[] {
  if (raw.trim() === '') return [];
  return raw.split(',').map((entry) => {
    const server = entry.trim();
    const refuse = (why: string): never => {
      throw new Error(`DNS_SERVERS: ${JSON.stringify(server)} ${why}`);
    };
    if (server === '') refuse('is empty (a comma too many?)');
    let host = server;
    let port: string | undefined;
    const bracketed = /^\[([^\]]*)\](?::(.*))?$/.exec(server);
    if (bracketed) {
      host = bracketed[1]!;
      port = bracketed[2];
      if (!isIPv6(host)) refuse('is not an IPv6 address in brackets');
    } else if (server.split(':').length === 2) {
      [host, port] = server.split(':') as [string, string];
    }
    if (!isIPv4(host) && !isIPv6(host)) refuse('is not an IP address, with an optional :port (names are not accepted)');
    if (host.includes('%')) refuse('has a zone index');
    if (port !== undefined && (!/^[0-9]{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65_535))
      refuse('has a port that is not 1 to 65535');
    if (port === undefined) return host;
    return isIPv6(host) ? `[${host}]:${Number(port)}` : `${host}:${Number(port)}`;
  });
}
