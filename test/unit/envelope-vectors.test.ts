import { createCipheriv, createHash, createHmac, hkdfSync, pbkdf2Sync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EnvelopeError, fromBase64, open } from '../../shared/envelope/index.ts';
import { mutate, negativeCases, plaintextOf, rebuild, vectors, type Vector } from '../support/vectors.ts';

/**
 * Envelope v1 written again from docs/envelope.md with node:crypto only: a second,
 * independent implementation. The WebCrypto one must produce the same bytes.
 */
function referenceEnvelope(vector: Vector): Buffer {
  const key = Buffer.from(vector.key, 'base64url');
  const salt = Buffer.from(vector.salt, 'base64url');
  const passphrase = vector.passphrase;
  const ikm = passphrase
    ? Buffer.concat([
        key,
        pbkdf2Sync(
          Buffer.from(passphrase.normalize('NFC')),
          Buffer.concat([Buffer.from('hushlink/v1/pw'), salt]),
          vector.iterations,
          32,
          'sha256',
        ),
      ])
    : key;
  const subkey = (label: string) => Buffer.from(hkdfSync('sha256', ikm, salt, `hushlink/v1/${label}`, 32));

  const header = Buffer.alloc(32);
  header.write('HLE1', 0, 'latin1');
  header[4] = 1;
  header[5] = vector.kind === 'text' ? 1 : 2;
  header[6] = passphrase ? 1 : 0;
  header[7] = 1;
  header[8] = vector.chunk_log2;
  header[9] = passphrase ? 1 : 0;
  header.writeUInt16BE(64, 10);
  header.writeUInt32BE(passphrase ? vector.iterations : 0, 12);
  salt.copy(header, 16);
  const mac = createHmac('sha256', subkey('header')).update(header).digest();

  const gcm = (aesKey: Buffer, nonce: Buffer, plaintext: Uint8Array) => {
    const cipher = createCipheriv('aes-256-gcm', aesKey, nonce);
    cipher.setAAD(header);
    return Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  };
  const parts = [header, mac];
  if (vector.meta) {
    const meta = gcm(subkey('meta'), Buffer.alloc(12), Buffer.from(JSON.stringify(vector.meta)));
    const length = Buffer.alloc(4);
    length.writeUInt32BE(meta.length);
    parts.push(length, meta);
  }
  const plaintext = plaintextOf(vector);
  const size = 2 ** vector.chunk_log2;
  const count = Math.max(1, Math.ceil(plaintext.length / size));
  for (let i = 0; i < count; i++) {
    const nonce = Buffer.alloc(12);
    nonce.writeBigUInt64BE(BigInt(i), 3);
    nonce[11] = i === count - 1 ? 1 : 0;
    parts.push(gcm(subkey('payload'), nonce, plaintext.subarray(i * size, (i + 1) * size)));
  }
  return Buffer.concat(parts);
}

const sha256Hex = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('envelope v1 known-answer vectors', () => {
  for (const vector of vectors) {
    describe(vector.name, () => {
      it('the reference implementation produces the committed bytes', () => {
        const reference = referenceEnvelope(vector);
        expect(reference.length).toBe(vector.envelope_length);
        expect(sha256Hex(reference)).toBe(vector.envelope_sha256);
        expect(reference.subarray(0, 64).toString('hex')).toBe(vector.header_hex);
        if ('envelope_base64' in vector) expect(reference.toString('base64')).toBe(vector.envelope_base64);
      });

      it('the WebCrypto implementation produces them too, and opens them', async () => {
        const envelope = await rebuild(vector);
        expect(sha256Hex(envelope)).toBe(vector.envelope_sha256);
        const opened = await open(envelope, { key: vector.key, salt: vector.salt, passphrase: vector.passphrase ?? undefined });
        expect(Buffer.from(opened.plaintext).equals(Buffer.from(plaintextOf(vector)))).toBe(true);
        expect(opened.meta ?? null).toEqual(vector.meta);
      });

      it('derives the committed claim token and verifier', () => {
        const key = Buffer.from(vector.key, 'base64url');
        const salt = Buffer.from(vector.salt, 'base64url');
        const ikm = vector.passphrase
          ? Buffer.concat([
              key,
              pbkdf2Sync(
                Buffer.from(vector.passphrase),
                Buffer.concat([Buffer.from('hushlink/v1/pw'), salt]),
                vector.iterations,
                32,
                'sha256',
              ),
            ])
          : key;
        const token = Buffer.from(hkdfSync('sha256', ikm, salt, 'hushlink/v1/claim', 32));
        expect(token.toString('base64url')).toBe(vector.claim_token);
        expect(createHash('sha256').update(token).digest('base64url')).toBe(vector.claim_verifier);
      });

      it('derives the committed link token and verifier from the link key alone', () => {
        const key = Buffer.from(vector.key, 'base64url');
        const salt = Buffer.from(vector.salt, 'base64url');
        const token = Buffer.from(hkdfSync('sha256', key, salt, 'hushlink/v1/link', 32));
        expect(token.toString('base64url')).toBe(vector.link_token);
        expect(createHash('sha256').update(token).digest('base64url')).toBe(vector.link_verifier);
      });
    });
  }

  // No committed vector has more than one 2^20 chunk (it would weigh megabytes): the same recipe,
  // scaled up, checked against the reference implementation above, file and text.
  for (const kind of ['file', 'text'] as const) {
    it(`the reference and the WebCrypto implementation agree on a ${kind} of three 2^20 chunks, and it opens`, async () => {
      const base = vectors.find((vector) => vector.name === 'file-three-chunks')!;
      const vector = {
        ...base,
        kind,
        chunk_log2: 20,
        meta: kind === 'file' ? { ...base.meta!, size: 2 * 2 ** 20 + 100 } : null,
        plaintext: { pattern: 'i mod 251', length: 2 * 2 ** 20 + 100 },
      } as Vector;
      const envelope = await rebuild(vector);
      expect(sha256Hex(envelope)).toBe(sha256Hex(referenceEnvelope(vector)));
      const opened = await open(envelope, { key: vector.key, salt: vector.salt });
      expect(Buffer.from(opened.plaintext).equals(Buffer.from(plaintextOf(vector)))).toBe(true);
      expect(opened.meta ?? null).toEqual(vector.meta);
    });
  }

  it('committed text envelopes decode from base64 to the committed hash', () => {
    for (const vector of vectors.filter((v) => 'envelope_base64' in v)) {
      expect(sha256Hex(fromBase64((vector as { envelope_base64: string }).envelope_base64))).toBe(vector.envelope_sha256);
    }
  });
});

describe('envelope v1 negative vectors', () => {
  const base = vectors.find((vector) => vector.name === 'file-three-chunks')!;
  for (const negative of negativeCases) {
    it(`${negative.name} fails with ${negative.error}`, async () => {
      const envelope = await rebuild(base);
      expect(sha256Hex(envelope)).toBe(base.envelope_sha256);
      const mutated = mutate(envelope, negative.mutation);
      const error = await open(mutated, { key: base.key, salt: base.salt }).then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(EnvelopeError);
      expect((error as EnvelopeError).code).toBe(negative.error);
    });
  }
});
