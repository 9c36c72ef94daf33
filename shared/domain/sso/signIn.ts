import { createHash, hkdfSync, randomBytes } from 'node:crypto';
import { decodeJwt, jwtVerify, SignJWT } from 'jose';
import type { Config } from '../../config.ts';
import { constantTimeEqual, sha256Base64Url } from '../../ids.ts';
import { ssoLimits } from '../../limits.ts';
import { normalizeEmail } from '../accounts/model.ts';
import { openSession, type IssuedTokens, type SessionPorts } from '../accounts/sessions.ts';
import { newUserId } from '../../ids.ts';
import { Forbidden, Invalid, Unauthenticated, Unavailable } from '../refusals.ts';
import { recipientDomain } from '../workspaces/policy.ts';
import { covers } from './directory.ts';
import type { RelyingParty, SsoClient, SsoClients, SsoMemberships, SsoSignInStore } from './signInPorts.ts';
import type { AppLogger } from '../../logger.ts';
import { newAuditId } from '../../ids.ts';

/**
 * Signing in through a workspace's identity provider (issue 29): OpenID Connect's authorization
 * code flow with PKCE (S256) and a nonce. `start` sends the browser to the provider with a state
 * naming the sign-in; the provider sends it back to `callback`, which exchanges the code and
 * validates the ID token (the relying party), then hands the client a one-time code in the
 * URL's fragment (never tokens in a URL), which `exchange` turns into the session's tokens.
 *
 * The state is an HS256 JWT keyed from the workspace's client secret (HKDF, this kind's own
 * label), binding the workspace, the address and `return_to`, for 10 minutes; its `jti` names the
 * sign-in's record (the PKCE verifier and the nonce, which never leave the service), taken once.
 */

export interface SsoSignInPorts extends SessionPorts {
  ssoClients: SsoClients;
  ssoMemberships: SsoMemberships;
  logger: AppLogger;
  relyingParty: RelyingParty;
  ssoSignIns: SsoSignInStore;
  config: Pick<Config, 'WEB_ORIGIN'>;
}

const stateKind = { info: 'hushlink sso state', typ: 'hushlink-sso-state+jwt', audience: 'hushlink:sso:state' } as const;
const stateKey = (client: SsoClient) => new Uint8Array(hkdfSync('sha256', client.clientSecret, client.workspaceId, stateKind.info, 32));
const random = () => randomBytes(32).toString('base64url');
/** RFC 7636's S256: the verifier's SHA-256, base64url. */
export const pkceChallenge = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

const origin = (config: Pick<Config, 'WEB_ORIGIN'>) => config.WEB_ORIGIN.replace(/\/+$/, '');
/** Where the provider sends the browser back: registered as the client's redirect URI. */
export const ssoCallbackUrl = (config: Pick<Config, 'WEB_ORIGIN'>) => `${origin(config)}/v1/auth/sso/callback`;
/** The web client's page that takes the one-time code from the fragment. */
export const ssoLandingUrl = (config: Pick<Config, 'WEB_ORIGIN'>) => `${origin(config)}/signin/sso`;

export interface SsoStart {
  email: string;
  /** A path of the web client to go to once signed in. */
  returnTo?: string | undefined;
  /** A native client's (the CLI's) own PKCE challenge, and the loopback address it listens on (RFC 8252). */
  clientChallenge?: string | undefined;
  loopback?: string | undefined;
}

/** `return_to`: a path of this origin only, never another host (`//evil`, `/\evil`, a scheme). */
function sameOriginPath(returnTo: string | undefined, config: Pick<Config, 'WEB_ORIGIN'>): string {
  if (returnTo === undefined || returnTo === '') return '/';
  const refuse = () =>
    new Invalid('return_to must be a path of this site.', [{ field: 'return_to', message: 'must be a path', in: 'query' }]);
  if (!returnTo.startsWith('/') || returnTo.startsWith('//') || returnTo.includes('\\') || /[\u0000-\u001f]/.test(returnTo)) throw refuse();
  const resolved = new URL(returnTo, origin(config));
  if (resolved.origin !== new URL(origin(config)).origin) throw refuse();
  return `${resolved.pathname}${resolved.search}${resolved.hash}`;
}

/** A loopback redirect of a native client (RFC 8252 §7.3): `http://127.0.0.1:<port>/<path>`. */
function loopbackLanding(loopback: string): string {
  const refuse = () =>
    new Invalid('The loopback address must be http://127.0.0.1:<port>/….', [
      { field: 'loopback', message: 'must be loopback', in: 'query' },
    ]);
  if (!URL.canParse(loopback)) throw refuse();
  const url = new URL(loopback);
  if (url.protocol !== 'http:' || url.hostname !== '127.0.0.1' || !url.port || url.username || url.password || url.search || url.hash)
    throw refuse();
  return url.toString();
}

