import { isIP } from 'node:net';

export type HostnameResult = { hostname: string } | { refused: string };

/** Characters a hostname never has but the URL parser would read as something else (a path, a port, userinfo, an escape). */
const notHostname = /[\s/\\?#@:%[\]*]/;
/** Letters, digits and inner dashes per label (63 at most), 253 in all, a top-level label that is not all digits. */
const asciiHostname = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?=[a-z0-9-]*[a-z])[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/**
 * Names no public DNS answers for (RFC 6761 and RFC 6762's `local`, RFC 8375's `home.arpa`, and
 * `internal`): no certificate can be issued for them, so AWS refuses them. A local run takes
 * them, so a developer can try the flow on names the local DNS server answers.
 */
const specialUse = ['localhost', 'local', 'test', 'example', 'invalid', 'internal', 'home.arpa'];

/** Lower case, without a trailing dot. */
const bare = (host: string) => host.toLowerCase().replace(/\.$/, '');
/** `host` is `domain` or a name under it. */
const within = (host: string, domain: string) => host === domain || host.endsWith(`.${domain}`);

/**
 * A hostname as a workspace claims it: trimmed, lower-cased, without a trailing dot, an IDN in
 * its ASCII (punycode) form by the WHATWG URL parser's host processing (as recipient domains and
 * webhook hosts are read). Refused: IP literals, single labels, anything not a DNS name, and
 * this deployment's own host and the names under it (the operator's, never a workspace's).
 */
export function normalizeHostname(raw: string, options: { ownHost: string; local: boolean }): HostnameResult {
  const trimmed = raw.trim();
  if (trimmed === '' || notHostname.test(trimmed))
    return { refused: 'must be a hostname such as secrets.example.com, without a scheme, path or port' };
  if (isIP(trimmed.replace(/^\[|\]$/g, ''))) return { refused: 'must be a hostname, not an IP address' };
  let host: string;
  try {
    host = bare(new URL(`http://${trimmed}/`).hostname);
  } catch {
    return { refused: 'must be a hostname such as secrets.example.com' };
  }
  // The URL parser reads `1.2.3` or `0x7f.1` as IPv4 addresses.
  if (isIP(host)) return { refused: 'must be a hostname, not an IP address' };
  if (!host.includes('.')) return { refused: 'must have at least two labels, such as secrets.example.com' };
  if (!asciiHostname.test(host))
    return { refused: 'must be a hostname of letters, digits and dashes, at most 63 characters a label and 253 in all' };
  // Its challenge's name (`_hushlink-challenge.` and it) must be a DNS name too: 253 at most.
  if (challengeName(host).length > 253)
    return { refused: `must be at most ${253 - challengeName('').length} characters, so that its TXT record's name fits in DNS` };
  if (within(host, bare(options.ownHost))) return { refused: 'is this service’s own host, or a name under it' };
  if (!options.local && specialUse.some((name) => within(host, name)))
    return {
      refused:
        'must be a public DNS name: special-use names (localhost, .local, .test, .example, .invalid, .internal) have no certificates',
    };
  return { hostname: host };
}

/** The name the TXT challenge of a hostname is published at. */
export const challengeName = (hostname: string): string => `_hushlink-challenge.${hostname}`;
/** The value of the TXT record that proves a claim. */
export const challengeValue = (token: string): string => `hushlink-verification=${token}`;
