import { constantTimeEqual, newSessionId, sha256Base64Url } from '../../ids.ts';
import { credentialLimits } from '../../limits.ts';
import type { Principal, Session, User } from './model.ts';
import { chainedRefreshToken, isOfChain, newChainKey } from './refreshChain.ts';
import { openNextToken, sealNextToken } from './refreshGrace.ts';
import type { AccountPorts } from './ports.ts';
import type { AccessTokens } from './tokens.ts';
import { Unauthenticated } from '../refusals.ts';

export interface SessionPorts extends Pick<AccountPorts, 'clock' | 'sessions' | 'users'> {
  accessTokens: AccessTokens;
}

/** What sign-in and refresh answer (DESIGN.md §3). */
export interface IssuedTokens {
  access_token: string;
  refresh_token: string;
  token_type: 'Bearer';
  expires_in: number;
  user: { id: string; email: string };
}

const refreshPattern = /^hlr_(ses_[A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;
const unauthorized = (detail: string) => new Unauthenticated(detail);

export function deviceNameOf(given: string | undefined, userAgent: string | undefined): string {
  if (given?.trim()) return given.trim().slice(0, 100);
  const agent = userAgent ?? '';
  const browser = /Edg\//.test(agent)
    ? 'Edge'
    : /Firefox\//.test(agent)
      ? 'Firefox'
      : /Chrome\//.test(agent)
        ? 'Chrome'
        : /Safari\//.test(agent)
          ? 'Safari'
          : /curl\//.test(agent)
            ? 'curl'
            : null;
  const system = /Windows/.test(agent)
    ? 'Windows'
    : /Mac OS X/.test(agent)
      ? 'macOS'
      : /Android/.test(agent)
        ? 'Android'
        : /iPhone|iPad/.test(agent)
          ? 'iOS'
          : /Linux/.test(agent)
            ? 'Linux'
            : null;
  return [browser, system].filter(Boolean).join(' on ') || 'Unknown device';
}

/**
 * A new session for a device, with its first refresh token (returned once, stored hashed); one
 * opened through a workspace's single sign-on says so (`sso`).
 */
export async function openSession(
  user: User,
  deviceName: string,
  ports: SessionPorts,
  origin: Pick<Session, 'sso'> = {},
): Promise<IssuedTokens> {
  const now = ports.clock.now();
  const id = newSessionId();
  const chainKey = newChainKey();
  const refreshToken = chainedRefreshToken(id, chainKey);
  const session: Session = {
    id,
    userId: user.id,
    deviceName,
    createdAt: now,
    lastUsedAt: now,
    refreshHash: sha256Base64Url(refreshToken),
    rotatedHashes: [],
    chainKey,
    refreshExpiresAt: now + credentialLimits.refreshTokenSeconds * 1000,
    ...(origin.sso ? { sso: { ...origin.sso } } : {}),
  };
  await ports.sessions.insert(session);
  return tokensFor(user, id, refreshToken, ports);
}

/**
 * Rotates the refresh token. A token the session issued gets one of three answers, whatever
 * else runs at the same time:
 * - it is the current one: it is rotated (of parallel rotations with it, one wins and the
 *   others take the next answer);
 * - it is the one just rotated away, within the grace window
 *   (`credentialLimits.refreshGraceSeconds`), and what it was rotated to is still current: the
 *   same new token again (a reload racing a refresh);
 * - anything else means two parties hold the session: it is revoked, so both are signed out.
 * So no holder is ever refused while another keeps the session.
 */
export async function refreshSession(refreshToken: string, ports: SessionPorts): Promise<IssuedTokens> {
  const match = refreshPattern.exec(refreshToken);
  const session = match ? await ports.sessions.get(match[1]!) : null;
  const now = ports.clock.now();
  if (!session || session.revokedAt !== undefined || session.refreshExpiresAt <= now) {
    throw unauthorized('This refresh token is not valid; sign in again.');
  }
  const presentedHash = sha256Base64Url(refreshToken);
  if (!constantTimeEqual(Buffer.from(presentedHash), Buffer.from(session.refreshHash))) {
    return (
      (await withinGrace(session, refreshToken, presentedHash, now, ports)) ?? refuse(session, refreshToken, presentedHash, now, ports)
    );
  }
  // Sessions opened before chain keys get one at their next rotation.
  const chainKey = session.chainKey ?? newChainKey();
  const next = chainedRefreshToken(session.id, chainKey);
  const rotated = await ports.sessions.rotate(session.id, session.refreshHash, {
    hash: sha256Base64Url(next),
    expiresAt: now + credentialLimits.refreshTokenSeconds * 1000,
    now,
    grace: {
      previousHash: presentedHash,
      sealedNext: sealNextToken(refreshToken, session.id, next),
      until: now + credentialLimits.refreshGraceSeconds * 1000,
    },
    chainKey,
  });
  if (!rotated) {
    // Another request rotated it first (or revoked the session): decide again on what it wrote.
    // Usually the grace path answers both; if the winner's holder has rotated again since,
    // this token is reuse like any other, not a refusal that leaves the other holder in.
    const current = await ports.sessions.get(session.id);
    if (!current || current.revokedAt !== undefined) throw unauthorized('This refresh token is not valid; sign in again.');
    return (
      (await withinGrace(current, refreshToken, presentedHash, now, ports)) ?? refuse(current, refreshToken, presentedHash, now, ports)
    );
  }
  const user = await ports.users.get(session.userId);
  if (!user) throw unauthorized('This account no longer exists.');
  return tokensFor(user, session.id, next, ports);
}

/** The tokens of the session's last rotation, when `refreshToken` is the one it rotated away and the window is open. */
async function withinGrace(
  session: Session,
  refreshToken: string,
  presentedHash: string,
  now: number,
  ports: SessionPorts,
): Promise<IssuedTokens | null> {
  const grace = session.grace;
  if (!grace || grace.until <= now || !constantTimeEqual(Buffer.from(presentedHash), Buffer.from(grace.previousHash))) return null;
  const next = openNextToken(refreshToken, session.id, grace.sealedNext);
  // Only while what it rotated to is still the current token: otherwise it was used meanwhile.
  if (next === null || !constantTimeEqual(Buffer.from(sha256Base64Url(next)), Buffer.from(session.refreshHash))) return null;
  const user = await ports.users.get(session.userId);
  if (!user) throw unauthorized('This account no longer exists.');
  return tokensFor(user, session.id, next, ports);
}

/**
 * A token that is neither current nor within grace: if the session issued it, it was rotated
 * away, so two parties hold the session and it is revoked. A token it never issued (a made-up
 * one naming a session id) changes nothing.
 */
async function refuse(session: Session, refreshToken: string, presentedHash: string, now: number, ports: SessionPorts): Promise<never> {
  if (issuedBy(session, refreshToken, presentedHash)) {
    await ports.sessions.revoke(session.id, now);
    throw new Unauthenticated('This refresh token was already used; the session is signed out for safety.', {
      facts: { reason: 'refresh_token_reused' },
    });
  }
  throw unauthorized('This refresh token is not valid; sign in again.');
}

/** Tagged under the session's chain key, or (tokens from before chain keys) among the last rotated hashes. */
function issuedBy(session: Session, refreshToken: string, presentedHash: string): boolean {
  const secret = refreshToken.slice(refreshToken.indexOf('.') + 1);
  const tagged = session.chainKey !== undefined && isOfChain(secret, session.id, session.chainKey);
  const remembered = session.rotatedHashes.some((hash) => constantTimeEqual(Buffer.from(presentedHash), Buffer.from(hash)));
  return tagged || remembered;
}

async function tokensFor(user: User, sessionId: string, refreshToken: string, ports: SessionPorts): Promise<IssuedTokens> {
  const { token, expiresIn } = await ports.accessTokens.issue({ userId: user.id, sessionId });
  return {
    access_token: token,
    refresh_token: refreshToken,
    token_type: 'Bearer',
    expires_in: expiresIn,
    user: { id: user.id, email: user.email },
  };
}

/** Signs this device out by its refresh token; unknown tokens are quietly accepted. */
export async function closeSessionByRefreshToken(refreshToken: string, ports: SessionPorts): Promise<void> {
  const match = refreshPattern.exec(refreshToken);
  const session = match ? await ports.sessions.get(match[1]!) : null;
  if (!session) return;
  const presented = Buffer.from(sha256Base64Url(refreshToken));
  const now = ports.clock.now();
  // The token just rotated away counts too, within its grace: a browser's sign-out may carry the
  // cookie another tab's refresh was replacing at that moment (ADR 0178).
  const justRotated =
    session.grace !== undefined && session.grace.until > now && constantTimeEqual(presented, Buffer.from(session.grace.previousHash));
  if (constantTimeEqual(presented, Buffer.from(session.refreshHash)) || justRotated) await ports.sessions.revoke(session.id, now);
}

export interface SessionView {
  id: string;
  device_name: string;
  created_at: string;
  last_used_at: string;
  current: boolean;
}

export async function listSessions(principal: Extract<Principal, { kind: 'session' }>, ports: SessionPorts): Promise<SessionView[]> {
  const now = ports.clock.now();
  const sessions = await ports.sessions.listForUser(principal.userId);
  return sessions
    .filter((session) => session.revokedAt === undefined && session.refreshExpiresAt > now)
    .sort((a, b) => b.lastUsedAt - a.lastUsedAt)
    .map((session) => ({
      id: session.id,
      device_name: session.deviceName,
      created_at: new Date(session.createdAt).toISOString(),
      last_used_at: new Date(session.lastUsedAt).toISOString(),
      current: session.id === principal.sessionId,
    }));
}
