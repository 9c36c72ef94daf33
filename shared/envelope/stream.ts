import { concatBytes, randomBytes, toBase64Url } from './bytes.ts';
import { EnvelopeError } from './errors.ts';
import { chunkLog2Range, iterationRange, KEY_BYTES, parseHeader, SALT_BYTES, TAG_BYTES } from './format.ts';
import type { ChunkCipher, ChunkCipherFactory } from './chunkCipher.ts';
import { claimVerifier, deriveKeys, type EnvelopeKeys } from './keys.ts';
import {
  aadOf,
  chunkTampered,
  chunkTooShort,
  decryptChunk,
  encryptChunk,
  keysFor,
  linkPair,
  openMeta,
  sealHeader,
  sealMeta,
  type FileMeta,
  type OpenInput,
  type Sealed,
} from './envelope.ts';

// Re-exported so that index.ts's `export *` of this file carries them.
export type { ChunkCipher, ChunkCipherFactory } from './chunkCipher.ts';

/**
 * Files of any size, chunk by chunk (docs/envelope.md, "Multipart uploads"): the envelope is
 * the same bytes `seal` makes at once, but neither side ever holds more than the chunks it is
 * working on. A file's envelope is `prefix` (header and encrypted meta block) followed by the
 * chunks, each `2^chunk_log2` plaintext bytes (the last shorter) plus a 16-byte tag, at
 * `prefix.length + index * chunkCipherBytes`.
 */
export interface FileSealer extends Omit<Sealed, 'envelope'> {
  /** The header and the encrypted meta block: the envelope's first bytes. */
  prefix: Uint8Array;
  chunkLog2: number;
  /** Plaintext bytes of every chunk but the last. */
  chunkBytes: number;
  /** How many chunks `size` plaintext bytes make (an empty file is one empty final chunk). */
  chunkCount(size: number): number;
  /** The whole envelope's length for `size` plaintext bytes: what the upload declares. */
  envelopeSize(size: number): number;
  encryptChunk(index: number, final: boolean, plaintext: Uint8Array): Promise<Uint8Array>;
  /** The same bytes in pieces, to be used in turn (ChunkCipher.encrypt): no copy joins them. */
  encryptChunkPieces(index: number, final: boolean, plaintext: Uint8Array): Promise<Uint8Array[]>;
}

export interface FileSealInput {
  meta: FileMeta;
  passphrase?: string | undefined;
  iterations?: number;
  chunkLog2?: number;
  /** Only for vectors and resumed uploads: a given key and salt. Otherwise fresh random ones. */
  urlKey?: Uint8Array;
  salt?: Uint8Array;
  /** The chunks' AES-256-GCM, when not WebCrypto's (chunkCipher.ts): the same bytes either way. */
  chunkCipher?: ChunkCipherFactory | undefined;
}

/** Options of `fileOpener`. */
export interface FileOpenOptions {
  /** As FileSealInput's. */
  chunkCipher?: ChunkCipherFactory | undefined;
}

/** The chunks' cipher: the given one with the payload key's bytes, else WebCrypto's through envelope.ts. */
function cipherFor(factory: ChunkCipherFactory | undefined, keys: EnvelopeKeys, header: Uint8Array): ChunkCipher {
  if (!factory)
    return {
      encrypt: async (index, final, plaintext) => [await encryptChunk(keys, header, index, final, plaintext)],
      decrypt: (index, final, ciphertext) => decryptChunk(keys, header, index, final, ciphertext),
    };
  // A copy: `header` may be a view of a buffer its caller reuses, and the factory keeps the AAD.
  const cipher = factory(keys.payloadBytes, aadOf(header).slice());
  return {
    encrypt: (index, final, plaintext) => cipher.encrypt(index, final, plaintext),
    async decrypt(index, final, ciphertext) {
      if (ciphertext.length < TAG_BYTES) throw chunkTooShort(index);
      try {
        return await cipher.decrypt(index, final, ciphertext);
      } catch {
        throw chunkTampered(index, final);
      }
    },
  };
}

const countOf = (size: number, chunkBytes: number) => Math.max(1, Math.ceil(size / chunkBytes));

