import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { nodeChunkCipher } from '../../cli/transfer/nodeChunkCipher.ts';
import {
  type ChunkCipherFactory,
  EnvelopeError,
  fileOpener,
  filePrefixBytes,
  fileSealer,
  fromBase64Url,
  iterationRange,
  open,
  seal,
} from '../../shared/envelope/index.ts';
import { plaintextOf, vectors } from '../support/vectors.ts';

// The CLI seals and opens chunks with node:crypto (ADR 0184), the web client with WebCrypto: the
// envelope is one format, so the two must give the same bytes, chunk by chunk, and open each other's.

const ciphers: Array<[string, ChunkCipherFactory | undefined]> = [
  ['WebCrypto', undefined],
  ['node:crypto', nodeChunkCipher],
];

interface Case {
  plaintext: Uint8Array;
  chunkLog2: number;
  key: Uint8Array;
  salt: Uint8Array;
  passphrase?: string;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** The envelope chunk by chunk with `chunkCipher`: its prefix, and each chunk whole and as pieces. */
async function sealWith(chunkCipher: ChunkCipherFactory | undefined, input: Case) {
  const sealer = await fileSealer({
    meta: { name: 'a.bin', type: 'application/octet-stream', size: input.plaintext.length },
    chunkLog2: input.chunkLog2,
    urlKey: input.key,
    salt: input.salt,
    passphrase: input.passphrase,
    iterations: iterationRange.min,
    chunkCipher,
  });
  const count = sealer.chunkCount(input.plaintext.length);
  const chunks: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const plaintext = input.plaintext.subarray(i * sealer.chunkBytes, (i + 1) * sealer.chunkBytes);
    const whole = Buffer.from(await sealer.encryptChunk(i, i === count - 1, plaintext));
    const pieces = await sealer.encryptChunkPieces(i, i === count - 1, plaintext);
    expect(Buffer.concat(pieces).equals(whole)).toBe(true);
    chunks.push(whole);
  }
  return { sealer, chunks, envelope: Buffer.concat([sealer.prefix, ...chunks]) };
}

async function openWith(chunkCipher: ChunkCipherFactory | undefined, envelope: Uint8Array, input: Case, key: string, salt: string) {
  const opener = await fileOpener(envelope.subarray(0, filePrefixBytes), { key, salt, passphrase: input.passphrase }, { chunkCipher });
  const count = opener.chunkCount(envelope.length);
  const out: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const start = opener.bodyOffset + i * opener.chunkCipherBytes;
    out.push(await opener.decryptChunk(i, i === count - 1, envelope.subarray(start, start + opener.chunkCipherBytes)));
  }
  return { opener, plaintext: Buffer.concat(out) };
}

