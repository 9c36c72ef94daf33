import { createHmac } from 'node:crypto';
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { newSigningSecret, signatureHeaderName, webhookSignature } from '../../shared/webhooks/signature.ts';
import { assertWebhook, verifyWebhook, WebhookVerificationError, webhookSignatureHeader } from '../../shared/webhooks/verify.ts';

const verifyPath = fileURLToPath(new URL('../../shared/webhooks/verify.ts', import.meta.url));

// A fixed secret of the real shape: `whsec_` + 43 base64url characters (32 bytes).
const secret = `whsec_${Buffer.alloc(32, 7).toString('base64url')}`;
const t = 1_767_225_600; // 2026-01-01T00:00:00Z
const now = t * 1000;
const body = '{"id":"evt_01","type":"secret.viewed","occurred_at":"2026-01-01T00:00:00.000Z","secret_id":"s_01","views_left":0}';

/** The v1 value computed here, independently of signature.ts. */
const hmacHex = (key: string, ts: number | string, payload: string | Buffer) =>
  createHmac('sha256', Buffer.from(key, 'utf8'))
    .update(Buffer.concat([Buffer.from(`${ts}.`, 'utf8'), typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload]))
    .digest('hex');

const v1 = hmacHex(secret, t, body);

const verify = (header: string | string[] | undefined | null, overrides: Partial<Parameters<typeof verifyWebhook>[0]> = {}) =>
  verifyWebhook({ rawBody: body, header, secret, now, ...overrides });

describe('webhookSignature', () => {
  it('is named service-signature on both sides', () => {
    expect(signatureHeaderName).toBe('service-signature');
    expect(webhookSignatureHeader).toBe(signatureHeaderName);
  });

  it('matches an HMAC-SHA-256 over `<t>.<body>` keyed with the whole secret string', () => {
    expect(v1).toMatch(/^[0-9a-f]{64}$/);
    expect(webhookSignature(secret, t, body)).toBe(`t=${t},v1=${v1}`);
  });

  it('matches a fixed vector (guards against both sides drifting together)', () => {
    const fixed = webhookSignature('whsec_test', 1_700_000_000, '{"a":1}');
    expect(fixed).toBe(`t=1700000000,v1=${hmacHex('whsec_test', 1_700_000_000, '{"a":1}')}`);
    // The key is the secret's text, not its decoded base64url part.
    const decodedKey = createHmac('sha256', Buffer.from(secret.slice(6), 'base64url'))
      .update(`${t}.${body}`)
      .digest('hex');
    expect(webhookSignature(secret, t, body)).not.toContain(decodedKey);
  });

  it('signs the UTF-8 bytes of a non-ASCII body', () => {
    const text = '{"note":"héllo – 秘密 🔐"}';
    expect(Buffer.byteLength(text)).toBeGreaterThan(text.length);
    expect(webhookSignature(secret, t, text)).toBe(`t=${t},v1=${hmacHex(secret, t, Buffer.from(text, 'utf8'))}`);
  });

  it('refuses a timestamp that is not positive whole seconds, and an empty secret', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, Date.now() * 1000 * 10_000]) {
      expect(() => webhookSignature(secret, bad, body)).toThrow(RangeError);
    }
    expect(() => webhookSignature('', t, body)).toThrow(TypeError);
  });
});

describe('newSigningSecret', () => {
  it('is whsec_ + 43 base64url characters of 32 random bytes, different each time', () => {
    const a = newSigningSecret();
    const b = newSigningSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a.slice(6), 'base64url')).toHaveLength(32);
    expect(a).not.toBe(b);
  });

  it('signs and verifies', () => {
    const fresh = newSigningSecret();
    const header = webhookSignature(fresh, t, body);
    expect(verify(header, { secret: fresh })).toEqual({ ok: true, timestamp: t });
    expect(verify(header)).toEqual({ ok: false, reason: 'signature_mismatch' });
  });
});