export async function fileSealer(input: FileSealInput): Promise<FileSealer> {
  const urlKey = input.urlKey ?? randomBytes(KEY_BYTES);
  const salt = input.salt ?? randomBytes(SALT_BYTES);
  const passphrase = input.passphrase === undefined || input.passphrase === '' ? undefined : input.passphrase;
  const iterations = passphrase === undefined ? 0 : (input.iterations ?? iterationRange.default);
  const chunkLog2 = input.chunkLog2 ?? chunkLog2Range.default;
  const keys = await deriveKeys({ urlKey, salt, passphrase, iterations });
  const header = await sealHeader(keys, {
    kind: 'file',
    passphrase: passphrase !== undefined,
    serverEncrypted: false,
    chunkLog2,
    iterations,
    salt,
  });
  const prefix = concatBytes(header, await sealMeta(keys, header, input.meta));
  const chunkBytes = 2 ** chunkLog2;
  const cipher = cipherFor(input.chunkCipher, keys, header);
  return {
    key: toBase64Url(urlKey),
    salt: toBase64Url(salt),
    claimToken: keys.claimToken,
    claimVerifier: await claimVerifier(keys.claimToken),
    ...(await linkPair(urlKey, salt)),
    prefix,
    chunkLog2,
    chunkBytes,
    chunkCount: (size) => countOf(size, chunkBytes),
    envelopeSize: (size) => prefix.length + size + countOf(size, chunkBytes) * TAG_BYTES,
    encryptChunk: async (index, final, plaintext) => {
      const pieces = await cipher.encrypt(index, final, plaintext);
      return pieces.length === 1 ? pieces[0]! : concatBytes(...pieces);
    },
    encryptChunkPieces: cipher.encrypt,
  };
}

/** A file's envelope being opened chunk by chunk, from its first bytes. */
export interface FileOpener {
  meta: FileMeta;
  /** Where the first chunk starts. */
  bodyOffset: number;
  chunkLog2: number;
  /** Ciphertext bytes of every chunk but the last. */
  chunkCipherBytes: number;
  /** How many chunks an envelope of `envelopeSize` bytes has; a body that cannot be whole chunks is tampered. */
  chunkCount(envelopeSize: number): number;
  /** Decrypts chunk `index` (the one ending the file when `final`); a failure is `tampered`. */
  decryptChunk(index: number, final: boolean, ciphertext: Uint8Array): Promise<Uint8Array>;
}

/** How many leading bytes `fileOpener` needs at most (header with any stanza, meta block). */
export const filePrefixBytes = 64 * 1024;

/**
 * Opens a file envelope from its first bytes (at least the header and the meta block: a
 * ranged read of `filePrefixBytes`, or all of a smaller envelope): checks the header MAC (a
 * wrong key or passphrase fails here, before anything else) and decrypts the name, type and
 * size.
 */
export async function fileOpener(first: Uint8Array, input: OpenInput, options: FileOpenOptions = {}): Promise<FileOpener> {
  const header = parseHeader(first);
  if (header.kind !== 'file') throw new EnvelopeError('malformed', 'not a file envelope');
  const keys: EnvelopeKeys = await keysFor(header, input);
  const headerBytes = first.subarray(0, header.length);
  if (first.length < header.length + 4) throw new EnvelopeError('tampered', 'no meta block');
  const metaLength = new DataView(first.buffer, first.byteOffset + header.length, 4).getUint32(0);
  if (first.length < header.length + 4 + metaLength) throw new EnvelopeError('tampered', 'meta block cut short');
  const meta = await openMeta(keys, headerBytes, first.subarray(header.length + 4, header.length + 4 + metaLength));
  const bodyOffset = header.length + 4 + metaLength;
  const chunkCipherBytes = 2 ** header.chunkLog2 + TAG_BYTES;
  const cipher = cipherFor(options.chunkCipher, keys, headerBytes);
  return {
    meta,
    bodyOffset,
    chunkLog2: header.chunkLog2,
    chunkCipherBytes,
    chunkCount(envelopeSize) {
      const body = envelopeSize - bodyOffset;
      const count = Math.max(1, Math.ceil(body / chunkCipherBytes));
      const last = body - (count - 1) * chunkCipherBytes;
      if (body < TAG_BYTES || last < TAG_BYTES) throw new EnvelopeError('tampered', 'the body is not whole chunks');
      return count;
    },
    decryptChunk: cipher.decrypt,
  };
}
