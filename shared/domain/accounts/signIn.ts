import { randomBytes } from 'node:crypto';
import type { Language } from '../../languages.ts';
import { askedMailLanguage, renderMail } from '../mailText.ts';
import { addressKey } from '../sources.ts';
import { enforceWindow, type RateCounter } from '../rateWindows.ts';
import { Forbidden, RateLimited, Unauthenticated } from '../refusals.ts';
import type { Config } from '../../config.ts';
import { constantTimeEqual, newNumericCode, newSignInLinkToken, newUserId, sha256Base64Url } from '../../ids.ts';
import { signInLimits } from '../../limits.ts';
import { capAddress, normalizeEmail, type SignInCode } from './model.ts';
import type { AccountPorts, SsoRule } from './ports.ts';
import { openSession, type IssuedTokens, type SessionPorts } from './sessions.ts';

export type SignInPorts = AccountPorts &
  SessionPorts & {
    rateCounter: RateCounter;
    /** The web client's origin: the sign-in link opens its `/signin` page. */
    config: Pick<Config, 'WEB_ORIGIN'>;
  };

/*
 * Codes belong to an exact (normalized) address; caps and guess budgets count its cap address
 * (`+tag` removed), alone or with the asking source (IPv6 by its /64). Only hashes are stored.
 * Why these rules and numbers, and the odds of guessing a code:
 * docs/adr/0032-sign-in-guess-budgets-per-address-and-per-source.md (with 0031 and 0033).
 * Each mail also carries a one-click link whose token cannot be guessed, so no budget holds it
 * back: docs/adr/0167-a-sign-in-link-nobody-can-block.md.
 */
const emailHashOf = (email: string) => sha256Base64Url(`email:${normalizeEmail(email)}`);
const capHashOf = (email: string) => sha256Base64Url(`cap:${capAddress(email)}`);
const askerHashOf = (email: string, sourceIp: string) => sha256Base64Url(`cap:${capAddress(email)}\nsource:${addressKey(sourceIp)}`);
const codeHashOf = (salt: string, emailHash: string, code: string) => sha256Base64Url(`${salt}:${emailHash}:${code}`);
/** A link's token is 256 random bits: its SHA-256 alone is enough to keep (no salt, nothing to guess). */
const linkHashOf = (token: string) => sha256Base64Url(`signin-link:${token}`);

/**
 * The page a sign-in link opens: the web client's `/signin`, the address and the token in the
 * fragment, which no browser sends to a server (nor in a Referer). The page asks before it signs
 * in, so a mail scanner that follows the link uses nothing.
 */
export const signInLinkUrl = (webOrigin: string, email: string, token: string): string =>
  `${webOrigin}/signin#${new URLSearchParams({ email: normalizeEmail(email), token }).toString()}`;

/**
 * Conditional writes of an address's codes retried after losing to another write. Each write
 * that wins adds or uses a code, and an address holds at most three live ones, so losing this
 * many in a row does not happen short of a fault.
 */
const writeTries = 5;

async function mailCode(email: string, code: string, linkToken: string, language: Language, ports: SignInPorts): Promise<void> {
  await ports.mailer.send({
    to: normalizeEmail(email),
    ...renderMail('signInCode', language, {
      code,
      link: signInLinkUrl(ports.config.WEB_ORIGIN, email, linkToken),
      minutes: signInLimits.codeSeconds / 60,
    }),
  });
}

/**
 * Adds a code to the address's live ones and mails it. With the live codes already there, it
 * adds and mails nothing: the mailbox holds them, and each still works. No code is ever
 * removed here, so nobody's asking cancels the code someone else is about to type.
 */
