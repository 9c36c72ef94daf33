import { seal } from '../../envelope/index.ts';
import { secretLimits } from '../../limits.ts';
import { storeSecret, type CreatedSecret } from './create.ts';
import type { SecretPorts } from './ports.ts';

/** What curl mode asked for, each a whole number or not said (what was not one is not said); out of bounds is made to fit. */
export interface CurlOptions {
  expiresInSeconds?: number | undefined;
  maxViews?: number | undefined;
}

/** A bound's default for what is not said, and the nearest bound for what lies outside. */
const clamped = (value: number | undefined, bounds: { min: number; max: number; default: number }): number =>
  value === undefined ? bounds.default : Math.min(bounds.max, Math.max(bounds.min, value));

export interface CurlSecret extends CreatedSecret {
  /** The link key, in the answer once and then forgotten. */
  key: string;
}

/**
 * Curl mode: the server makes the key, seals the body into a standard envelope v1 marked
 * server-encrypted (flag bit2) with the claim and link proofs the reveal page derives, stores
 * it as any text secret (in parts beyond one item's size) and forgets the key. The server sees
 * the plaintext in transit, which the README says plainly. Nothing here is refused: the limits
 * asked for are clamped, and the answer states the ones used.
 */
export async function createCurlSecret(plaintext: Uint8Array, options: CurlOptions, ports: SecretPorts): Promise<CurlSecret> {
  const sealed = await seal({ kind: 'text', plaintext, serverEncrypted: true });
  const created = await storeSecret(
    {
      envelope: sealed.envelope,
      salt: sealed.salt,
      expiresInSeconds: clamped(options.expiresInSeconds, secretLimits.expiresInSeconds),
      maxViews: clamped(options.maxViews, secretLimits.maxViews),
      claimVerifier: sealed.claimVerifier,
      linkVerifier: sealed.linkVerifier,
    },
    null,
    ports,
  );
  return { ...created, key: sealed.key };
}
