import type { Mailer } from '../../adapters/mailer.ts';
import type { Clock } from '../../clock.ts';
import type { ApiKey, Session, SignInCode, SigningKey, User } from './model.ts';
import type { RefreshGrace } from './refreshGrace.ts';

export interface UserStore {
  get(id: string): Promise<User | null>;
  findByEmail(email: string): Promise<User | null>;
  /** Creates the user unless the address already has one (one account per address, by condition); returns the account. */
  createOrGet(user: User): Promise<User>;
  acceptTerms(id: string, version: string, at: number): Promise<void>;
}

export interface SessionStore {
  insert(session: Session): Promise<void>;
  get(id: string): Promise<Session | null>;
  listForUser(userId: string): Promise<Session[]>;
  /**
   * Replaces the refresh hash if it is still `expectedHash` and the session is not revoked,
   * remembering `grace` (the rotation for the old token's grace window) and the chain key the
   * new token is tagged with; false when another rotation or a revocation came first.
   */
  rotate(id: string, expectedHash: string, next: { hash: string; expiresAt: number; now: number; grace: RefreshGrace; chainKey: string }): Promise<boolean>;
  revoke(id: string, at: number): Promise<void>;
  revokeAllForUser(userId: string, at: number): Promise<number>;
  /** Records use, at most once per `resolutionMs`. */
  touch(id: string, now: number, resolutionMs: number): Promise<void>;
}

export interface ApiKeyStore {
  insert(key: ApiKey): Promise<void>;
  get(id: string): Promise<ApiKey | null>;
  listForUser(userId: string): Promise<ApiKey[]>;
  /** Deletes the key if it belongs to `userId`; false when there is no such key of theirs. */
  delete(id: string, userId: string): Promise<boolean>;
  touch(id: string, now: number, resolutionMs: number): Promise<void>;
}

export interface SignInCodeStore {
  /** Replaces any pending code for the address. */
  put(code: SignInCode, ttlSeconds: number): Promise<void>;
  get(emailHash: string): Promise<SignInCode | null>;
  /** Replaces the code if the last one was sent before `sentBefore`; false when still cooling down. */
  replaceIfCooledDown(code: SignInCode, sentBefore: number, ttlSeconds: number): Promise<boolean>;
  /** Counts one attempt if fewer than `max` were made; returns the new count, or null when none are left. */
  countAttempt(emailHash: string, max: number): Promise<number | null>;
  /** Deletes the code if it is still `codeHash`; false when it was used or replaced. */
  consume(emailHash: string, codeHash: string): Promise<boolean>;
}

export interface SigningKeyStore {
  /** Every key still published, newest first. */
  list(): Promise<SigningKey[]>;
  /**
   * Makes `key` the newest if the newest is still `expectedNewestKid` (null: no key yet), and
   * keeps at most `keep` keys; false when another instance rotated first.
   */
  add(key: SigningKey, expectedNewestKid: string | null, keep: number): Promise<boolean>;
}

/** Which addresses must sign in through a workspace's directory (SSO) instead of a code. */
export interface SsoPolicy {
  enforcedFor(email: string): Promise<boolean>;
}

export interface AccountPorts {
  clock: Clock;
  users: UserStore;
  sessions: SessionStore;
  apiKeys: ApiKeyStore;
  signInCodes: SignInCodeStore;
  ssoPolicy: SsoPolicy;
  mailer: Mailer;
}
