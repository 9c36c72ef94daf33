import { randomBytes } from 'node:crypto';
import type { Mailer } from '../../adapters/mailer.ts';
import type { Clock } from '../../clock.ts';
import { HttpError } from '../../http/errors.ts';
import { enforceWindow, type RateCounter } from '../../http/rateLimit.ts';
import { constantTimeEqual, newGateToken, newNumericCode, sha256Base64Url } from '../../ids.ts';
import { gateLimits } from '../../limits.ts';
import type { HostClaim } from '../domains/model.ts';
import { isTerminal, recipientEmailHash, type Recipient, type Secret } from './model.ts';
import type { SecretStore } from './ports.ts';
import { findSecretOn } from './read.ts';
import { recipientIdPattern } from './rules.ts';

/** A code mailed to a restricted link's address: stored salted and hashed, tried at most `codeAttempts` times. */
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
  /** Replaces the link's code (a new one cancels the one before: only its address receives codes). */
  putCode(secretId: string, recipientId: string, code: GateCode): Promise<void>;
  getCode(secretId: string, recipientId: string): Promise<GateCode | null>;
  /** Counts one try of the link's current code unless it has had `max`; the count, or null when spent. */
  countAttempt(secretId: string, recipientId: string, max: number): Promise<number | null>;
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
const notFound = () => new HttpError(404, 'not_found', 'No secret has this id, or it has no such link.');

/** The secret and its link, or 404: the gate is only for links that exist (on a workspace's hostname, made on it). */
async function linkOf(secretId: string, recipientId: string, hostClaim: HostClaim | null, ports: Pick<GatePorts, 'secrets'>): Promise<{ secret: Secret; link: Recipient }> {
  if (!recipientIdPattern.test(recipientId)) throw notFound();
  const secret = await findSecretOn(secretId, hostClaim, ports);
  const link = secret?.recipients?.find((recipient) => recipient.id === recipientId);
  if (!secret || !link) throw notFound();
  return { secret, link };
}

const matches = (link: Recipient, email: string) =>
  link.restricted && link.email !== null && constantTimeEqual(Buffer.from(recipientEmailHash(email)), Buffer.from(recipientEmailHash(link.email)));

/**
 * Mails a 6-digit code when `email` is the restricted link's address (case-insensitively). The
 * answer is the same whatever the address, so nobody learns which one a link is for. Codes
 * mailed to one link are capped per hour; only mails sent count, so guessing addresses cannot
 * use up the real recipient's codes.
 */
export async function startGate(secretId: string, recipientId: string, email: string, hostClaim: HostClaim | null, ports: GatePorts): Promise<void> {
  const { secret, link } = await linkOf(secretId, recipientId, hostClaim, ports);
  if (!matches(link, email) || isTerminal(secret.state) || link.state !== 'active') return;
  await enforceWindow(`gate_mail#${secretId}#${recipientId}`, gateLimits.codesPerRecipient, ports);
  const code = newNumericCode(gateLimits.codeDigits);
  const salt = randomBytes(16).toString('base64url');
  await ports.gates.putCode(secretId, recipientId, { codeHash: codeHashOf(salt, code), salt, expiresAt: ports.clock.now() + gateLimits.codeSeconds * 1000 });
  await ports.mailer.send({
    to: link.email!,
    subject: `Your code to open a secret: ${code}`,
    text:
      `Someone sent you a secret on Hushlink that only this address can open. Your code is ${code}.\n\n` +
      `It works for ${gateLimits.codeSeconds / 60} minutes, on the page where you asked for it. If you did not ask, ignore this email: nobody can use the code without the link.`,
  });
}

export interface IssuedGateSession {
  token: string;
  expiresAt: number;
}

/**
 * Exchanges a link's code for a gate session (15 minutes, bound to the secret, the link and
 * the address; stored only as a hash). A wrong address is refused like a wrong code.
 */
export async function verifyGate(secretId: string, recipientId: string, email: string, code: string, hostClaim: HostClaim | null, ports: GatePorts): Promise<IssuedGateSession> {
  const { link } = await linkOf(secretId, recipientId, hostClaim, ports);
  const refused = (detail: string, members: Record<string, unknown> = {}) => new HttpError(401, 'unauthorized', detail, { members });
  const now = ports.clock.now();
  const current = await ports.gates.getCode(secretId, recipientId);
  if (!current || current.expiresAt <= now || !matches(link, email)) throw refused('This code is not valid or has expired; ask for a new one.');
  // Counted before the comparison, across the link's codes, so parallel guesses cannot overshoot.
  await enforceWindow(`gate_try#${secretId}#${recipientId}`, gateLimits.triesPerRecipient, ports);
  const tries = await ports.gates.countAttempt(secretId, recipientId, gateLimits.codeAttempts);
  if (tries === null) throw refused('Too many wrong codes; ask for a new one.', { attempts_left: 0 });
  if (!constantTimeEqual(Buffer.from(codeHashOf(current.salt, code)), Buffer.from(current.codeHash))) {
    throw refused('That code is not right.', { attempts_left: gateLimits.codeAttempts - tries });
  }
  if (!(await ports.gates.consumeCode(secretId, recipientId, current.codeHash))) throw refused('This code was already used.');
  const token = newGateToken();
  const expiresAt = now + gateLimits.sessionSeconds * 1000;
  await ports.gates.putSession(sha256Base64Url(token), { secretId, recipientId, emailHash: recipientEmailHash(link.email!), expiresAt });
  return { token, expiresAt };
}

/**
 * The address a gate token proves for a claim through `recipientId` of `secretId`: its hash,
 * or undefined when the token is unknown or expired (the claim then asks for the gate). A
 * session made for another secret or link is refused outright (403).
 */
export async function gateEmailHash(secretId: string, recipientId: string | null, token: string | null, ports: { gates: GateStore; clock: Clock }): Promise<string | undefined> {
  if (token === null || !/^hlg_[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  const session = await ports.gates.getSession(sha256Base64Url(token));
  if (!session || session.expiresAt <= ports.clock.now()) return undefined;
  if (session.secretId !== secretId || session.recipientId !== recipientId) {
    throw new HttpError(403, 'gate_refused', 'This gate session was made for another secret or link.');
  }
  return session.emailHash;
}