/** `GET /v1/auth/sso/start`: the provider's authorization URL for this address. */
export async function startSsoSignIn(request: SsoStart, ports: SsoSignInPorts): Promise<{ location: string }> {
  const email = normalizeEmail(request.email);
  const domain = recipientDomain(email);
  const client = domain === null ? null : await ports.ssoClients.forEmailDomain(domain);
  if (!client) {
    throw new Invalid('No workspace’s single sign-on speaks for this address: sign in with an emailed code.', [
      { field: 'email', message: 'has no single sign-on', in: 'query' },
    ]);
  }
  const returnTo = sameOriginPath(request.returnTo, ports.config);
  if ((request.loopback === undefined) !== (request.clientChallenge === undefined)) {
    throw new Invalid('A loopback redirect comes with the client’s own PKCE challenge, and only with one.', [
      { field: request.loopback === undefined ? 'loopback' : 'client_challenge', message: 'is required with the other', in: 'query' },
    ]);
  }
  if (request.clientChallenge !== undefined && !/^[A-Za-z0-9_-]{43}$/.test(request.clientChallenge)) {
    throw new Invalid('client_challenge must be an S256 PKCE challenge.', [
      { field: 'client_challenge', message: 'must be 43 base64url characters', in: 'query' },
    ]);
  }
  const landing = request.loopback === undefined ? ssoLandingUrl(ports.config) : loopbackLanding(request.loopback);
  const now = ports.clock.now();
  const stateId = random();
  const codeVerifier = random();
  const nonce = random();
  const expiresAt = now + ssoLimits.stateSeconds * 1000;
  const state = await new SignJWT({ wks: client.workspaceId, em: email, rt: returnTo })
    .setProtectedHeader({ alg: 'HS256', typ: stateKind.typ })
    .setJti(stateId)
    .setAudience(stateKind.audience)
    .setIssuedAt(Math.floor(now / 1000))
    .setExpirationTime(Math.floor(expiresAt / 1000))
    .sign(stateKey(client));
  await ports.ssoSignIns.savePending({
    stateId,
    workspaceId: client.workspaceId,
    email,
    returnTo,
    codeVerifier,
    nonce,
    ...(request.clientChallenge === undefined ? {} : { clientChallenge: request.clientChallenge }),
    landing,
    expiresAt,
  });
  const url = await ports.relyingParty.authorizationUrl(client, {
    redirectUri: ssoCallbackUrl(ports.config),
    state,
    nonce,
    codeChallenge: pkceChallenge(codeVerifier),
  });
  if (!url) throw new Unavailable('Your organization’s sign-in service did not answer: try again in a minute.', 60);
  return { location: url.toString() };
}

/** What the provider's redirect back carries, by OAuth's names. */
export interface SsoCallback {
  state?: string | undefined;
  error?: string | undefined;
  /** The whole callback URL, as the relying party validates the response from it (code, state, iss). */
  url: URL;
}

const badState = (why: string) =>
  new Unauthenticated(`This sign-in ${why}: start again from the sign-in page.`, { facts: { reason: 'sso_state' } });
const refusedIdentity = () =>
  new Unauthenticated('Your organization’s sign-in could not be verified: start again from the sign-in page.', {
    facts: { reason: 'sso_identity' },
  });

/**
 * `GET /v1/auth/sso/callback`: the state first (401 when missing, forged, expired or used), then
 * the provider's answer: a refusal is 403; a code is exchanged and its ID token validated (401
 * for any check that fails, 503 when the provider does not answer). The address it names must be
 * of the directory's domain and not unverified. Answers where the client goes next, with the
 * one-time code in the fragment.
 */
