import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifySlackRequest, type VerifySlackRequestInput } from '../../shared/domain/chat/requestSignature.ts';
import { chatLimits } from '../../shared/limits.ts';

// Slack's published example ("Verifying requests from Slack"), signature recomputed in the research notes.
const vector = {
  signingSecret: '8f742231b10e8888abcd99yyyzzz85a5',
  timestamp: '1531420618',
  rawBody: Buffer.from(
    'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c',
    'utf8',
  ),
  signature: 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
};

const signingSecret = 'e3b1c2f0a9d84c6b8e7f5a4d3c2b1a09';
const t = 1_767_225_600; // 2026-01-01T00:00:00Z
const now = t * 1000;
const body = Buffer.from(
  'token=x&team_id=T0001&user_id=U0001&command=%2Fsecret&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2F1%2F2&trigger_id=1.2.3',
  'utf8',
);

/** Slack's `v0` signature, computed here independently of the verifier. */
const sign = (secret: string, timestamp: string | number, payload: Buffer): string =>
  `v0=${createHmac('sha256', secret)
    .update(Buffer.concat([Buffer.from(`v0:${timestamp}:`, 'utf8'), payload]))
    .digest('hex')}`;

const verify = (overrides: Partial<VerifySlackRequestInput> = {}) =>
  verifySlackRequest({ rawBody: body, timestamp: String(t), signature: sign(signingSecret, t, body), signingSecret, now, ...overrides });