async function sendCode(email: string, asked: Language | undefined, ports: SignInPorts): Promise<void> {
  const language = askedMailLanguage(asked);
  const emailHash = emailHashOf(email);
  const code = newNumericCode(signInLimits.codeDigits);
  const linkToken = newSignInLinkToken();
  const salt = randomBytes(16).toString('base64url');
  for (let tries = 0; tries < writeTries; tries++) {
    const now = ports.clock.now();
    const { codes, version } = await ports.signInCodes.get(emailHash);
    const live = codes.filter((pending) => pending.expiresAt > now);
    if (live.length >= signInLimits.liveCodesPerAddress) return;
    const added: SignInCode = {
      codeHash: codeHashOf(salt, emailHash, code),
      salt,
      linkHash: linkHashOf(linkToken),
      sentAt: now,
      expiresAt: now + signInLimits.codeSeconds * 1000,
    };
    if (await ports.signInCodes.replace(emailHash, [...live, added], version)) {
      await mailCode(email, code, linkToken, language, ports);
      return;
    }
  }
}

/**
 * Sends a code, in the language `asked` (the request's `Accept-Language`), else English. The
 * answer, and the work done before it, are the same whether or not the address has an account:
 * no account is looked up here. Only this source's own cap refuses it.
 */
export async function startSignIn(email: string, sourceIp: string, ports: SignInPorts, asked?: Language): Promise<void> {
  const rule = await ports.ssoPolicy.ruleFor(email);
  const asker = askerHashOf(email, sourceIp);
  await enforceWindow(`otp_mail_source#${asker}`, signInLimits.codesPerSource, ports);
  await ports.signInCodes.markAsked(asker, ports.clock.now());
  // Under enforcement the same answer, and a mail all the same: a link to sign in through the
  // workspace's provider instead of a code (so the answer tells nobody which addresses enforce).
  if (rule.enforced && !rule.breakGlass) return mailSsoLink(email, asked, ports);
  await sendCode(email, asked, ports);
}

/** The mail an address under enforced SSO gets instead of a code: where to sign in. */
async function mailSsoLink(email: string, asked: Language | undefined, ports: SignInPorts): Promise<void> {
  const language = askedMailLanguage(asked);
  const start = `${ports.config.WEB_ORIGIN.replace(/\/+$/, '')}/v1/auth/sso/start?${new URLSearchParams({ email: normalizeEmail(email), return_to: '/account' }).toString()}`;
  await ports.mailer.send({ to: normalizeEmail(email), ...renderMail('ssoSignIn', language, { link: start }) });
}

/**
 * Sends another code: a start under a cooldown of its own. The cooldown counts this source's
 * asking only, so the answer says nothing about anyone else's; and it sends a code whether or
 * not one was pending, so neither the answer nor the work tells whether someone asked.
 */
export async function resendSignInCode(email: string, sourceIp: string, ports: SignInPorts, asked?: Language): Promise<void> {
  const rule = await ports.ssoPolicy.ruleFor(email);
  const asker = askerHashOf(email, sourceIp);
  const now = ports.clock.now();
  const cooldownMs = signInLimits.resendCooldownSeconds * 1000;
  const askedAt = await ports.signInCodes.markAsked(asker, now, cooldownMs);
  if (askedAt !== null) {
    const wait = Math.max(1, Math.ceil((askedAt + cooldownMs - now) / 1000));
    throw new RateLimited(`A code was just sent; you can ask again in ${wait} s.`, wait);
  }
  await enforceWindow(`otp_mail_source#${asker}`, signInLimits.codesPerSource, ports);
  if (rule.enforced && !rule.breakGlass) return mailSsoLink(email, asked, ports);
  await sendCode(email, asked, ports);
}

/**
 * Counts a guess before any code is compared, by conditional increments, so parallel guesses
 * cannot overshoot: the source's windows first (beyond them only this source is refused, and
 * uses none of the address's budget), then the address's, which refuses every source. Answers
 * the guesses this source has left.
 */
async function countGuess(email: string, sourceIp: string, ports: SignInPorts): Promise<number> {
  const asker = askerHashOf(email, sourceIp);
  let left = Number.POSITIVE_INFINITY;
  for (const window of signInLimits.guessesPerSource) {
    const counted = await enforceWindow(`otp_guess_source#${window.windowSeconds}#${asker}`, window, ports);
    left = Math.min(left, window.limit - counted);
  }
  await enforceWindow(`otp_guess_address#${capHashOf(email)}`, signInLimits.guessesPerAddress, ports);
  return left;
}

