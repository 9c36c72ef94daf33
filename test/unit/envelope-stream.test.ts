import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EnvelopeError, fileOpener, fileSealer, filePrefixBytes, seal } from '../../shared/envelope/index.ts';

/** Seals `plaintext` chunk by chunk into one buffer, as an uploader streams it. */
async function sealStreamed(plaintext: Uint8Array, options: { chunkLog2: number; key: Uint8Array; salt: Uint8Array; passphrase?: string }) {
  const sealer = await fileSealer({
    meta: { name: 'a.bin', type: 'application/octet-stream', size: plaintext.length },
    chunkLog2: options.chunkLog2,
    urlKey: options.key,
    salt: options.salt,
    passphrase: options.passphrase,
    iterations: 600_000,
  });
  const parts = [sealer.prefix];
  const count = sealer.chunkCount(plaintext.length);
  for (let i = 0; i < count; i++)
    parts.push(await sealer.encryptChunk(i, i === count - 1, plaintext.subarray(i * sealer.chunkBytes, (i + 1) * sealer.chunkBytes)));
  const envelope = Buffer.concat(parts);
  expect(envelope.length).toBe(sealer.envelopeSize(plaintext.length));
  return { sealer, envelope };
}

/** Opens `envelope` chunk by chunk, as a downloader does with ranged reads. */
async function openStreamed(envelope: Uint8Array, key: string, salt: string, passphrase?: string) {
  const opener = await fileOpener(envelope.subarray(0, filePrefixBytes), { key, salt, passphrase });
  const count = opener.chunkCount(envelope.length);
  const out: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const start = opener.bodyOffset + i * opener.chunkCipherBytes;
    out.push(await opener.decryptChunk(i, i === count - 1, envelope.subarray(start, start + opener.chunkCipherBytes)));
  }
  return { meta: opener.meta, plaintext: Buffer.concat(out) };
}

describe('files chunk by chunk', () => {
  it.each([0, 1, 65_536, 65_536 * 3, 65_536 * 3 + 17])(
    'seals the same bytes seal() makes at once, and opens them (%i bytes)',
    async (size) => {
      const plaintext = randomBytes(size);
      const [key, salt] = [randomBytes(32), randomBytes(16)];
      const meta = { name: 'a.bin', type: 'application/octet-stream', size };
      const whole = await seal({ kind: 'file', plaintext, meta, chunkLog2: 16, urlKey: key, salt });
      const { sealer, envelope } = await sealStreamed(plaintext, { chunkLog2: 16, key, salt });
      expect(Buffer.compare(envelope, Buffer.from(whole.envelope))).toBe(0);
      expect(sealer.claimVerifier).toBe(whole.claimVerifier);
      const opened = await openStreamed(envelope, sealer.key, sealer.salt);
      expect(opened.meta).toEqual(meta);
      expect(opened.plaintext.equals(plaintext)).toBe(true);
    },
  );

  it('refuses a wrong key before any chunk, and a reordered or truncated body as tampered', async () => {
    const plaintext = randomBytes(65_536 * 2 + 5);
    const { sealer, envelope } = await sealStreamed(plaintext, { chunkLog2: 16, key: randomBytes(32), salt: randomBytes(16) });
    await expect(fileOpener(envelope, { key: Buffer.alloc(32).toString('base64url'), salt: sealer.salt })).rejects.toMatchObject({
      code: 'wrong_key',
    });
    const opener = await fileOpener(envelope, { key: sealer.key, salt: sealer.salt });
    const chunk = (i: number) =>
      envelope.subarray(opener.bodyOffset + i * opener.chunkCipherBytes, opener.bodyOffset + (i + 1) * opener.chunkCipherBytes);
    await expect(opener.decryptChunk(0, false, chunk(1))).rejects.toBeInstanceOf(EnvelopeError);
    await expect(opener.decryptChunk(1, true, chunk(1))).rejects.toMatchObject({ code: 'tampered' });
    expect(() => opener.chunkCount(opener.bodyOffset + 2 * opener.chunkCipherBytes + 3)).toThrow(EnvelopeError);
  });
});