export async function completeSsoSignIn(callback: SsoCallback, ports: SsoSignInPorts): Promise<{ location: string; userId: string }> {
  if (!callback.state || callback.state.length > ssoLimits.tokenChars) throw badState('carries no state');
  let claims: ReturnType<typeof decodeJwt>;
  try {
    claims = decodeJwt(callback.state);
  } catch {
    throw badState('is not valid');
  }
  const client = typeof claims.wks === 'string' ? await ports.ssoClients.forWorkspace(claims.wks) : null;
  if (!client) throw badState('is not valid');
  try {
    await jwtVerify(callback.state, stateKey(client), {
      algorithms: ['HS256'],
      typ: stateKind.typ,
      audience: stateKind.audience,
      currentDate: new Date(ports.clock.now()),
      requiredClaims: ['jti', 'exp'],
    });
  } catch {
    throw badState('is not valid or has expired');
  }
  const pending = await ports.ssoSignIns.takePending(String(claims.jti), ports.clock.now());
  if (!pending || pending.workspaceId !== client.workspaceId || pending.email !== claims.em)
    throw badState('was used already or has expired');
  if (callback.error !== undefined) {
    throw new Forbidden(
      callback.error === 'access_denied' ? 'The sign-in was refused by your organization.' : 'Your organization’s sign-in failed.',
      {
        facts: { reason: 'sso_refused', provider_error: callback.error.slice(0, 64) },
      },
    );
  }
  const redemption = await ports.relyingParty.redeem(client, callback.url, {
    redirectUri: ssoCallbackUrl(ports.config),
    state: callback.state,
    nonce: pending.nonce,
    codeVerifier: pending.codeVerifier,
  });
  if (redemption.outcome === 'unavailable')
    throw new Unavailable('Your organization’s sign-in service did not answer: try again in a minute.', 60);
  if (redemption.outcome === 'refused') throw refusedIdentity();
  const { identity } = redemption;
  const email = identity.email === null ? null : normalizeEmail(identity.email);
  const domain = email === null ? null : recipientDomain(email);
  if (email === null || domain === null || !covers(client.emailDomain, domain) || identity.emailVerified === false) throw refusedIdentity();

  const now = ports.clock.now();
  const user = await ports.users.createOrGet({ id: newUserId(), email, plan: 'free', createdAt: now });
  if (client.jit) await joinJustInTime(client, { id: user.id, email: user.email }, now, ports);
  const code = `hlx_${random()}`;
  await ports.ssoSignIns.saveExchange(sha256Base64Url(code), {
    userId: user.id,
    workspaceId: client.workspaceId,
    ...(pending.clientChallenge === undefined ? {} : { clientChallenge: pending.clientChallenge }),
    expiresAt: now + ssoLimits.exchangeSeconds * 1000,
  });
  const fragment = new URLSearchParams({ code, return_to: pending.returnTo });
  return { location: `${pending.landing}#${fragment.toString()}`, userId: user.id };
}

/**
 * `POST /v1/auth/sso/exchange`: the one-time code (60 s, once) for the session it stands for, a
 * session of this workspace's single sign-on. A code given to a native client needs that
 * client's verifier too: one intercepted on its way to the loopback is no use without it, and a
 * try with a wrong verifier does not use the code up.
 */
export async function exchangeSsoCode(
  request: { code: string; codeVerifier?: string | undefined; deviceName: string },
  ports: SsoSignInPorts,
): Promise<IssuedTokens> {
  const refused = () => new Unauthenticated('This sign-in code does not work: it has expired or was used. Sign in again.');
  if (!/^hlx_[A-Za-z0-9_-]{43}$/.test(request.code)) throw refused();
  const challenge = request.codeVerifier === undefined ? null : pkceChallenge(request.codeVerifier);
  const exchange = await ports.ssoSignIns.takeExchange(sha256Base64Url(request.code), ports.clock.now(), challenge);
  if (!exchange) throw refused();
  const user = await ports.users.get(exchange.userId);
  if (!user) throw refused();
  return openSession(user, request.deviceName, ports, { sso: { workspaceId: exchange.workspaceId } });
}

/** Whether `verifier` answers `challenge` (S256), in constant time. */
export const answersChallenge = (verifier: string, challenge: string): boolean =>
  constantTimeEqual(Buffer.from(pkceChallenge(verifier)), Buffer.from(challenge));

/**
 * `sso_jit`: someone the directory signed in who is not a member joins as a member, holding a
 * seat, audited as `member.joined` by `sso`. With every seat taken they sign in all the same,
 * without a membership (an owner adds seats); that is logged, not refused.
 */
async function joinJustInTime(client: SsoClient, user: { id: string; email: string }, now: number, ports: SsoSignInPorts): Promise<void> {
  const member = {
    workspaceId: client.workspaceId,
    userId: user.id,
    email: user.email,
    role: 'member' as const,
    joinedAt: now,
    source: 'sso' as const,
  };
  const outcome = await ports.ssoMemberships.joinBySso(member, {
    id: newAuditId(),
    workspaceId: client.workspaceId,
    at: now,
    actor: { userId: user.id, email: user.email, via: 'session' },
    action: 'member.joined',
    target: user.id,
    details: { via: 'sso', role: 'member' },
  });
  if (outcome === 'no_seat') ports.logger.warn('sso sign-in without membership: no free seat', { workspace_id: client.workspaceId });
}
