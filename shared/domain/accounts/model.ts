import type { RefreshGrace } from './refreshGrace.ts';
import type { Language } from '../../languages.ts';
import type { Scope } from '../../routes.ts';

export type Plan = 'free' | 'pro' | 'team' | 'enterprise';

/**
 * An account. Its plan is held as its two writers left it (billing/tier.ts, `PlanFacts`): `plan`
 * is the payment provider's, `contractPlan` a contract's (sales'); the account is on the higher,
 * `planInUse(user)`, which is the only way to read the plan it is on.
 */
export interface User {
  id: string;
  email: string;
  /** The provider's plan (free when the account is made). */
  plan: Plan;
  /** A contract's plan; absent without one (and never given when an account is made). */
  contractPlan?: Plan;
  createdAt: number;
  tosVersion?: string;
  tosAcceptedAt?: number;
  /** The language the account's mails go out in (issue 32), chosen on the account page; absent until chosen. */
  locale?: Language;
}

/** One signed-in device. Its refresh token is stored only as a hash and rotated on every use. */
export interface Session {
  id: string;
  userId: string;
  deviceName: string;
  createdAt: number;
  lastUsedAt: number;
  refreshHash: string;
  /** Hashes of refresh tokens already rotated away: presenting one means a token was stolen. */
  rotatedHashes: string[];
  /**
   * Tags every refresh token the session issues (refreshChain.ts), so it knows them all, however
   * many rotations ago; absent on sessions opened before, until their next rotation.
   */
  chainKey?: string;
  /** The last rotation, for the old token's grace window (refreshGrace.ts). */
  grace?: RefreshGrace;
  refreshExpiresAt: number;
  revokedAt?: number;
  /** Opened through a workspace's single sign-on (issue 29): that workspace's directory may revoke it (a SCIM deactivation). */
  sso?: { workspaceId: string };
}

export interface ApiKey {
  id: string;
  userId: string;
  name: string;
  /** The first characters of the key, shown so a person can tell keys apart. */
  prefix: string;
  scopes: Scope[];
  keyHash: string;
  createdAt: number;
  expiresAt?: number;
  lastUsedAt?: number;
}

/** Who is calling, once a credential has been checked. */
export type Principal =
  | { kind: 'session'; userId: string; sessionId: string }
  | { kind: 'api_key'; userId: string; keyId: string; scopes: Scope[] };

/**
 * A code mailed for a sign-in, stored as a salted hash, with the one-click link mailed beside it:
 * one entry, so using either uses both.
 */
export interface SignInCode {
  codeHash: string;
  salt: string;
  /**
   * The SHA-256 of the link's token (`hls_…`, 256 random bits); absent on codes mailed before
   * sign-in links were, which work as codes only.
   */
  linkHash?: string;
  sentAt: number;
  expiresAt: number;
}

/** The codes of one exact address, as last written (expired ones too, until the next write). */
export interface SignInCodes {
  codes: SignInCode[];
  /** Counts the writes: a write must find the version it read (0: no codes yet). */
  version: number;
}

/** An ES256 key pair of the access-token signer, as JWKs. */
export interface SigningKey {
  kid: string;
  createdAt: number;
  privateJwk: JsonWebKey;
  publicJwk: JsonWebKey;
}

/** An account's identity: one account per normalized address. Codes are per normalized address too. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

/**
 * The address sign-in caps and guess budgets count: normalized, without a `+tag` in the local
 * part, so `ana+1@x` and `ana+2@x` (one mailbox) share them. It names no account and no code.
 */
export function capAddress(email: string): string {
  const normalized = normalizeEmail(email);
  const at = normalized.lastIndexOf('@');
  const plus = normalized.indexOf('+');
  return plus > 0 && plus < at ? `${normalized.slice(0, plus)}${normalized.slice(at)}` : normalized;
}
