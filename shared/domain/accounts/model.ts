import type { RefreshGrace } from './refreshGrace.ts';
import type { Scope } from '../../routes.ts';

export type Plan = 'free' | 'pro' | 'team' | 'enterprise';

export interface User {
  id: string;
  email: string;
  plan: Plan;
  createdAt: number;
  tosVersion?: string;
  tosAcceptedAt?: number;
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

/** A pending sign-in code, stored as a salted hash with its attempt count. */
export interface SignInCode {
  emailHash: string;
  codeHash: string;
  salt: string;
  attempts: number;
  sentAt: number;
  expiresAt: number;
}

/** An ES256 key pair of the access-token signer, as JWKs. */
export interface SigningKey {
  kid: string;
  createdAt: number;
  privateJwk: JsonWebKey;
  publicJwk: JsonWebKey;
}

export const normalizeEmail = (email: string): string => email.trim().toLowerCase();
