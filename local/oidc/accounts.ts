import { createHash } from 'node:crypto';
import type { Account } from 'oidc-provider';

/** The address as the provider keeps it: trimmed and lower-cased (as the service normalizes addresses). */
export const normalizeAddress = (email: string): string => email.trim().toLowerCase();

/**
 * What the login page accepts: one `@`, a local part of 1…64 characters and a domain (any: no
 * list of domains, no DNS), nothing blank, 254 characters at most. A typo's guard, not RFC 5322.
 */
export function addressProblem(email: string): string | null {
  if (email.length === 0) return 'Type an email address.';
  if (email.length > 254) return 'An email address has 254 characters at most.';
  const at = email.indexOf('@');
  if (at !== email.lastIndexOf('@') || at < 1 || at > 64)
    return 'An email address has one @ with a name before it (64 characters at most).';
  const domain = email.slice(at + 1);
  if (/\s/.test(email) || !/^[^.]+(\.[^.]+)*$/.test(domain)) return 'The part after @ must be a domain, such as example.com.';
  return null;
}

/**
 * The subject (`sub`) of an address: `idp_` and 22 base64url characters (132 bits) of the SHA-256
 * of the normalized address. Stable across restarts and providers, so a service that links the
 * subject finds the same person next run; `idp_` so it is never taken for the service's own
 * `usr_` ids.
 */
export const subjectOf = (email: string): string =>
  `idp_${createHash('sha256').update(normalizeAddress(email)).digest('base64url').slice(0, 22)}`;

/**
 * The people of the local provider: anyone who types an address on the login page. The provider
 * knows a person by their subject (its `accountId` is the `sub` of their tokens), so the address
 * behind each subject is remembered here, in memory; `email_verified` is true unless a test said
 * otherwise for that address.
 */
export class LocalAccounts {
  readonly #addresses = new Map<string, string>();
  readonly #unverified = new Set<string>();

  /** The subject for a signed-in address (normalized), remembered for `find`. */
  signIn(email: string): string {
    const address = normalizeAddress(email);
    const subject = subjectOf(address);
    this.#addresses.set(subject, address);
    return subject;
  }

  /** What the ID token and userinfo say of this address from now on (also before it first signs in). */
  setUser(email: string, settings: { email_verified?: boolean }): { sub: string; email: string; email_verified: boolean } {
    const address = normalizeAddress(email);
    const subject = subjectOf(address);
    this.#addresses.set(subject, address);
    if (settings.email_verified === false) this.#unverified.add(address);
    else if (settings.email_verified === true) this.#unverified.delete(address);
    return { sub: subject, email: address, email_verified: !this.#unverified.has(address) };
  }

  /** The provider's `findAccount`: the claims of a known subject (`sub`, `email`, `email_verified`), else undefined. */
  find(subject: string): Account | undefined {
    const address = this.#addresses.get(subject);
    if (address === undefined) return undefined;
    return {
      accountId: subject,
      claims: () => ({ sub: subject, email: address, email_verified: !this.#unverified.has(address) }),
    };
  }
}
