import { randomBytes } from 'node:crypto';
import type { Language } from '../../languages.ts';
import type { Mailer } from '../mail.ts';
import { askedMailLanguage, renderMail } from '../mailText.ts';
import type { Clock } from '../../clock.ts';
import { enforceWindow, type RateCounter } from '../rateWindows.ts';
import { Forbidden, NotFound, Unauthenticated } from '../refusals.ts';
import { constantTimeEqual, newGateToken, newNumericCode, sha256Base64Url } from '../../ids.ts';
import { gateLimits } from '../../limits.ts';
import type { HostClaim } from '../domains/model.ts';
import { isTerminal, recipientEmailHash, type Recipient, type Secret } from './model.ts';
import type { SecretStore } from './ports.ts';
import { findSecretOn } from './read.ts';
import { recipientIdPattern } from './rules.ts';

/** A code mailed to a restricted link's address: stored salted and hashed; a link has one live at a time. */
export interface GateCode {
  codeHash: string;
  salt: string;
  expiresAt: number;
}

/** A gate session: what a claim through a restricted link presents, bound to one secret, link and address. */
export interface GateSession {
  secretId: string;
  recipientId: string;
  emailHash: string;
  expiresAt: number;
}

export interface GateStore {
  /**
   * Stores `code` as the link's unless the link holds a code still live at `now`: true when
   * stored. Of two racing starts, one stores; a live code is never replaced.
   */
  addCode(secretId: string, recipientId: string, code: GateCode, now: number): Promise<boolean>;
  getCode(secretId: string, recipientId: string): Promise<GateCode | null>;
  /** Removes the code if it is still the one given: of two right answers racing, one wins. */
  consumeCode(secretId: string, recipientId: string, codeHash: string): Promise<boolean>;
  putSession(tokenHash: string, session: GateSession): Promise<void>;
  getSession(tokenHash: string): Promise<GateSession | null>;
}

export interface GatePorts {
  secrets: Pick<SecretStore, 'get'>;
  gates: GateStore;
  mailer: Mailer;
  rateCounter: RateCounter;
  clock: Clock;
}

const codeHashOf = (salt: string, code: string) => sha256Base64Url(`${salt}:${code}`);
/**
 * One link asked about from one source (the client address as the per-IP limits count it, IPv6
 * by its /64: the handler passes `addressKey`'s): what the per-source caps count, as a hash.
 */
const askerOf = (secretId: string, recipientId: string, source: string) =>
  sha256Base64Url(`link:${secretId}#${recipientId}\nsource:${source}`);
const notFound = () => new NotFound('No secret has this id, or it has no such link.');

/** The secret and its link, or not found: the gate is only for links that exist (on a workspace's hostname, made on it). */
async function linkOf(
  secretId: string,
  recipientId: string,
  hostClaim: HostClaim | null,
  ports: Pick<GatePorts, 'secrets'>,
): Promise<{ secret: Secret; link: Recipient }> {
  if (!recipientIdPattern.test(recipientId)) throw notFound();
  const secret = await findSecretOn(secretId, hostClaim, ports);
  const link = secret?.recipients?.find((recipient) => recipient.id === recipientId);
  if (!secret || !link) throw notFound();
  return { secret, link };
}

const matches = (link: Recipient, email: string) =>
  link.restricted &&
  link.email !== null &&
  constantTimeEqual(Buffer.from(recipientEmailHash(email)), Buffer.from(recipientEmailHash(link.email)));

/**
 * Mails a 6-digit code when `email` is the restricted link's address (case-insensitively) and
 * the link holds no live code. The answer is the same whatever the address, and whether or not
 * a code went out, so nobody learns which address a link is for. A start never replaces a live
 * code: whoever asked, it went to the link's address, where the recipient finds it, so nobody's
 * asking cancels the code the recipient is about to type. Only this source's own cap refuses
 * (rate limited), counted whatever the address. The mail is in the language `asked` (the
 * request's `Accept-Language`: the reveal page sends its own), else English.
 */
