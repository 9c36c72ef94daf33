import { generateKeyPairSync, hkdfSync } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { issueChatToken, issueInstallState, readChatToken, readInstallState } from '../../shared/domain/chat/tokens.ts';
import { chatLimits } from '../../shared/limits.ts';

// A client secret of Slack's shape (32 hex digits), and another app's.
const clientSecret = '3f9d2c7b1a8e4f6d0c5b9a7e2d4f8c1b';
const otherSecret = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
const now = 1_767_225_600_000; // 2026-01-01T00:00:00Z, a whole second
const userId = 'usr_5kVQ3n9m2XbJtq1H0yWz7A';
const identity = { teamId: 'T0001ABCD', slackUserId: 'U0002EFGH' };

/** Each kind's key, derived here as the decision records it (HKDF-SHA-256, no salt, one label per kind). */
const keyFor = (info: string, secret = clientSecret) =>
  new Uint8Array(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), info, 32));
const stateKey = keyFor('hushlink chat install state');
const chatKey = keyFor('hushlink chat token');

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const parts = (token: string) => token.split('.') as [string, string, string];

/** A token of the given header and claims, signed with `key` (HS256 unless the header says otherwise). */
const forge = (header: Record<string, unknown>, claims: Record<string, unknown>, key: Uint8Array) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'HS256', ...header }).sign(key);

const seconds = Math.floor(now / 1000);
const stateClaims = { sub: userId, jti: 'abc', aud: 'hushlink:chat:install-state', iat: seconds, exp: seconds + 600 };
const stateHeader = { typ: 'hushlink-chat-state+jwt' };
const chatClaims = { sub: identity.slackUserId, team_id: identity.teamId, aud: 'hushlink:chat:composer', iat: seconds, exp: seconds + 900 };
const chatHeader = { typ: 'hushlink-chat+jwt' };

describe('install state', () => {
  it('round-trips the user, a fresh random jti and its expiry, 10 minutes on', async () => {
    expect(chatLimits.stateSeconds).toBe(600);
    const issued = await issueInstallState(userId, now, clientSecret);
    expect(issued.expiresAt).toBe(now + 600_000);
    expect(issued.jti).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(await readInstallState(issued.token, now, clientSecret)).toEqual({ userId, jti: issued.jti, expiresAt: issued.expiresAt });
    const again = await issueInstallState(userId, now, clientSecret);
    expect(again.jti).not.toBe(issued.jti);
    expect(again.token).not.toBe(issued.token);
  });

  it('carries its kind in typ and aud, signed with the key HKDF derives for its label', async () => {
    const { token, jti } = await issueInstallState(userId, now, clientSecret);
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'HS256', typ: 'hushlink-chat-state+jwt' });
    expect(decodeJwt(token)).toEqual({ ...stateClaims, jti });
    // A token made here with the derived key reads, so the derivation is the one recorded.
    expect(await readInstallState(await forge(stateHeader, stateClaims, stateKey), now, clientSecret)).toEqual({
      userId,
      jti: 'abc',
      expiresAt: now + 600_000,
    });
  });

  it('works until the last millisecond of its 10 minutes, not at 10 minutes', async () => {
    const { token } = await issueInstallState(userId, now, clientSecret);
    expect(await readInstallState(token, now + 599_999, clientSecret)).not.toBeNull();
    expect(await readInstallState(token, now + 600_000, clientSecret)).toBeNull();
    expect(await readInstallState(token, now + 86_400_000, clientSecret)).toBeNull();
  });

  it('issued late in a second still ends at its whole second, never later than 10 minutes on', async () => {
    const issued = await issueInstallState(userId, now + 999, clientSecret);
    expect(issued.expiresAt).toBe(now + 600_000);
    expect(await readInstallState(issued.token, now + 600_000, clientSecret)).toBeNull();
  });

  it('refuses one made with another client secret, or with the client secret itself as the key', async () => {
    const { token } = await issueInstallState(userId, now, otherSecret);
    expect(await readInstallState(token, now, clientSecret)).toBeNull();
    expect(await readInstallState(await forge(stateHeader, stateClaims, Buffer.from(clientSecret, 'utf8')), now, clientSecret)).toBeNull();
  });

  it('refuses a token whose iat is in the future, or whose exp reaches past its life', async () => {
    expect(
      await readInstallState(
        await forge(stateHeader, { ...stateClaims, iat: seconds + 60, exp: seconds + 600 }, stateKey),
        now,
        clientSecret,
      ),
    ).toBeNull();
    expect(
      await readInstallState(
        await forge(stateHeader, { ...stateClaims, iat: seconds - 601, exp: seconds + 3600 }, stateKey),
        now,
        clientSecret,
      ),
    ).toBeNull();
  });

  it('refuses one missing a claim it needs, or with the wrong typ or aud', async () => {
    for (const claim of ['sub', 'jti', 'exp', 'iat', 'aud'] as const) {
      const { [claim]: _dropped, ...rest } = stateClaims;
      expect(await readInstallState(await forge(stateHeader, rest, stateKey), now, clientSecret), claim).toBeNull();
    }
    expect(await readInstallState(await forge(stateHeader, { ...stateClaims, sub: '' }, stateKey), now, clientSecret)).toBeNull();
    expect(await readInstallState(await forge(stateHeader, { ...stateClaims, sub: 42 }, stateKey), now, clientSecret)).toBeNull();
    expect(await readInstallState(await forge({}, stateClaims, stateKey), now, clientSecret)).toBeNull();
    expect(await readInstallState(await forge({ typ: 'JWT' }, stateClaims, stateKey), now, clientSecret)).toBeNull();
    expect(await readInstallState(await forge(stateHeader, { ...stateClaims, aud: 'hushlink' }, stateKey), now, clientSecret)).toBeNull();
  });
});

