import { randomBytes } from 'node:crypto';
import { HttpError } from '../../http/errors.ts';
import { enforceWindow, type RateCounter } from '../../http/rateLimit.ts';
import { constantTimeEqual, newNumericCode, newUserId, sha256Base64Url } from '../../ids.ts';
import { signInLimits } from '../../limits.ts';
import { normalizeEmail, type SignInCode } from './model.ts';
import type { AccountPorts } from './ports.ts';
import { openSession, type IssuedTokens, type SessionPorts } from './sessions.ts';

export type SignInPorts = AccountPorts & SessionPorts & { rateCounter: RateCounter };

/** Codes mailed to one address, whoever asks and from wherever: a mailbox is not a target. */
const mailWindow = { limit: signInLimits.codesPerAddressPerHour, windowSeconds: 3600 };

const emailHashOf = (email: string) => sha256Base64Url(`email:${normalizeEmail(email)}`);
const codeHashOf = (salt: string, emailHash: string, code: string) => sha256Base64Url(`${salt}:${emailHash}:${code}`);

function newCode(email: string, now: number, attempts = 0): { record: SignInCode; code: string } {
  const emailHash = emailHashOf(email);
  const code = newNumericCode(signInLimits.codeDigits);
  const salt = randomBytes(16).toString('base64url');
  return {
    code,
    record: { emailHash, codeHash: codeHashOf(salt, emailHash, code), salt, attempts, sentAt: now, expiresAt: now + signInLimits.codeSeconds * 1000 },
  };
}

async function mailCode(email: string, code: string, ports: SignInPorts): Promise<void> {
  await ports.mailer.send({
    to: normalizeEmail(email),
    subject: `Your Hushlink sign-in code: ${code}`,
    text: `Your Hushlink sign-in code is ${code}.\n\nIt works once, for ${signInLimits.codeSeconds / 60} minutes. If you did not ask to sign in, ignore this email: nobody can sign in without the code.`,
  });
}

/**
 * Sends a code. The answer, and the work done before it, are the same whether or not the
 * address has an account: no account is looked up here.
 */
export async function startSignIn(email: string, ports: SignInPorts): Promise<void> {
  if (await ports.ssoPolicy.enforcedFor(email)) return;
  await enforceWindow(`otp_mail#${emailHashOf(email)}`, mailWindow, ports);
  const { record, code } = newCode(email, ports.clock.now());
  await ports.signInCodes.put(record, signInLimits.codeSeconds);
  await mailCode(email, code, ports);
}

/** Sends a fresh code for a pending sign-in, under its own cooldown; attempts carry over. */
export async function resendSignInCode(email: string, ports: SignInPorts): Promise<void> {
  const now = ports.clock.now();
  const pending = await ports.signInCodes.get(emailHashOf(email));
  if (!pending || pending.expiresAt <= now) return;
  await enforceWindow(`otp_mail#${emailHashOf(email)}`, mailWindow, ports);
  const { record, code } = newCode(email, now, pending.attempts);
  const cooledDown = await ports.signInCodes.replaceIfCooledDown(record, now - signInLimits.resendCooldownSeconds * 1000, signInLimits.codeSeconds);
  if (!cooledDown) {
    const wait = Math.max(1, Math.ceil((pending.sentAt + signInLimits.resendCooldownSeconds * 1000 - now) / 1000));
    throw new HttpError(429, 'rate_limited', `A code was just sent; you can ask again in ${wait} s.`, { headers: { 'retry-after': String(wait) } });
  }
  await mailCode(email, code, ports);
}

/** Exchanges a code for a session; the first sign-in of an address creates its account. */
export async function verifySignInCode(email: string, code: string, deviceName: string, ports: SignInPorts): Promise<IssuedTokens> {
  if (await ports.ssoPolicy.enforcedFor(email)) {
    throw new HttpError(403, 'forbidden', 'This address signs in through its organization’s single sign-on.', { members: { reason: 'sso_required' } });
  }
  const now = ports.clock.now();
  const emailHash = emailHashOf(email);
  const pending = await ports.signInCodes.get(emailHash);
  const invalid = (detail: string, members: Record<string, unknown> = {}) => new HttpError(401, 'unauthorized', detail, { members });
  if (!pending || pending.expiresAt <= now) throw invalid('This code is not valid or has expired; ask for a new one.');
  const attempts = await ports.signInCodes.countAttempt(emailHash, signInLimits.codeAttempts);
  if (attempts === null) throw invalid('Too many wrong codes; ask for a new one.', { attempts_left: 0 });
  if (!constantTimeEqual(Buffer.from(codeHashOf(pending.salt, emailHash, code)), Buffer.from(pending.codeHash))) {
    throw invalid('That code is not right.', { attempts_left: signInLimits.codeAttempts - attempts });
  }
  // One code, one session: of two requests racing with the right code, one wins.
  if (!(await ports.signInCodes.consume(emailHash, pending.codeHash))) throw invalid('This code was already used.');
  const user = await ports.users.createOrGet({ id: newUserId(), email: normalizeEmail(email), plan: 'free', createdAt: now });
  return openSession(user, deviceName, ports);
}
