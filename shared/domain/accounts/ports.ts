import type { Language } from '../../languages.ts';
import type { Mailer } from '../mail.ts';
import type { Clock } from '../../clock.ts';
import type { ApiKey, Session, SignInCode, SignInCodes, SigningKey, User } from './model.ts';
import type { RefreshGrace } from './refreshGrace.ts';

export interface UserStore {
  get(id: string): Promise<User | null>;
  findByEmail(email: string): Promise<User | null>;
  /** Creates the user unless the address already has one (one account per address, by condition); returns the account. */
  createOrGet(user: User): Promise<User>;
  acceptTerms(id: string, version: string, at: number): Promise<void>;
  /** Saves the language of the account's mails (null forgets it); the account as saved, or null when there is no such account. */
  setLocale(id: string, locale: Language | null): Promise<User | null>;
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
  rotate(
    id: string,
    expectedHash: string,
    next: { hash: string; expiresAt: number; now: number; grace: RefreshGrace; chainKey: string },
  ): Promise<boolean>;
  revoke(id: string, at: number): Promise<void>;
  revokeAllForUser(userId: string, at: number): Promise<number>;
  /** Revokes the user's open sessions opened through this workspace's single sign-on (a SCIM deactivation); how many. */
  revokeSsoSessions(userId: string, workspaceId: string, at: number): Promise<number>;
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
  /** The codes of an address (by the hash of its normalized form), strongly consistent. */
  get(emailHash: string): Promise<SignInCodes>;
  /** Writes the address's codes if they are still at `version`; false when another write came first. */
  replace(emailHash: string, codes: SignInCode[], version: number): Promise<boolean>;
  /**
   * Records that a source asked for an address's codes at `now`; with `cooldownMs`, only if it
   * had not within it. Answers when it last asked if that was within the cooldown (nothing is
   * recorded then), otherwise null.
   */
  markAsked(askerHash: string, now: number, cooldownMs?: number): Promise<number | null>;
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

/**
 * Whether an address must sign in through a workspace's directory (SSO) instead of a code:
 * `enforced` names the workspace, and `breakGlass` says the address is one of its owners', who
 * keep the emailed code (audited) for when the identity provider is down or misconfigured.
 */
export type SsoRule = { enforced: false } | { enforced: true; workspaceId: string; breakGlass: boolean };

export interface SsoPolicy {
  ruleFor(email: string): Promise<SsoRule>;
  /** An owner signed in by code while the workspace enforces SSO: its audit trail says so. */
  recordBreakGlass(workspaceId: string, user: { id: string; email: string }, now: number): Promise<void>;
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
