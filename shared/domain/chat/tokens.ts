import { hkdfSync, randomBytes } from 'node:crypto';
import { jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { toEpochSeconds } from '../../clock.ts';
import { chatLimits } from '../../limits.ts';

/**
 * The chat group's two bearer tokens, HS256 JWTs keyed from the Slack client secret (so there
 * is no further secret to keep, rotate or lose):
 * - an install's `state`, naming the Hushlink user who started it, sent through Slack's
 *   authorize page and back to the callback; single-use by its `jti` (the store marks it);
 * - a chat token, naming the Slack team and user a slash command came from, carried by the
 *   composer link the command answers with and presented again to subscribe.
 * Each kind signs with its own key (HKDF-SHA-256, one `info` label per kind) and carries its own
 * `typ` and `aud`, each checked: a token of one kind is never read as the other, and taking the
 * client secret itself, or a key of the other kind, signs nothing that verifies.
 */
interface TokenKind {
  /** HKDF's `info`: what makes this kind's key differ from the other's. */
  info: string;
  /** The protected header's `typ` (explicit typing, RFC 8725 §3.11). */
  typ: string;
  audience: string;
  seconds: number;
}

const installStateKind: TokenKind = {
  info: 'hushlink chat install state',
  typ: 'hushlink-chat-state+jwt',
  audience: 'hushlink:chat:install-state',
  seconds: chatLimits.stateSeconds,
};

const chatTokenKind: TokenKind = {
  info: 'hushlink chat token',
  typ: 'hushlink-chat+jwt',
  audience: 'hushlink:chat:composer',
  seconds: chatLimits.chatTokenSeconds,
};

export interface IssuedInstallState {
  token: string;
  /** Random, 128 bits: what the store marks used, so a state works once. */
  jti: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
}

export interface InstallState {
  userId: string;
  jti: string;
  expiresAt: number;
}

export interface ChatIdentity {
  teamId: string;
  slackUserId: string;
}

export interface IssuedChatToken {
  token: string;
  expiresAt: number;
}

export interface ChatTokenClaims extends ChatIdentity {
  expiresAt: number;
}

/** A state naming `userId`, good for `chatLimits.stateSeconds` from `now` (ms). */
export async function issueInstallState(userId: string, now: number, clientSecret: string): Promise<IssuedInstallState> {
  requireText('userId', userId);
  const jti = randomBytes(16).toString('base64url');
  const { token, expiresAt } = await issue(installStateKind, userId, {}, now, clientSecret, jti);
  return { token, jti, expiresAt };
}

/**
 * The user and `jti` of a state this service issued with this secret and that has not expired
 * at `now`; null for anything else. Whether it was used already is the store's to say.
 */
export async function readInstallState(token: string, now: number, clientSecret: string): Promise<InstallState | null> {
  const payload = await read(installStateKind, token, now, clientSecret, ['jti']);
  if (!payload || !isText(payload.sub) || !isText(payload.jti)) return null;
  return { userId: payload.sub, jti: payload.jti, expiresAt: payload.exp! * 1000 };
}

/** A chat token naming the Slack team and user, good for `chatLimits.chatTokenSeconds` from `now` (ms). */
export async function issueChatToken(identity: ChatIdentity, now: number, clientSecret: string): Promise<IssuedChatToken> {
  requireText('teamId', identity.teamId);
  requireText('slackUserId', identity.slackUserId);
  return issue(chatTokenKind, identity.slackUserId, { team_id: identity.teamId }, now, clientSecret);
}

/** The team and user of a chat token this service issued with this secret and that has not expired at `now`; null otherwise. */
export async function readChatToken(token: string, now: number, clientSecret: string): Promise<ChatTokenClaims | null> {
  const payload = await read(chatTokenKind, token, now, clientSecret, ['team_id']);
  const teamId = payload?.team_id;
  if (!payload || !isText(payload.sub) || !isText(teamId)) return null;
  return { teamId, slackUserId: payload.sub, expiresAt: payload.exp! * 1000 };
}

/** 256 bits for HS256, from the client secret's UTF-8 bytes; no salt (the secret is already random, and `info` separates the kinds). */
function keyOf(kind: TokenKind, clientSecret: string): Uint8Array {
  if (typeof clientSecret !== 'string' || clientSecret.length === 0) {
    throw new TypeError('chat tokens: the Slack client secret is empty');
  }
  return new Uint8Array(hkdfSync('sha256', Buffer.from(clientSecret, 'utf8'), Buffer.alloc(0), kind.info, 32));
}

async function issue(
  kind: TokenKind,
  subject: string,
  claims: JWTPayload,
  now: number,
  clientSecret: string,
  jti?: string,
): Promise<{ token: string; expiresAt: number }> {
  const issuedAt = toEpochSeconds(now);
  const expiresAt = issuedAt + kind.seconds;
  let jwt = new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: kind.typ })
    .setSubject(subject)
    .setAudience(kind.audience)
    .setIssuedAt(issuedAt)
    .setExpirationTime(expiresAt);
  if (jti !== undefined) jwt = jwt.setJti(jti);
  return { token: await jwt.sign(keyOf(kind, clientSecret)), expiresAt: expiresAt * 1000 };
}

async function read(
  kind: TokenKind,
  token: string,
  now: number,
  clientSecret: string,
  requiredClaims: string[],
): Promise<JWTPayload | null> {
  const key = keyOf(kind, clientSecret);
  if (typeof token !== 'string' || token.length > chatLimits.tokenChars || !compactJws.test(token)) return null;
  try {
    const { payload } = await jwtVerify(token, key, {
      // Pinned: `none`, another HMAC and any public-key algorithm are refused before the key is used.
      algorithms: ['HS256'],
      typ: kind.typ,
      audience: kind.audience,
      requiredClaims: ['exp', 'sub', ...requiredClaims],
      // With `exp`, a token is never older than its kind's life, even were one ever signed with a later `exp`;
      // it also refuses an `iat` in the future.
      maxTokenAge: kind.seconds,
      currentDate: new Date(now),
    });
    return payload;
  } catch {
    return null;
  }
}

/**
 * Three base64url parts and nothing else, as issued: jose's decoder skips whitespace, so a
 * token with a space after it would otherwise read as the token itself.
 */
const compactJws = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

const isText = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

function requireText(name: string, value: string): void {
  if (!isText(value)) throw new TypeError(`chat tokens: ${name} is empty`);
}
