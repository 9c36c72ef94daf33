import { Conflict, Invalid } from '../refusals.ts';

/**
 * A directory's identity provider, checked when its settings are saved (issue 29): the issuer is
 * https (in a local run, http to this machine too, where the local identity provider listens),
 * and its discovery document (OpenID Connect Discovery 1.0 §4) can be read and names exactly that
 * issuer, so a typo is refused at the form rather than at everyone's next sign-in.
 */

/**
 * What the discovery document said: it names the issuer (`matches`), it names another (`mismatch`,
 * `found` the name it gave, null when it gives none), or it could not be read (`unreachable`,
 * `found` what happened: `timeout`, `http_<status>`, `not_json`, `too_large`, `redirect` (to
 * another origin, or too many), an address refused (`forbidden_address`, `forbidden_name`,
 * `dns_failed`, `unresolvable`), or a network failure's code (`connection_refused`, `tls: …`)).
 */
export type IssuerCheck =
  | { outcome: 'matches' }
  | { outcome: 'mismatch'; found: string | null }
  | { outcome: 'unreachable'; found: string };

/** Fetches and reads an issuer's discovery document (shared/adapters/oidcDiscovery.ts): what the issuer answered is a result, never a throw. */
export interface IssuerDiscovery {
  check(issuer: string): Promise<IssuerCheck>;
}

/** Where an issuer's discovery document is: its URL without a terminating `/`, then the well-known path (Discovery §4.1). */
export const discoveryUrl = (issuer: string): string => `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;

const loopback = (hostname: string) =>
  hostname === 'localhost' || hostname.endsWith('.localhost') || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);

/** The issuer's scheme: https; in a local run (`local`) http to this machine as well. Refused as the body's `issuer`. */
export function checkIssuerScheme(issuer: string, local: boolean): void {
  const url = new URL(issuer);
  if (url.protocol === 'https:') return;
  if (local && url.protocol === 'http:' && loopback(url.hostname)) return;
  throw new Invalid('The identity provider’s issuer must be an https URL.', [
    { field: 'issuer', message: local ? 'must use https (http only to this machine: localhost, 127.0.0.1, [::1])' : 'must use https' },
  ]);
}

/** What an unreadable document's `found` means, for the sentence. */
function happened(found: string): string {
  const status = /^http_(\d{3})$/.exec(found);
  if (status) return `it answered HTTP ${status[1]}`;
  switch (found) {
    case 'timeout':
      return 'it did not answer in time';
    case 'not_json':
      return 'its answer is not a JSON object';
    case 'too_large':
      return 'its answer is larger than a discovery document can be';
    case 'redirect':
      return 'it redirects to another address';
    case 'dns_failed':
    case 'unresolvable':
      return 'its host name does not resolve';
    case 'forbidden_address':
    case 'forbidden_name':
      return 'its host is not a public address';
    case 'connection_refused':
      return 'the connection was refused';
    default:
      return found.startsWith('tls: ') ? `its TLS connection failed (${found.slice(5)})` : `the request failed (${found})`;
  }
}

/**
 * Reads the issuer's discovery document, and refuses the issuer unless the document names it
 * exactly (Discovery §4.3: sign-in will compare the same strings): 409 `issuer_unreachable` or
 * `issuer_mismatch`, `found` saying what was found.
 */
export async function requireDiscoverable(issuer: string, discovery: IssuerDiscovery): Promise<void> {
  const checked = await discovery.check(issuer);
  if (checked.outcome === 'matches') return;
  const where = discoveryUrl(issuer);
  if (checked.outcome === 'mismatch') {
    throw new Conflict(
      checked.found === null
        ? `The discovery document at ${where} names no issuer.`
        : `The discovery document at ${where} names the issuer ${checked.found}, not ${issuer}: save the issuer exactly as the identity provider names it.`,
      { facts: { reason: 'issuer_mismatch', found: checked.found } },
    );
  }
  throw new Conflict(`The identity provider’s discovery document (${where}) could not be read: ${happened(checked.found)}.`, {
    facts: { reason: 'issuer_unreachable', found: checked.found },
  });
}