describe('verifySlackRequest', () => {
  it('accepts Slack’s published test vector', () => {
    expect(sign(vector.signingSecret, vector.timestamp, vector.rawBody)).toBe(vector.signature);
    expect(verifySlackRequest({ ...vector, now: Number(vector.timestamp) * 1000 })).toEqual({ ok: true, timestamp: 1531420618 });
  });

  it('accepts a request signed over its exact bytes, and the hex in either case', () => {
    expect(verify()).toEqual({ ok: true, timestamp: t });
    expect(verify({ signature: `v0=${sign(signingSecret, t, body).slice(3).toUpperCase()}` })).toEqual({ ok: true, timestamp: t });
  });

  it('accepts up to 5 minutes either way, bounds included, and refuses beyond as stale', () => {
    expect(chatLimits.signatureToleranceSeconds).toBe(300);
    for (const offset of [-300, -1, 1, 300]) {
      const ts = t + offset;
      expect(verify({ timestamp: String(ts), signature: sign(signingSecret, ts, body) }).ok).toBe(true);
    }
    // 300.999 s later is still second 300.
    expect(verify({ now: now + 300_999 }).ok).toBe(true);
    for (const offset of [-301, 301, -86_400, 86_400]) {
      const ts = t + offset;
      expect(verify({ timestamp: String(ts), signature: sign(signingSecret, ts, body) })).toEqual({ ok: false, reason: 'stale' });
    }
    expect(verify({ now: now + 301_000 })).toEqual({ ok: false, reason: 'stale' });
    expect(verify({ now: now - 301_000 })).toEqual({ ok: false, reason: 'stale' });
  });

  it('refuses a stale request even with a right signature, before comparing', () => {
    const old = '1531420618';
    expect(verifySlackRequest({ ...vector, timestamp: old, now })).toEqual({ ok: false, reason: 'stale' });
  });

  it('refuses a body changed by one byte, or one byte more or less', () => {
    for (let at = 0; at < body.length; at += 17) {
      const tampered = Buffer.from(body);
      tampered[at] = tampered[at]! ^ 0x01;
      expect(verify({ rawBody: tampered, signature: sign(signingSecret, t, body) })).toEqual({ ok: false, reason: 'mismatch' });
    }
    expect(verify({ rawBody: Buffer.concat([body, Buffer.from('&')]), signature: sign(signingSecret, t, body) })).toEqual({
      ok: false,
      reason: 'mismatch',
    });
    expect(verify({ rawBody: body.subarray(0, -1), signature: sign(signingSecret, t, body) })).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('refuses a signature made with another secret, or over another timestamp', () => {
    expect(verify({ signature: sign('another-signing-secret', t, body) })).toEqual({ ok: false, reason: 'mismatch' });
    expect(verify({ signingSecret: signingSecret.toUpperCase() })).toEqual({ ok: false, reason: 'mismatch' });
    // The secret is the text as given: its hex is not decoded into the key.
    expect(
      verify({ signature: `v0=${createHmac('sha256', Buffer.from(signingSecret, 'hex')).update(`v0:${t}:`).update(body).digest('hex')}` }),
    ).toEqual({ ok: false, reason: 'mismatch' });
    expect(verify({ timestamp: String(t + 1) })).toEqual({ ok: false, reason: 'mismatch' });
    // A signature of Hushlink's own webhook scheme over the same request.
    expect(verify({ signature: `v0=${createHmac('sha256', signingSecret).update(`${t}.`).update(body).digest('hex')}` })).toEqual({
      ok: false,
      reason: 'mismatch',
    });
  });

  it('refuses a request missing either header, or both, or with one empty', () => {
    const good = sign(signingSecret, t, body);
    expect(verify({ timestamp: undefined })).toEqual({ ok: false, reason: 'missing_headers' });
    expect(verify({ signature: undefined })).toEqual({ ok: false, reason: 'missing_headers' });
    expect(verify({ timestamp: undefined, signature: undefined })).toEqual({ ok: false, reason: 'missing_headers' });
    expect(verify({ timestamp: '', signature: good })).toEqual({ ok: false, reason: 'missing_headers' });
    expect(verify({ signature: '' })).toEqual({ ok: false, reason: 'missing_headers' });
  });

  it('refuses a malformed signature: another prefix or scheme, odd or non-hex digits, another length', () => {
    const hex = sign(signingSecret, t, body).slice(3);
    for (const signature of [
      hex, // no prefix
      `v1=${hex}`,
      `V0=${hex}`,
      `v0:${hex}`,
      `v0=${hex},v0=${hex}`,
      ` v0=${hex}`,
      `v0=${hex} `,
      `v0=${hex.slice(0, 63)}`, // odd
      `v0=${hex}0`, // odd
      `v0=${hex.slice(0, 62)}`, // 31 bytes
      `v0=${hex}00`, // 33 bytes
      `v0=${hex.slice(0, 40)}`, // a SHA-1's length
      `v0=${hex}${hex}`, // SHA-512's
      `v0=${hex.slice(0, 63)}g`,
      `v0=${Buffer.from(hex, 'hex').toString('base64')}`,
      'v0=',
    ]) {
      expect(verify({ signature }), signature).toEqual({ ok: false, reason: 'malformed' });
    }
  });

  it('refuses a timestamp that is not whole seconds as malformed, even when it was signed as sent', () => {
    for (const timestamp of [
      `${t}.0`,
      `${t}.5`,
      `+${t}`,
      `-${t}`,
      `0${t}`,
      ` ${t}`,
      `${t} `,
      `${t}e0`,
      '1.767225600e9',
      `0x${t.toString(16)}`,
      'NaN',
      'Infinity',
      `${t * 1000}`.padEnd(30, '0'),
      `${t}abc`,
      '٣٤٥',
    ]) {
      expect(verify({ timestamp, signature: sign(signingSecret, timestamp, body) }), timestamp).toEqual({ ok: false, reason: 'malformed' });
    }
    // Milliseconds are whole, but 1,000 times too far in the future.
    const ms = String(now);
    expect(verify({ timestamp: ms, signature: sign(signingSecret, ms, body) })).toEqual({ ok: false, reason: 'stale' });
  });

  it('signs body bytes that are not UTF-8 as they are, never as decoded text', () => {
    const bytes = Buffer.concat([
      Buffer.from('text=', 'utf8'),
      Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0x80, 0x00]),
      Buffer.from('&team_id=T0001', 'utf8'),
    ]);
    expect(bytes.equals(Buffer.from(bytes.toString('utf8'), 'utf8'))).toBe(false);
    expect(verify({ rawBody: bytes, signature: sign(signingSecret, t, bytes) })).toEqual({ ok: true, timestamp: t });
    // A signature over the bytes a UTF-8 decode and encode would leave (U+FFFD for each bad byte).
    const reencoded = Buffer.from(bytes.toString('utf8'), 'utf8');
    expect(verify({ rawBody: bytes, signature: sign(signingSecret, t, reencoded) })).toEqual({ ok: false, reason: 'mismatch' });
    expect(verify({ rawBody: reencoded, signature: sign(signingSecret, t, bytes) })).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('accepts an empty body signed as such', () => {
    const empty = Buffer.alloc(0);
    expect(verify({ rawBody: empty, signature: sign(signingSecret, t, empty) }).ok).toBe(true);
    expect(verify({ rawBody: empty })).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('throws for the caller’s mistakes, never for what a sender controls', () => {
    expect(() => verify({ signingSecret: '' })).toThrow(TypeError);
    // Even an empty secret's right signature is not taken.
    expect(() => verify({ signingSecret: '', signature: sign('', t, body) })).toThrow(TypeError);
    expect(() => verify({ now: Number.NaN })).toThrow(TypeError);
  });
});
