import type { AuditRow, Member } from '../workspaces/model.ts';

/**
 * What single sign-on through a workspace's identity provider (issue 29) needs from outside the
 * domain: the workspace's OIDC client, the relying party's calls to the provider, and the
 * single-use records of a sign-in under way.
 */

/** A workspace's OIDC client, its secret opened: the directory speaking for `emailDomain`. */
export interface SsoClient {
  workspaceId: string;
  workspaceName: string;
  issuer: string;
  emailDomain: string;
  clientId: string;
  clientSecret: string;
  /** Someone signing in who is not a member joins the workspace (within its free seats). */
  jit: boolean;
}

export interface SsoClients {
  /** The client of the directory speaking for an email domain, when it has one (a directory without a client signs nobody in). */
  forEmailDomain(emailDomain: string): Promise<SsoClient | null>;
  forWorkspace(workspaceId: string): Promise<SsoClient | null>;
}

/** The ID token's claims the service reads, once the relying party has validated it. */
export interface VerifiedIdentity {
  subject: string;
  email: string | null;
  /** Absent when the provider does not say. */
  emailVerified: boolean | undefined;
}

/**
 * - `identity`: the code was exchanged and the ID token validated (issuer, audience, expiry,
 *   issue time, nonce, the signature with the issuer's JWKS and an advertised algorithm, never
 *   `none`; the authorization response's `iss` when sent);
 * - `refused`: any of that failed, or the provider refused the code: `reason` says which, for logs;
 * - `unavailable`: the provider did not answer in time.
 */
export type CodeRedemption =
  | { outcome: 'identity'; identity: VerifiedIdentity }
  | { outcome: 'refused'; reason: string }
  | { outcome: 'unavailable'; reason: string };

/** The relying party (shared/adapters/oidcRelyingParty.ts): authorization code flow with PKCE (S256). */
export interface RelyingParty {
  /** The provider's authorization URL for this request; null when its discovery document cannot be had. */
  authorizationUrl(
    client: SsoClient,
    request: { redirectUri: string; state: string; nonce: string; codeChallenge: string },
  ): Promise<URL | null>;
  /** Exchanges the code the callback carries (`callback` is the whole callback URL) and validates the ID token. */
  redeem(
    client: SsoClient,
    callback: URL,
    checks: { redirectUri: string; state: string; nonce: string; codeVerifier: string },
  ): Promise<CodeRedemption>;
}

/** A sign-in under way, kept under its state's id until the callback takes it (once) or it expires. */
export interface PendingSsoSignIn {
  stateId: string;
  workspaceId: string;
  email: string;
  returnTo: string;
  codeVerifier: string;
  nonce: string;
  /** A native client's own PKCE challenge (the CLI's): the exchange must show its verifier. */
  clientChallenge?: string;
  /** Where the one-time code goes back to: the web client's landing page, or the CLI's loopback. */
  landing: string;
  expiresAt: number;
}

/** A signed-in identity waiting for its one-time code's exchange (60 s). */
export interface SsoExchange {
  userId: string;
  workspaceId: string;
  clientChallenge?: string;
  expiresAt: number;
}

/**
 * Just-in-time membership (`sso_jit`): a member made as they sign in, holding a seat, in one
 * write with its audit row; `no_seat` when every seat is taken, `already_member` when they are one.
 */
export interface SsoMemberships {
  joinBySso(member: Member, audit: AuditRow): Promise<'joined' | 'already_member' | 'no_seat'>;
}

export interface SsoSignInStore {
  savePending(pending: PendingSsoSignIn): Promise<void>;
  /** The sign-in under way with this state id, removed as it is read: null when unknown, taken already, or expired. */
  takePending(stateId: string, now: number): Promise<PendingSsoSignIn | null>;
  /** Keeps an exchange under the hash of its one-time code. */
  saveExchange(codeHash: string, exchange: SsoExchange): Promise<void>;
  /**
   * The exchange under this code hash, removed as it is read: null when unknown, used, expired, or
   * bound to a native client's challenge other than `clientChallenge` (then it is not used up).
   */
  takeExchange(codeHash: string, now: number, clientChallenge: string | null): Promise<SsoExchange | null>;
}
