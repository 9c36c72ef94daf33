import type { ApiKey, Plan, SigningKey } from '../../domain/accounts/model.ts';
import type { Language } from '../../languages.ts';

// Accounts: the user and its address, sessions, API keys, sign-in codes and the signing keys.

/** An account (`USER#<id>` / `PROFILE`): written by the user store (users.ts) alone; billing's `plan` and sales' `contract_plan` are its parts. */
export const userKey = (id: string) => ({ pk: userPartition(id), sk: 'PROFILE' });
/** The account's partition, which also holds its billing (billing.ts's `BILLING`). */
export const userPartition = (id: string): string => `USER#${id}`;
export interface UserItem {
  pk: string;
  sk: string;
  type: 'user';
  id: string;
  email: string;
  /** The payment provider's plan (billing follows its events). */
  plan: Plan;
  /** A contract's plan, sales' alone (scripts/set-plan.ts), with who set it, when and why; readers take the higher. */
  contract_plan?: Plan;
  contract_plan_changed_at?: number;
  contract_plan_changed_by?: string;
  contract_plan_note?: string;
  created_at: number;
  tos_version?: string;
  tos_accepted_at?: number;
  /** The language of the account's mails (issue 32), set on the account page (`PATCH /v1/auth/account`); absent until chosen. */
  locale?: Language;
}

/** An address's account (`EMAIL#<normalized address>` / `EMAIL`), written with the user in one transaction by the user store (users.ts): one account per address. */
export const emailKey = (email: string) => ({ pk: `EMAIL#${email}`, sk: 'EMAIL' });
export interface EmailItem {
  pk: string;
  sk: string;
  type: 'email';
  user_id: string;
}

/** A signed-in device (`SESSION#<id>` / `SESSION`), on its user's listing (gsi1 `USER#<user>#SESSIONS`): written by the session store (sessions.ts). */
export const sessionKey = (id: string) => ({ pk: `SESSION#${id}`, sk: 'SESSION' });
export const sessionListingPartition = (userId: string): string => `USER#${userId}#SESSIONS`;
export const sessionListing = (userId: string, createdAt: number, id: string) => ({
  gsi1pk: sessionListingPartition(userId),
  gsi1sk: `${createdAt}#${id}`,
});
export interface SessionItem {
  pk: string;
  sk: string;
  type: 'session';
  id: string;
  user_id: string;
  device_name: string;
  created_at: number;
  last_used_at: number;
  refresh_hash: string;
  rotated_hashes: string[];
  chain_key?: string;
  grace?: { previous_hash: string; sealed_next: string; until: number };
  refresh_expires_at: number;
  revoked_at?: number;
  /** Opened through this workspace's single sign-on. */
  sso_workspace_id?: string;
  ttl: number;
  gsi1pk: string;
  gsi1sk: string;
}

/**
 * A session's pointer in its user's partition (`SESSIONS#<user>` / `<session id>`), so logout-all
 * reads them strongly consistently (the listing index can lag): written by the session store (sessions.ts).
 */
export const sessionPointersPartition = (userId: string): string => `SESSIONS#${userId}`;
export const sessionPointerKey = (userId: string, sessionId: string) => ({ pk: sessionPointersPartition(userId), sk: sessionId });
export interface SessionPointerItem {
  pk: string;
  sk: string;
  ttl: number;
}

/** An API key (`APIKEY#<id>` / `APIKEY`), on its user's listing (gsi1 `USER#<user>#KEYS`): written by the API key store (apiKeys.ts). */
export const apiKeyKey = (id: string) => ({ pk: `APIKEY#${id}`, sk: 'APIKEY' });
export const apiKeyListingPartition = (userId: string): string => `USER#${userId}#KEYS`;
export const apiKeyListing = (userId: string, createdAt: number, id: string) => ({
  gsi1pk: apiKeyListingPartition(userId),
  gsi1sk: `${createdAt}#${id}`,
});
export interface ApiKeyItem {
  pk: string;
  sk: string;
  type: 'api_key';
  id: string;
  user_id: string;
  name: string;
  prefix: string;
  scopes: ApiKey['scopes'];
  key_hash: string;
  created_at: number;
  expires_at?: number;
  last_used_at?: number;
  ttl?: number;
  gsi1pk: string;
  gsi1sk: string;
}

/** An address's pending sign-in codes (`SIGNIN#<address hash>` / `CODES`), versioned: written by the sign-in code store (signIn.ts). */
export const signInCodesKey = (emailHash: string) => ({ pk: `SIGNIN#${emailHash}`, sk: 'CODES' });
export interface SignInCodesItem {
  pk: string;
  sk: string;
  type: 'sign_in_codes';
  /** Each code with the SHA-256 of the sign-in link mailed beside it (absent on codes mailed before links). */
  codes: Array<{ code_hash: string; salt: string; link_hash?: string; sent_at: number; expires_at: number }>;
  version: number;
  ttl: number;
}

/** When a source last asked for an address's codes (`SIGNIN_ASKED#<hash of both>` / `ASKED`): written by the sign-in code store (signIn.ts). */
export const signInAskedKey = (askerHash: string) => ({ pk: `SIGNIN_ASKED#${askerHash}`, sk: 'ASKED' });
export interface SignInAskedItem {
  pk: string;
  sk: string;
  asked_at: number;
  ttl: number;
}

/** The access tokens' signing keys, newest first, in one item (`CONFIG` / `SIGNING_KEYS`): written by the signing key store (signingKeys.ts). */
export const signingKeysKey = () => ({ pk: 'CONFIG', sk: 'SIGNING_KEYS' });
export interface SigningKeysItem {
  pk: string;
  sk: string;
  type: 'signing_keys';
  newest_kid: string;
  /** The keys as the domain gives them (their fields camelCase, JWKs inside), newest first. */
  keys: SigningKey[];
}
