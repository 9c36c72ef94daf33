import { describe, expect, it } from 'vitest';
import { signInWithLink, startSignIn, verifySignInCode } from '../../shared/domain/accounts/signIn.ts';
import { Forbidden, RateLimited, Unauthenticated } from '../../shared/domain/refusals.ts';
import { sha256Base64Url } from '../../shared/ids.ts';
import { signInLimits } from '../../shared/limits.ts';
import { memoryAccountPorts, ssoPolicyOf } from '../fakes/accountGroup.ts';
import { StoppedClock } from '../support/clock.ts';

// The sign-in link mailed with each code (ADR 0167): one entry with its code, stored as a hash,
// used once by either, outside every guess budget.

const email = 'ana@example.com';
const here = '192.0.2.1';

function world(sso = false) {
  const ports = memoryAccountPorts(new StoppedClock(), ssoPolicyOf(sso), 'https://eu.hushlink.example');
  /** The code and the link of the newest mail to `to`. */
  const mailed = (to = email) => {
    const mail = ports.mailer.to(to).at(-1)!;
    const link = new URL(/^https:\/\/\S+$/m.exec(mail.text)![0]);
    const fragment = new URLSearchParams(link.hash.slice(1));
    return { mail, link, code: /\b(\d{8})\b/.exec(mail.text)![1]!, email: fragment.get('email')!, token: fragment.get('token')! };
  };
  const stored = async (to = email) => (await ports.signInCodes.get(sha256Base64Url(`email:${to}`))).codes;
  return { ports, mailed, stored };
}

async function refusal(work: Promise<unknown>): Promise<unknown> {
  try {
    await work;
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal');
}

describe('the sign-in mail', () => {
  it('carries the code and a link to the web client’s /signin, the address and a 256-bit token in its fragment only', async () => {
    const { ports, mailed, stored } = world();
    await startSignIn('Ana@Example.com', here, ports);
    const { mail, link, code, email: linked, token } = mailed();
    expect(mail.subject).toBe(`Your Hushlink sign-in code: ${code}`);
    expect(mail.text).toContain(`Your Hushlink sign-in code is ${code}.`);
    expect(`${link.origin}${link.pathname}${link.search}`).toBe('https://eu.hushlink.example/signin');
    expect(linked).toBe(email);
    expect(token).toMatch(/^hls_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token.slice(4), 'base64url')).toHaveLength(32);
    // Only the hash is kept, beside the code's, in the code's own entry.
    const [entry] = await stored();
    expect(entry).toMatchObject({ linkHash: sha256Base64Url(`signin-link:${token}`), expiresAt: ports.clock.now() + 600_000 });
    expect(JSON.stringify(await stored())).not.toContain(token.slice(4));
  });

  it('gives every mail a link of its own', async () => {
    const { ports, mailed } = world();
    await startSignIn(email, here, ports);
    const first = mailed().token;
    await startSignIn(email, '192.0.2.2', ports);
    expect(mailed().token).not.toBe(first);
  });
});