/**
 * Uses the live entry (a code and its link) `matches` finds: each live entry is compared (all of
 * them, whichever matches, each in constant time), and the match is consumed by a conditional
 * write, so of two requests presenting one right code or link, one signs in. Removing the entry
 * ends its code and its link together.
 */
async function useEntry(email: string, matches: (pending: SignInCode, emailHash: string) => boolean, ports: SignInPorts): Promise<boolean> {
  const emailHash = emailHashOf(email);
  for (let tries = 0; tries < writeTries; tries++) {
    const now = ports.clock.now();
    const { codes, version } = await ports.signInCodes.get(emailHash);
    const live = codes.filter((pending) => pending.expiresAt > now);
    const used = live.map((pending) => matches(pending, emailHash)).indexOf(true);
    if (used < 0) return false;
    if (
      await ports.signInCodes.replace(
        emailHash,
        live.filter((_, index) => index !== used),
        version,
      )
    )
      return true;
  }
  return false;
}

/** Uses `code` if it is one of the address's live codes (its link with it). */
const useCode = (email: string, code: string, ports: SignInPorts) =>
  useEntry(
    email,
    (pending, emailHash) => constantTimeEqual(Buffer.from(codeHashOf(pending.salt, emailHash, code)), Buffer.from(pending.codeHash)),
    ports,
  );

/** Uses the live entry whose link carries `token` (its code with it). */
function useLink(email: string, token: string, ports: SignInPorts): Promise<boolean> {
  const presented = Buffer.from(linkHashOf(token));
  // An entry mailed before links has no hash: compared with nothing, it never matches.
  return useEntry(email, (pending) => constantTimeEqual(presented, Buffer.from(pending.linkHash ?? '')), ports);
}

function refuseUnderSso(): never {
  throw new Forbidden('This address signs in through its organization’s single sign-on.', { facts: { reason: 'sso_required' } });
}

/** A session for the address, whose first sign-in creates its account; an owner's break-glass sign-in under enforcement is audited. */
async function signedIn(email: string, deviceName: string, rule: SsoRule, ports: SignInPorts): Promise<IssuedTokens> {
  const user = await ports.users.createOrGet({ id: newUserId(), email: normalizeEmail(email), plan: 'free', createdAt: ports.clock.now() });
  if (rule.enforced) await ports.ssoPolicy.recordBreakGlass(rule.workspaceId, { id: user.id, email: user.email }, ports.clock.now());
  return openSession(user, deviceName, ports);
}

/** The address's SSO rule; refused (403) when it enforces and the address is not one of the workspace's owners. */
async function codeAllowed(email: string, ports: SignInPorts): Promise<SsoRule> {
  const rule = await ports.ssoPolicy.ruleFor(email);
  if (rule.enforced && !rule.breakGlass) refuseUnderSso();
  return rule;
}

/** Exchanges a code for a session; the first sign-in of an address creates its account. */
export async function verifySignInCode(
  email: string,
  code: string,
  deviceName: string,
  sourceIp: string,
  ports: SignInPorts,
): Promise<IssuedTokens> {
  const rule = await codeAllowed(email, ports);
  const left = await countGuess(email, sourceIp, ports);
  // Wrong, expired, used or never sent: one answer, so a guess tells nobody whether a sign-in is pending.
  if (!(await useCode(email, code, ports))) {
    throw new Unauthenticated('That code is not right, or it has expired or been used.', { facts: { attempts_left: left } });
  }
  return signedIn(email, deviceName, rule, ports);
}

/**
 * Exchanges a sign-in link's token (with the address it was mailed to) for the same session a
 * code opens. Counted in no guess budget: the token is 256 random bits, so guessing it is hopeless
 * and nobody's guessing of codes can keep its holder out. Unknown, used (or its code used),
 * expired, or another address's: one answer, which tells nothing.
 */
export async function signInWithLink(email: string, token: string, deviceName: string, ports: SignInPorts): Promise<IssuedTokens> {
  const rule = await codeAllowed(email, ports);
  if (!(await useLink(email, token, ports))) {
    throw new Unauthenticated('This sign-in link does not work: it has expired, or it or its code was used. Ask for a new code.');
  }
  return signedIn(email, deviceName, rule, ports);
}