describe('chat token', () => {
  it('round-trips the team and user and its expiry, 15 minutes on', async () => {
    expect(chatLimits.chatTokenSeconds).toBe(900);
    const issued = await issueChatToken(identity, now, clientSecret);
    expect(issued.expiresAt).toBe(now + 900_000);
    expect(await readChatToken(issued.token, now, clientSecret)).toEqual({ ...identity, expiresAt: issued.expiresAt });
    expect(decodeProtectedHeader(issued.token)).toEqual({ alg: 'HS256', typ: 'hushlink-chat+jwt' });
    expect(decodeJwt(issued.token)).toEqual(chatClaims);
    expect(await readChatToken(await forge(chatHeader, chatClaims, chatKey), now, clientSecret)).toEqual({
      ...identity,
      expiresAt: now + 900_000,
    });
  });

  it('works until the last millisecond of its 15 minutes, not at 15 minutes', async () => {
    const { token } = await issueChatToken(identity, now, clientSecret);
    expect(await readChatToken(token, now + 899_999, clientSecret)).not.toBeNull();
    expect(await readChatToken(token, now + 900_000, clientSecret)).toBeNull();
  });

  it('refuses one made with another client secret', async () => {
    const { token } = await issueChatToken(identity, now, otherSecret);
    expect(await readChatToken(token, now, clientSecret)).toBeNull();
  });

  it('refuses one without its team, or naming it as no string', async () => {
    const { team_id: _team, ...rest } = chatClaims;
    expect(await readChatToken(await forge(chatHeader, rest, chatKey), now, clientSecret)).toBeNull();
    expect(await readChatToken(await forge(chatHeader, { ...chatClaims, team_id: ['T0001ABCD'] }, chatKey), now, clientSecret)).toBeNull();
    expect(await readChatToken(await forge(chatHeader, { ...chatClaims, team_id: '' }, chatKey), now, clientSecret)).toBeNull();
  });
});