describe('signInWithLink', () => {
  it('opens the session a code opens, creating the account on a first sign-in', async () => {
    const { ports, mailed } = world();
    await startSignIn(email, here, ports);
    const tokens = await signInWithLink(email, mailed().token, 'Firefox on Linux', ports);
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 900, user: { email } });
    expect(tokens.refresh_token).toMatch(/^hlr_ses_/);
    expect(await ports.users.findByEmail(email)).toMatchObject({ id: tokens.user.id });
    const [session] = await ports.sessions.listForUser(tokens.user.id);
    expect(session).toMatchObject({ deviceName: 'Firefox on Linux' });
  });

  it('works once, and using it uses its code: both then get 401', async () => {
    const { ports, mailed } = world();
    await startSignIn(email, here, ports);
    const { token, code } = mailed();
    await signInWithLink(email, token, 'd', ports);
    expect(await refusal(signInWithLink(email, token, 'd', ports))).toBeInstanceOf(Unauthenticated);
    expect(await refusal(verifySignInCode(email, code, 'd', here, ports))).toBeInstanceOf(Unauthenticated);
  });

  it('is dead once its code signed in, and leaves the other mails’ codes and links alone', async () => {
    const { ports, mailed, stored } = world();
    await startSignIn(email, here, ports);
    const first = mailed();
    await startSignIn(email, '192.0.2.2', ports);
    const second = mailed();
    await verifySignInCode(email, first.code, 'd', here, ports);
    expect(await refusal(signInWithLink(email, first.token, 'd', ports))).toBeInstanceOf(Unauthenticated);
    expect(await stored()).toHaveLength(1);
    await signInWithLink(email, second.token, 'd', ports);
    expect(await stored()).toEqual([]);
  });

  it('refuses alike, in one sentence, an expired link, an unknown token and another address’s token', async () => {
    const { ports, mailed } = world();
    await startSignIn(email, here, ports);
    await startSignIn('ben@example.com', here, ports);
    const ana = mailed().token;
    const ben = mailed('ben@example.com').token;
    const refusals = [
      await refusal(signInWithLink(email, `hls_${'A'.repeat(43)}`, 'd', ports)),
      await refusal(signInWithLink(email, ben, 'd', ports)),
      await refusal(signInWithLink('ana+x@example.com', ana, 'd', ports)),
    ];
    ports.clock.advance(signInLimits.codeSeconds);
    refusals.push(await refusal(signInWithLink(email, ana, 'd', ports)));
    for (const refused of refusals) {
      expect(refused).toBeInstanceOf(Unauthenticated);
      expect(refused).toMatchObject({
        detail: 'This sign-in link does not work: it has expired, or it or its code was used. Ask for a new code.',
        facts: {},
      });
    }
  });

  it('signs in one of two parallel uses', async () => {
    const { ports, mailed } = world();
    await startSignIn(email, here, ports);
    const { token } = mailed();
    const outcomes = await Promise.allSettled(Array.from({ length: 4 }, () => signInWithLink(email, token, 'd', ports)));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    for (const outcome of outcomes.filter((each) => each.status === 'rejected'))
      expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(Unauthenticated);
  });

  it('signs in when the address’s guess budget is spent and its right code is refused 429', async () => {
    const { ports, mailed } = world();
    await startSignIn(email, here, ports);
    const { code, token } = mailed();
    const wrong = String((Number(code) + 1) % 10 ** 8).padStart(8, '0');
    const sources = Math.ceil(signInLimits.guessesPerAddress.limit / signInLimits.guessesPerSource[0].limit);
    for (let source = 0; source < sources; source++)
      for (let guess = 0; guess < signInLimits.guessesPerSource[0].limit; guess++)
        expect(await refusal(verifySignInCode(email, wrong, 'd', `198.51.100.${source}`, ports))).toBeInstanceOf(Unauthenticated);
    expect(await refusal(verifySignInCode(email, code, 'd', '203.0.113.9', ports))).toBeInstanceOf(RateLimited);
    expect((await signInWithLink(email, token, 'd', ports)).user.email).toBe(email);
  });

  it('is forbidden for an address whose domain enforces SSO, like its code', async () => {
    const { ports } = world(true);
    await expect(signInWithLink(email, `hls_${'A'.repeat(43)}`, 'd', ports)).rejects.toBeInstanceOf(Forbidden);
    await expect(signInWithLink(email, `hls_${'A'.repeat(43)}`, 'd', ports)).rejects.toMatchObject({ facts: { reason: 'sso_required' } });
  });

  it('finds no link in a code mailed before links, which still signs in as a code', async () => {
    const { ports, mailed, stored } = world();
    await startSignIn(email, here, ports);
    const { code, token } = mailed();
    const emailHash = sha256Base64Url(`email:${email}`);
    const { version } = await ports.signInCodes.get(emailHash);
    const [{ linkHash: _, ...withoutLink }] = (await stored()) as unknown as [Record<string, unknown>];
    await ports.signInCodes.replace(emailHash, [withoutLink as never], version);
    expect(await refusal(signInWithLink(email, token, 'd', ports))).toBeInstanceOf(Unauthenticated);
    expect((await verifySignInCode(email, code, 'd', here, ports)).user.email).toBe(email);
  });
});