describe('verifyWebhook', () => {
  it('accepts what webhookSignature produced (round trip)', () => {
    expect(verify(webhookSignature(secret, t, body))).toEqual({ ok: true, timestamp: t });
    expect(verify(`t=${t},v1=${v1}`)).toEqual({ ok: true, timestamp: t });
  });

  it('uses Date.now() when no clock is given', () => {
    const ts = Math.floor(Date.now() / 1000);
    const header = webhookSignature(secret, ts, body);
    expect(verifyWebhook({ rawBody: body, header, secret })).toEqual({ ok: true, timestamp: ts });
    expect(verifyWebhook({ rawBody: body, header: webhookSignature(secret, t, body), secret })).toEqual({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
  });

  it('refuses a tampered body', () => {
    const header = webhookSignature(secret, t, body);
    expect(verify(header, { rawBody: body.replace('"views_left":0', '"views_left":1') })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
    expect(verify(header, { rawBody: `${body}\n` })).toEqual({ ok: false, reason: 'signature_mismatch' });
    // Same JSON value, different bytes: verification is over bytes, not over parsed JSON.
    expect(verify(header, { rawBody: JSON.stringify(JSON.parse(body), null, 1) })).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  it('refuses a tampered timestamp, even within the tolerance', () => {
    expect(verify(`t=${t + 1},v1=${v1}`)).toEqual({ ok: false, reason: 'signature_mismatch' });
    expect(verify(`t=${t - 60},v1=${v1}`)).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  it('refuses the wrong secret', () => {
    expect(verify(webhookSignature(secret, t, body), { secret: `${secret}x` })).toEqual({ ok: false, reason: 'signature_mismatch' });
    expect(verify(webhookSignature(newSigningSecret(), t, body))).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  describe('the 300 s tolerance', () => {
    const at = (ts: number) => verify(webhookSignature(secret, ts, body));

    it('accepts exactly 300 s in the past and in the future', () => {
      expect(at(t - 300)).toEqual({ ok: true, timestamp: t - 300 });
      expect(at(t + 300)).toEqual({ ok: true, timestamp: t + 300 });
    });

    it('refuses 301 s in the past and in the future', () => {
      expect(at(t - 301)).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
      expect(at(t + 301)).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
    });

    it('compares whole seconds: a clock 999 ms into second t+300 still accepts t', () => {
      expect(verify(webhookSignature(secret, t, body), { now: (t + 300) * 1000 + 999 })).toEqual({ ok: true, timestamp: t });
      expect(verify(webhookSignature(secret, t, body), { now: (t + 301) * 1000 })).toEqual({
        ok: false,
        reason: 'timestamp_out_of_tolerance',
      });
    });

    it('checks the timestamp before the signature (a stale, forged header is out of tolerance)', () => {
      expect(verify(`t=${t - 301},v1=${'0'.repeat(64)}`)).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
    });

    it('takes another tolerance', () => {
      const header = webhookSignature(secret, t - 30, body);
      expect(verify(header, { toleranceSeconds: 30 })).toEqual({ ok: true, timestamp: t - 30 });
      expect(verify(header, { toleranceSeconds: 29 })).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
      expect(verify(webhookSignature(secret, t, body), { toleranceSeconds: 0 })).toEqual({ ok: true, timestamp: t });
    });
  });

  it('reports a missing header', () => {
    for (const header of [undefined, null, '', '  \t ', [] as string[]]) {
      expect(verify(header)).toEqual({ ok: false, reason: 'missing_header' });
    }
  });

  it('reads the first value of a header array', () => {
    const good = webhookSignature(secret, t, body);
    expect(verify([good])).toEqual({ ok: true, timestamp: t });
    expect(verify([good, 't=1,v1=00'])).toEqual({ ok: true, timestamp: t });
    expect(verify(['t=1,v1=00', good])).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
  });

  it.each([
    ['no t', `v1=${v1}`],
    ['no v1', `t=${t}`],
    ['only an unknown scheme', `t=${t},v0=${v1}`],
    ['empty t', `t=,v1=${v1}`],
    ['non-numeric t', `t=abc,v1=${v1}`],
    ['t with letters', `t=${t}s,v1=${v1}`],
    ['fractional t', `t=1.5,v1=${v1}`],
    ['fractional t near now', `t=${t}.0,v1=${v1}`],
    ['negative t', `t=-${t},v1=${v1}`],
    ['signed t', `t=+${t},v1=${v1}`],
    ['zero t', `t=0,v1=${v1}`],
    ['leading zero', `t=0${t},v1=${v1}`],
    ['exponent t', `t=1e9,v1=${v1}`],
    ['t beyond a safe integer', `t=${'9'.repeat(20)},v1=${v1}`],
    ['duplicated t', `t=${t},t=${t},v1=${v1}`],
    ['duplicated t, different values', `t=${t},v1=${v1},t=${t + 1}`],
    ['empty v1', `t=${t},v1=`],
    ['non-hex v1', `t=${t},v1=${v1.slice(0, -1)}g`],
    ['odd-length hex v1', `t=${t},v1=${v1.slice(1)}`],
    ['a malformed v1 next to a good one', `t=${t},v1=${v1},v1=xyz`],
    ['an entry without =', `t=${t},v1=${v1},garbage`],
    ['space before =', `t =${t},v1=${v1}`],
    ['space after =', `t= ${t},v1=${v1}`],
    ['space inside the value', `t=${t},v1=${v1.slice(0, 32)} ${v1.slice(32)}`],
    ['semicolons instead of commas', `t=${t};v1=${v1}`],
    ['upper-case keys', `T=${t},V1=${v1}`],
  ])('refuses a malformed header: %s', (_name, header) => {
    expect(verify(header)).toEqual({ ok: false, reason: 'malformed_header' });
  });

  it.each([
    ['reversed order', `v1=${v1},t=${t}`],
    ['space after commas', `t=${t}, v1=${v1}`],
    ['spaces and tabs around the header and commas', ` \tt=${t} ,\t v1=${v1}\t `],
    ['empty entries', `,t=${t},,v1=${v1},`],
    ['an unknown scheme, ignored', `t=${t},v0=not-even-hex,v1=${v1}`],
    ['a future scheme, ignored', `t=${t},v1=${v1},v2=${'ab'.repeat(32)}`],
    ['upper-case hex', `t=${t},v1=${v1.toUpperCase()}`],
  ])('tolerates %s', (_name, header) => {
    expect(verify(header)).toEqual({ ok: true, timestamp: t });
  });

  it('treats well-formed hex of the wrong length as a mismatch, without throwing', () => {
    expect(verify(`t=${t},v1=${v1.slice(0, 62)}`)).toEqual({ ok: false, reason: 'signature_mismatch' });
    expect(verify(`t=${t},v1=${v1}00`)).toEqual({ ok: false, reason: 'signature_mismatch' });
    expect(verify(`t=${t},v1=00`)).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  it('accepts any matching v1 among several (secret rotation)', () => {
    const other = hmacHex(newSigningSecret(), t, body);
    expect(verify(`t=${t},v1=${other},v1=${v1}`)).toEqual({ ok: true, timestamp: t });
    expect(verify(`t=${t},v1=${v1},v1=${other}`)).toEqual({ ok: true, timestamp: t });
    expect(verify(`t=${t},v1=${other},v1=${'0'.repeat(64)}`)).toEqual({ ok: false, reason: 'signature_mismatch' });
    // Rotation from the receiving side: the old and the new secret each verify their own v1.
    const next = newSigningSecret();
    const both = `t=${t},v1=${v1},v1=${hmacHex(next, t, body)}`;
    expect(verify(both, { secret })).toEqual({ ok: true, timestamp: t });
    expect(verify(both, { secret: next })).toEqual({ ok: true, timestamp: t });
  });

  it('gives the same answer for a string, a Buffer and a Uint8Array body', () => {
    const header = webhookSignature(secret, t, body);
    const buffer = Buffer.from(body, 'utf8');
    const plain = new Uint8Array(buffer);
    // A view into a larger buffer: only the viewed bytes count.
    const padded = new Uint8Array(buffer.length + 8);
    padded.set(buffer, 4);
    const view = padded.subarray(4, 4 + buffer.length);
    for (const rawBody of [body, buffer, plain, view]) {
      expect(verify(header, { rawBody })).toEqual({ ok: true, timestamp: t });
    }
    for (const rawBody of [body.slice(1), buffer.subarray(1), padded]) {
      expect(verify(header, { rawBody })).toEqual({ ok: false, reason: 'signature_mismatch' });
    }
  });

  it('verifies a non-ASCII UTF-8 body over its bytes', () => {
    const text = '{"id":"evt_02","note":"Grüße – 秘密 🔐"}';
    const bytes = Buffer.from(text, 'utf8');
    const header = `t=${t},v1=${hmacHex(secret, t, bytes)}`;
    expect(verify(header, { rawBody: text })).toEqual({ ok: true, timestamp: t });
    expect(verify(header, { rawBody: bytes })).toEqual({ ok: true, timestamp: t });
    // The same text in another encoding is other bytes.
    expect(verify(header, { rawBody: Buffer.from(text, 'latin1') })).toEqual({ ok: false, reason: 'signature_mismatch' });
    expect(verify(header, { rawBody: Buffer.from(text, 'utf16le') })).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  it('throws for caller mistakes, never for what a sender controls', () => {
    const header = webhookSignature(secret, t, body);
    expect(() => verify(header, { secret: '' })).toThrow(TypeError);
    expect(() => verify(header, { rawBody: JSON.parse(body) as string })).toThrow(/raw request body/);
    expect(() => verify(header, { toleranceSeconds: -1 })).toThrow(TypeError);
    expect(() => verify(header, { toleranceSeconds: Number.NaN })).toThrow(TypeError);
    expect(() => verify(header, { now: Number.NaN })).toThrow(TypeError);
    for (const hostile of [`t=1,v1=${'a'.repeat(100_000)}`, '=,=,=', 'v1=v1=v1', `t=${t},v1=${v1},v1`, '\u0000', 't=\u00b9,v1=00']) {
      expect(() => verify(hostile)).not.toThrow();
      expect(verify(hostile).ok).toBe(false);
    }
  });
});

describe('assertWebhook', () => {
  it('returns the timestamp of a genuine delivery', () => {
    expect(assertWebhook({ rawBody: body, header: webhookSignature(secret, t, body), secret, now })).toBe(t);
  });

  it('throws a WebhookVerificationError naming the reason', () => {
    const error = (() => {
      try {
        assertWebhook({ rawBody: `${body} `, header: webhookSignature(secret, t, body), secret, now });
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect(error).toMatchObject({ name: 'WebhookVerificationError', reason: 'signature_mismatch' });
    expect(() => assertWebhook({ rawBody: body, header: undefined, secret, now })).toThrow(/missing_header/);
  });
});

describe('verify.ts is self-contained', () => {
  it('imports nothing but node:crypto', async () => {
    // esbuild's metafile lists every import (static, dynamic, re-export, require); comments
    // and strings do not count.
    const result = await build({
      entryPoints: [verifyPath],
      bundle: true,
      write: false,
      metafile: true,
      platform: 'node',
      format: 'esm',
      external: ['*'],
      logLevel: 'silent',
    });
    const imports = Object.values(result.metafile.inputs).flatMap((input) => input.imports.map((entry) => entry.original ?? entry.path));
    expect(imports).toEqual(['node:crypto']);

    // And the same by reading the text, in case the bundler ever resolves something silently.
    const text = await readFile(verifyPath, 'utf8');
    const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
    const specifiers = [...code.matchAll(/\b(?:from|import|require)\s*\(?\s*['"]([^'"]+)['"]/g)].map((match) => match[1]);
    expect(specifiers).toEqual(['node:crypto']);
  });

  it('works as a lone copy outside the project', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hushlink-verify-'));
    try {
      const copy = join(dir, 'verify.ts');
      await copyFile(verifyPath, copy);
      const copied = (await import(pathToFileURL(copy).href)) as typeof import('../../shared/webhooks/verify.ts');
      expect(copied.verifyWebhook({ rawBody: body, header: webhookSignature(secret, t, body), secret, now })).toEqual({
        ok: true,
        timestamp: t,
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