describe('kinds never cross', () => {
  it('a state is no chat token, and a chat token no state', async () => {
    const state = await issueInstallState(userId, now, clientSecret);
    const chat = await issueChatToken(identity, now, clientSecret);
    expect(await readChatToken(state.token, now, clientSecret)).toBeNull();
    expect(await readInstallState(chat.token, now, clientSecret)).toBeNull();
  });

  it('each check holds alone: the other kind’s key, typ or aud with everything else right', async () => {
    // Signed with the other kind's key.
    expect(await readInstallState(await forge(stateHeader, stateClaims, chatKey), now, clientSecret)).toBeNull();
    expect(await readChatToken(await forge(chatHeader, chatClaims, stateKey), now, clientSecret)).toBeNull();
    // The other kind's typ.
    expect(await readInstallState(await forge(chatHeader, stateClaims, stateKey), now, clientSecret)).toBeNull();
    expect(await readChatToken(await forge(stateHeader, chatClaims, chatKey), now, clientSecret)).toBeNull();
    // The other kind's aud.
    expect(
      await readInstallState(await forge(stateHeader, { ...stateClaims, aud: chatClaims.aud }, stateKey), now, clientSecret),
    ).toBeNull();
    expect(await readChatToken(await forge(chatHeader, { ...chatClaims, aud: stateClaims.aud }, chatKey), now, clientSecret)).toBeNull();
  });
});