export async function startGate(
  secretId: string,
  recipientId: string,
  email: string,
  source: string,
  hostClaim: HostClaim | null,
  ports: GatePorts,
  asked?: Language,
): Promise<void> {
  const { secret, link } = await linkOf(secretId, recipientId, hostClaim, ports);
  await enforceWindow(`gate_start_source#${askerOf(secretId, recipientId, source)}`, gateLimits.startsPerSource, ports);
  if (!matches(link, email) || isTerminal(secret.state) || link.state !== 'active') return;
  const code = newNumericCode(gateLimits.codeDigits);
  const salt = randomBytes(16).toString('base64url');
  const now = ports.clock.now();
  if (
    !(await ports.gates.addCode(
      secretId,
      recipientId,
      { codeHash: codeHashOf(salt, code), salt, expiresAt: now + gateLimits.codeSeconds * 1000 },
      now,
    ))
  )
    return;
  const language = askedMailLanguage(asked);
  await ports.mailer.send({ to: link.email!, ...renderMail('gateCode', language, { code, minutes: gateLimits.codeSeconds / 60 }) });
}

/**
 * Counts a try before any code is compared, by conditional increments, so parallel tries
 * cannot overshoot: this source's windows first (beyond them only this source is refused, and
 * uses none of the link's budget), then the link's, which refuses every source. Answers the
 * tries this source has left.
 */
async function countTry(secretId: string, recipientId: string, source: string, ports: GatePorts): Promise<number> {
  const asker = askerOf(secretId, recipientId, source);
  let left = Number.POSITIVE_INFINITY;
  for (const window of gateLimits.triesPerSource) {
    const counted = await enforceWindow(`gate_try_source#${window.windowSeconds}#${asker}`, window, ports);
    left = Math.min(left, window.limit - counted);
  }
  await enforceWindow(`gate_try#${secretId}#${recipientId}`, gateLimits.triesPerRecipient, ports);
  return left;
}

export interface IssuedGateSession {
  token: string;
  expiresAt: number;
}

/**
 * Exchanges a link's code for a gate session (15 minutes, bound to the secret, the link and
 * the address; stored only as a hash). Wrong, expired, used, never sent or a wrong address:
 * one answer, counted alike, so a try tells nobody whether the address is the link's.
 */
export async function verifyGate(
  secretId: string,
  recipientId: string,
  email: string,
  code: string,
  source: string,
  hostClaim: HostClaim | null,
  ports: GatePorts,
): Promise<IssuedGateSession> {
  const { link } = await linkOf(secretId, recipientId, hostClaim, ports);
  const left = await countTry(secretId, recipientId, source, ports);
  const now = ports.clock.now();
  const current = await ports.gates.getCode(secretId, recipientId);
  const right =
    current !== null &&
    constantTimeEqual(Buffer.from(codeHashOf(current.salt, code)), Buffer.from(current.codeHash)) &&
    current.expiresAt > now &&
    matches(link, email);
  if (!right || !(await ports.gates.consumeCode(secretId, recipientId, current.codeHash))) {
    throw new Unauthenticated('That code is not right, or it has expired or been used; ask for a new one if it has.', {
      facts: { attempts_left: left },
    });
  }
  const token = newGateToken();
  const expiresAt = now + gateLimits.sessionSeconds * 1000;
  await ports.gates.putSession(sha256Base64Url(token), { secretId, recipientId, emailHash: recipientEmailHash(link.email!), expiresAt });
  return { token, expiresAt };
}

/**
 * The address a gate token proves for a claim through `recipientId` of `secretId`: its hash,
 * or undefined when the token is unknown or expired (the claim then asks for the gate). A
 * session made for another secret or link is refused outright (forbidden).
 */
export async function gateEmailHash(
  secretId: string,
  recipientId: string | null,
  token: string | null,
  ports: { gates: GateStore; clock: Clock },
): Promise<string | undefined> {
  if (token === null || !/^hlg_[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  const session = await ports.gates.getSession(sha256Base64Url(token));
  if (!session || session.expiresAt <= ports.clock.now()) return undefined;
  if (session.secretId !== secretId || session.recipientId !== recipientId) {
    throw new Forbidden('This gate session was made for another secret or link.', { code: 'gate_refused' });
  }
  return session.emailHash;
}