describe('the node:crypto chunk cipher', () => {
  for (const name of ['file-three-chunks', 'file-exact-chunk']) {
    it(`seals the committed vector ${name} to its bytes`, async () => {
      const vector = vectors.find((candidate) => candidate.name === name)!;
      const input = {
        plaintext: plaintextOf(vector),
        chunkLog2: vector.chunk_log2,
        key: fromBase64Url(vector.key),
        salt: fromBase64Url(vector.salt),
      };
      const sealer = await fileSealer({
        meta: vector.meta!,
        chunkLog2: input.chunkLog2,
        urlKey: input.key,
        salt: input.salt,
        chunkCipher: nodeChunkCipher,
      });
      const count = sealer.chunkCount(input.plaintext.length);
      const chunks: Uint8Array[] = [];
      for (let i = 0; i < count; i++)
        chunks.push(
          await sealer.encryptChunk(i, i === count - 1, input.plaintext.subarray(i * sealer.chunkBytes, (i + 1) * sealer.chunkBytes)),
        );
      const envelope = Buffer.concat([sealer.prefix, ...chunks]);
      expect(envelope.length).toBe(vector.envelope_length);
      expect(sha256(envelope)).toBe(vector.envelope_sha256);
    });
  }

  // 2^16 and 2^20 chunks; an empty file (one empty final chunk), a short final chunk, a full one.
  const sizes = (chunkLog2: number) => [0, 1, 2 ** chunkLog2, 3 * 2 ** chunkLog2 + 17];
  for (const chunkLog2 of [16, 20]) {
    for (const size of sizes(chunkLog2)) {
      it(`gives WebCrypto's bytes for every chunk, and each opens the other's (2^${chunkLog2} chunks, ${size} bytes)`, async () => {
        const input: Case = { plaintext: randomBytes(size), chunkLog2, key: randomBytes(32), salt: randomBytes(16) };
        const [web, node] = await Promise.all(ciphers.map(([, cipher]) => sealWith(cipher, input)));
        expect(node!.chunks.length).toBe(web!.chunks.length);
        for (const [i, chunk] of node!.chunks.entries()) expect(chunk.equals(web!.chunks[i]!), `chunk ${i}`).toBe(true);
        expect(node!.envelope.equals(web!.envelope)).toBe(true);
        const whole = await seal({
          kind: 'file',
          plaintext: input.plaintext,
          meta: { name: 'a.bin', type: 'application/octet-stream', size },
          chunkLog2,
          urlKey: input.key,
          salt: input.salt,
        });
        expect(Buffer.from(whole.envelope).equals(node!.envelope)).toBe(true);
        for (const [, cipher] of ciphers) {
          const opened = await openWith(cipher, node!.envelope, input, node!.sealer.key, node!.sealer.salt);
          expect(opened.plaintext.equals(input.plaintext)).toBe(true);
        }
        const oneShot = await open(node!.envelope, { key: node!.sealer.key, salt: node!.sealer.salt });
        expect(Buffer.from(oneShot.plaintext).equals(input.plaintext)).toBe(true);
      });
    }
  }

  it('gives the same bytes behind a passphrase', async () => {
    const input: Case = {
      plaintext: randomBytes(2 ** 16 + 3),
      chunkLog2: 16,
      key: randomBytes(32),
      salt: randomBytes(16),
      passphrase: 'correct horse',
    };
    const [web, node] = await Promise.all(ciphers.map(([, cipher]) => sealWith(cipher, input)));
    expect(node!.envelope.equals(web!.envelope)).toBe(true);
    const opened = await openWith(nodeChunkCipher, web!.envelope, input, web!.sealer.key, web!.sealer.salt);
    expect(opened.plaintext.equals(input.plaintext)).toBe(true);
  });

  it('refuses what WebCrypto refuses, as tampered', async () => {
    const input: Case = { plaintext: randomBytes(2 ** 16 * 2 + 5), chunkLog2: 16, key: randomBytes(32), salt: randomBytes(16) };
    const { sealer, envelope } = await sealWith(nodeChunkCipher, input);
    for (const [name, cipher] of ciphers) {
      const opener = await fileOpener(envelope, { key: sealer.key, salt: sealer.salt }, { chunkCipher: cipher });
      const chunk = (i: number) =>
        envelope.subarray(opener.bodyOffset + i * opener.chunkCipherBytes, opener.bodyOffset + (i + 1) * opener.chunkCipherBytes);
      const flipped = Buffer.from(chunk(0));
      flipped[7]! ^= 1;
      const tagFlipped = Buffer.from(chunk(0));
      tagFlipped[tagFlipped.length - 1]! ^= 1;
      for (const [what, attempt] of [
        ['a flipped bit', () => opener.decryptChunk(0, false, flipped)],
        ['a flipped tag', () => opener.decryptChunk(0, false, tagFlipped)],
        ['a chunk at the wrong index', () => opener.decryptChunk(0, false, chunk(1))],
        ['a chunk taken as final', () => opener.decryptChunk(0, true, chunk(0))],
        ['a chunk shorter than its tag', () => opener.decryptChunk(2, true, chunk(2).subarray(0, 15))],
      ] as const) {
        const error = await attempt().then(
          () => null,
          (caught: unknown) => caught,
        );
        expect(error, `${name}: ${what}`).toBeInstanceOf(EnvelopeError);
        expect((error as EnvelopeError).code).toBe('tampered');
      }
    }
  });
});
