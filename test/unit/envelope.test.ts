import { describe, expect, it } from 'vitest';
import {
  claimTokenFor,
  claimVerifier,
  encodeHeader,
  EnvelopeError,
  fromBase64Url,
  open,
  openText,
  parseHeader,
  seal,
  sealText,
} from '../../shared/envelope/index.ts';

const errorOf = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the envelope to be refused');
    },
    (error: unknown) => {
      expect(error).toBeInstanceOf(EnvelopeError);
      return (error as EnvelopeError).code;
    },
  );

describe('envelope v1', () => {
  it('round-trips text with a fresh 32-byte key and 16-byte salt each time', async () => {
    const first = await sealText('the launch codes');
    const second = await sealText('the launch codes');
    expect(first.key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first.salt).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(first.key).not.toBe(second.key);
    expect(Buffer.from(first.envelope).equals(Buffer.from(second.envelope))).toBe(false);
    expect(await openText(first.envelope, { key: first.key, salt: first.salt })).toBe('the launch codes');
  });

  it('round-trips text spanning several chunks', async () => {
    const text = 'x'.repeat(3 * 65536 + 7);
    const sealed = await sealText(text, { chunkLog2: 16 });
    expect(await openText(sealed.envelope, { key: sealed.key, salt: sealed.salt })).toBe(text);
  });

  it('tells wrong key, wrong passphrase, missing passphrase, tampering and version apart', async () => {
    const plain = await sealText('a');
    const otherKey = (await sealText('b')).key;
    expect(await errorOf(openText(plain.envelope, { key: otherKey, salt: plain.salt }))).toBe('wrong_key');
    expect(await errorOf(openText(plain.envelope, { key: plain.key.slice(0, 40), salt: plain.salt }))).toBe('wrong_key');

    const guarded = await sealText('b', { passphrase: 'hunter2' });
    expect(await errorOf(openText(guarded.envelope, { key: guarded.key, salt: guarded.salt, passphrase: 'hunter3' }))).toBe(
      'wrong_passphrase',
    );
    expect(await errorOf(openText(guarded.envelope, { key: guarded.key, salt: guarded.salt }))).toBe('passphrase_required');

    const tampered = plain.envelope.slice();
    tampered[tampered.length - 1]! ^= 1;
    expect(await errorOf(openText(tampered, { key: plain.key, salt: plain.salt }))).toBe('tampered');

    const future = plain.envelope.slice();
    future[4] = 2;
    expect(await errorOf(openText(future, { key: plain.key, salt: plain.salt }))).toBe('unsupported_version');
    expect(await errorOf(openText(plain.envelope, { key: plain.key, salt: guarded.salt }))).toBe('salt_mismatch');
  });

  it('treats the passphrase in NFC, so composed and decomposed accents agree', async () => {
    const sealed = await sealText('é', { passphrase: 'caf\u00e9' });
    expect(await openText(sealed.envelope, { key: sealed.key, salt: sealed.salt, passphrase: 'cafe\u0301' })).toBe('é');
  });

  it('derives the claim token before claiming from key, salt and passphrase', async () => {
    const sealed = await sealText('c', { passphrase: 'p' });
    expect(await claimTokenFor({ key: sealed.key, salt: sealed.salt, passphrase: 'p', iterations: 600_000 })).toBe(sealed.claimToken);
    expect(await claimTokenFor({ key: sealed.key, salt: sealed.salt, passphrase: 'q', iterations: 600_000 })).not.toBe(sealed.claimToken);
    expect(await claimVerifier(sealed.claimToken)).toBe(sealed.claimVerifier);
    const plain = await sealText('d');
    expect(await claimTokenFor({ key: plain.key, salt: plain.salt, iterations: 0 })).toBe(plain.claimToken);
  });

  it('checks iteration bounds before running the KDF', () => {
    const salt = fromBase64Url('oKGio6SlpqeoqaqrrK2urw');
    for (const iterations of [1000, 599_999, 5_000_001]) {
      const header = encodeHeader({ kind: 'text', passphrase: true, serverEncrypted: false, chunkLog2: 20, iterations, salt });
      const withMac = new Uint8Array(header.length + 32);
      withMac.set(header);
      expect(() => parseHeader(withMac)).toThrowError(expect.objectContaining({ code: 'malformed' }));
    }
  });

  it('carries a file name, type and size inside the ciphertext', async () => {
    const meta = { name: 'keys.txt', type: 'text/plain', size: 3 };
    const sealed = await seal({ kind: 'file', plaintext: new Uint8Array([1, 2, 3]), meta, chunkLog2: 16 });
    expect(Buffer.from(sealed.envelope).includes(Buffer.from('keys.txt'))).toBe(false);
    const opened = await open(sealed.envelope, { key: sealed.key, salt: sealed.salt });
    expect(opened.meta).toEqual(meta);
    expect(await errorOf(openText(sealed.envelope, { key: sealed.key, salt: sealed.salt }))).toBe('malformed');
  });
});