describe('forgeries and garbage', () => {
  it('refuses a payload changed under the signature', async () => {
    const { token } = await issueInstallState(userId, now, clientSecret);
    const [header, payload, signature] = parts(token);
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    for (const changed of [
      { ...claims, sub: 'usr_someoneelse0000000000' },
      { ...claims, exp: claims.exp + 3600 },
      { ...claims, extra: 1 },
    ]) {
      expect(await readInstallState(`${header}.${b64(changed)}.${signature}`, now, clientSecret)).toBeNull();
    }
    const chat = await issueChatToken(identity, now, clientSecret);
    const [chatHeaderPart, chatPayload, chatSignature] = parts(chat.token);
    const chatChanged = { ...JSON.parse(Buffer.from(chatPayload, 'base64url').toString('utf8')), team_id: 'T9999ZZZZ' };
    expect(await readChatToken(`${chatHeaderPart}.${b64(chatChanged)}.${chatSignature}`, now, clientSecret)).toBeNull();
  });

  it('refuses a signature changed in any one character, cut short or dropped', async () => {
    const { token } = await issueChatToken(identity, now, clientSecret);
    const [header, payload, signature] = parts(token);
    // Every character but the last, whose low bits base64url may not carry.
    for (let at = 0; at < signature.length - 1; at++) {
      const flipped = signature.slice(0, at) + (signature[at] === 'A' ? 'B' : 'A') + signature.slice(at + 1);
      expect(await readChatToken(`${header}.${payload}.${flipped}`, now, clientSecret)).toBeNull();
    }
    expect(await readChatToken(`${header}.${payload}.${signature.slice(0, -2)}`, now, clientSecret)).toBeNull();
    expect(await readChatToken(`${header}.${payload}.`, now, clientSecret)).toBeNull();
    expect(await readChatToken(`${header}.${payload}`, now, clientSecret)).toBeNull();
  });

  it('refuses alg none, other HMACs with the right key, and public-key algorithms', async () => {
    // Unsigned, and with the signature of a genuine token kept (so it is refused for its alg, not its shape).
    const [, genuinePayload, genuineSignature] = parts(await forge(stateHeader, stateClaims, stateKey));
    for (const alg of ['none', 'None', 'NONE']) {
      expect(await readInstallState(`${b64({ alg, ...stateHeader })}.${b64(stateClaims)}.`, now, clientSecret), alg).toBeNull();
      expect(await readChatToken(`${b64({ alg, ...chatHeader })}.${b64(chatClaims)}.`, now, clientSecret), alg).toBeNull();
      expect(
        await readInstallState(`${b64({ alg, ...stateHeader })}.${genuinePayload}.${genuineSignature}`, now, clientSecret),
        alg,
      ).toBeNull();
    }
    // The right key under HS384 and HS512.
    for (const alg of ['HS384', 'HS512']) {
      expect(await readInstallState(await forge({ ...stateHeader, alg }, stateClaims, stateKey), now, clientSecret), alg).toBeNull();
    }
    // Alg confusion: a key pair's token, and an HS256 one whose header claims RS256.
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const es256 = await new SignJWT(chatClaims).setProtectedHeader({ alg: 'ES256', ...chatHeader }).sign(privateKey);
    expect(await readChatToken(es256, now, clientSecret)).toBeNull();
    const [, payload, signature] = parts(await forge(chatHeader, chatClaims, chatKey));
    expect(await readChatToken(`${b64({ alg: 'RS256', ...chatHeader })}.${payload}.${signature}`, now, clientSecret)).toBeNull();
  });

  it('refuses garbage without throwing', async () => {
    const { token } = await issueInstallState(userId, now, clientSecret);
    for (const bad of [
      '',
      '.',
      '..',
      'a.b.c',
      'not a token',
      token.replaceAll('.', ''),
      `${token}.x`,
      `${token} `,
      `${token}\n`,
      `${token}\t`,
      ` ${token}`,
      token.replace('.', '. '),
      token + 'A'.repeat(chatLimits.tokenChars),
      '\u0000',
      'é.é.é',
      `${b64('x')}.${b64('y')}.${b64('z')}`,
    ]) {
      expect(await readInstallState(bad, now, clientSecret), bad.slice(0, 40)).toBeNull();
      expect(await readChatToken(bad, now, clientSecret), bad.slice(0, 40)).toBeNull();
    }
  });

  it('refuses a token past chatLimits.tokenChars unread, though validly signed', async () => {
    const padded = await forge(stateHeader, { ...stateClaims, pad: 'x'.repeat(chatLimits.tokenChars) }, stateKey);
    expect(padded.length).toBeGreaterThan(chatLimits.tokenChars);
    expect(await readInstallState(padded, now, clientSecret)).toBeNull();
    const fits = await forge(stateHeader, { ...stateClaims, pad: 'x'.repeat(400) }, stateKey);
    expect(fits.length).toBeLessThanOrEqual(chatLimits.tokenChars);
    expect(await readInstallState(fits, now, clientSecret)).not.toBeNull();
  });

  it('throws for an empty client secret or an empty name, a caller’s mistake', async () => {
    await expect(issueInstallState(userId, now, '')).rejects.toThrow(TypeError);
    await expect(readInstallState('a.b.c', now, '')).rejects.toThrow(TypeError);
    await expect(issueChatToken(identity, now, '')).rejects.toThrow(TypeError);
    await expect(readChatToken('a.b.c', now, '')).rejects.toThrow(TypeError);
    await expect(issueInstallState('', now, clientSecret)).rejects.toThrow(TypeError);
    await expect(issueChatToken({ ...identity, teamId: '' }, now, clientSecret)).rejects.toThrow(TypeError);
    await expect(issueChatToken({ ...identity, slackUserId: '' }, now, clientSecret)).rejects.toThrow(TypeError);
  });
});

describe('no secret in a token', () => {
  it('holds neither the client secret nor either derived key, in any encoding', async () => {
    const tokens = [(await issueInstallState(userId, now, clientSecret)).token, (await issueChatToken(identity, now, clientSecret)).token];
    const secrets = [Buffer.from(clientSecret, 'utf8'), Buffer.from(clientSecret, 'hex'), Buffer.from(stateKey), Buffer.from(chatKey)];
    for (const token of tokens) {
      expect(token.length).toBeLessThan(400);
      const decoded = parts(token).map((part) => Buffer.from(part, 'base64url'));
      for (const secret of secrets) {
        for (const form of [secret.toString('utf8'), secret.toString('hex'), secret.toString('base64'), secret.toString('base64url')]) {
          expect(token).not.toContain(form);
          for (const part of decoded) expect(part.toString('utf8')).not.toContain(form);
        }
        for (const part of decoded) expect(part.includes(secret)).toBe(false);
      }
      // What a token says is only what it names: no field beyond these.
      expect(Object.keys(decodeJwt(token)).sort()).toEqual(
        token === tokens[0] ? ['aud', 'exp', 'iat', 'jti', 'sub'] : ['aud', 'exp', 'iat', 'sub', 'team_id'],
      );
    }
  });
});
