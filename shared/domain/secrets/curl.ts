import { seal } from '../../envelope/index.ts';
import { secretLimits } from '../../limits.ts';
import { storeSecret, type CreatedSecret } from './create.ts';
import type { SecretPorts } from './ports.ts';

/** What curl mode asked for, as query strings; anything missing, malformed or out of bounds is made to fit. */
export interface CurlOptions {
  expires_in?: string | undefined;
  max_views?: string | undefined;
}

/** A bound's default for what is missing or not a whole number, and the nearest bound for what lies outside. */
function clamped(value: string | undefined, bounds: { min: number; max: number; default: number }): number {
  const number = value === undefined || !/^-?\d{1,15}$/.test(value.trim()) ? Number.NaN : Number(value.trim());
  return Number.isNaN(number) ? bounds.default : Math.min(bounds.max, Math.max(bounds.min, number));
}

export interface CurlSecret extends CreatedSecret {
  /** The link key, in the answer once and then forgotten. */
  key: string;
}

/**
 * Curl mode: the server makes the key, seals the body into a standard envelope v1 marked
 * server-encrypted (flag bit2) with the claim and link proofs the reveal page derives, stores
 * it as any text secret (in parts beyond one item's size) and forgets the key. The server sees
 * the plaintext in transit, which the README says plainly. The interface lists no 400 here:
 * the limits asked for are clamped, and the answer states the ones used.
 */
export async function createCurlSecret(plaintext: Uint8Array, options: CurlOptions, ports: SecretPorts): Promise<CurlSecret> {
  const sealed = await seal({ kind: 'text', plaintext, serverEncrypted: true });
  const created = await storeSecret(
    {
      envelope: sealed.envelope,
      salt: sealed.salt,
      expiresInSeconds: clamped(options.expires_in, secretLimits.expiresInSeconds),
      maxViews: clamped(options.max_views, secretLimits.maxViews),
      claimVerifier: sealed.claimVerifier,
      linkVerifier: sealed.linkVerifier,
    },
    null,
    ports,
  );
  return { ...created, key: sealed.key };
}
