import { buf, concatBytes, fromBase64Url, fromUtf8, randomBytes, toBase64Url, utf8 } from './bytes.ts';
import { EnvelopeError } from './errors.ts';
import {
  chunkLog2Range,
  chunkNonce,
  chunkSpans,
  encodeHeader,
  iterationRange,
  KEY_BYTES,
  MAC_BYTES,
  parseHeader,
  SALT_BYTES,
  TAG_BYTES,
  type EnvelopeKind,
  type ParsedHeader,
} from './format.ts';
import { claimVerifier, deriveKeys, linkToken, type EnvelopeKeys } from './keys.ts';

export interface FileMeta {
  name: string;
  type: string;
  size: number;
}

export interface SealInput {
  kind: EnvelopeKind;
  plaintext: Uint8Array;
  /** Name, type and size of a file, encrypted inside the envelope. */
  meta?: FileMeta;
  passphrase?: string;
  iterations?: number;
  chunkLog2?: number;
  /** Set by curl mode, where the server encrypts. */
  serverEncrypted?: boolean;
  /**
   * A given key (a request link's prompt key, derived from the link: requestLink.ts), or fixed
   * key and salt for test vectors. Otherwise fresh random ones.
   */
  urlKey?: Uint8Array;
  salt?: Uint8Array;
}

export interface Sealed {
  envelope: Uint8Array;
  /** The link fragment: base64url of the 32-byte URL key. */
  key: string;
  /** The API's `salt` field. */
  salt: string;
  claimToken: string;
  claimVerifier: string;
  /** From the link key alone: proves the link was held (docs/envelope.md, "Link token"). */
  linkToken: string;
  linkVerifier: string;
}

export interface OpenInput {
  /** The link fragment (base64url) or the raw 32-byte key. */
  key: string | Uint8Array;
  /** The `salt` the API gave for this secret; the envelope must carry the same. */
  salt: string;
  passphrase?: string | undefined;
}

export interface Opened {
  kind: EnvelopeKind;
  plaintext: Uint8Array;
  meta?: FileMeta;
}

const subtle = () => globalThis.crypto.subtle;
const zeroNonce = new Uint8Array(12);

/**
 * Chunks kept in flight at once. WebCrypto runs each call off the main thread, so a few at a
 * time roughly double throughput (bench/envelope.ts); a few also bounds memory.
 */
const chunksInFlight = 4;

/** Runs `work(0 … count-1)` with at most `chunksInFlight` calls pending; the first failure wins. */
async function inFlight(count: number, work: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(chunksInFlight, count) }, async () => {
    while (next < count) await work(next++);
  });
  await Promise.all(lanes);
}

/**
 * Starts `work` now and hands back its promise, marked handled so that a rejection while the
 * caller awaits something else is not reported as unhandled; the caller still awaits it.
 */
function started<T>(work: Promise<T>): Promise<T> {
  work.catch(() => undefined);
  return work;
}

/** Decrypts `count` chunks into one preallocated plaintext of `length` bytes, each at its offset. */
async function decryptAll(count: number, length: number, work: (index: number, out: Uint8Array) => Promise<void>): Promise<Uint8Array> {
  const out = new Uint8Array(length);
  await inFlight(count, (index) => work(index, out));
  return out;
}

/** Builds an envelope: header (MAC'd), the file's meta block, then the chunks. */
export async function seal(input: SealInput): Promise<Sealed> {
  const urlKey = input.urlKey ?? randomBytes(KEY_BYTES);
  const salt = input.salt ?? randomBytes(SALT_BYTES);
  const passphrase = input.passphrase === undefined || input.passphrase === '' ? undefined : input.passphrase;
  const iterations = passphrase === undefined ? 0 : (input.iterations ?? iterationRange.default);
  const chunkLog2 = input.chunkLog2 ?? chunkLog2Range.default;
  if (input.kind === 'file' && !input.meta) throw new Error('a file envelope needs its meta');

  // The link pair needs only the link key and salt, the claim verifier only the keys: both run
  // while the chunks are encrypted, not after them.
  const links = started(linkPair(urlKey, salt));
  const keys = await deriveKeys({ urlKey, salt, passphrase, iterations });
  const verifier = started(claimVerifier(keys.claimToken));
  // The chunks' AAD is the header before its MAC, so they need not wait for the MAC: it is
  // written into the header's last 32 bytes while they are encrypted.
  const headerBody = encodeHeader({
    kind: input.kind,
    passphrase: passphrase !== undefined,
    serverEncrypted: input.serverEncrypted ?? false,
    chunkLog2,
    iterations,
    salt,
  });
  const header = new Uint8Array(headerBody.length + MAC_BYTES);
  header.set(headerBody, 0);
  const macDone = started(
    headerMac(keys, headerBody).then((mac) => {
      header.set(mac, headerBody.length);
    }),
  );
  const metaPlaintext = input.meta ? metaBytes(input.meta) : undefined;
  // u32 length, then the meta ciphertext and its tag: known before it is encrypted.
  const metaBlockBytes = metaPlaintext ? 4 + metaPlaintext.length + TAG_BYTES : 0;
  const plaintext = input.plaintext;
  const size = 2 ** chunkLog2;
  const count = Math.max(1, Math.ceil(plaintext.length / size));
  // One output buffer, each chunk written at its offset as it comes back: no second copy of
  // the whole envelope, and the meta block is encrypted alongside the chunks.
  const chunksAt = header.length + metaBlockBytes;
  const envelope = new Uint8Array(chunksAt + plaintext.length + count * TAG_BYTES);
  const metaDone = metaPlaintext
    ? started(
        encryptMeta(keys, header, metaPlaintext).then((ciphertext) => {
          new DataView(envelope.buffer, header.length, 4).setUint32(0, ciphertext.length);
          envelope.set(ciphertext, header.length + 4);
        }),
      )
    : undefined;
  await inFlight(count, async (index) => {
    const chunk = plaintext.subarray(index * size, (index + 1) * size);
    envelope.set(await encryptChunk(keys, header, index, index === count - 1, chunk), chunksAt + index * (size + TAG_BYTES));
  });
  await metaDone;
  await macDone;
  envelope.set(header, 0);
  return {
    envelope,
    key: toBase64Url(urlKey),
    salt: toBase64Url(salt),
    claimToken: keys.claimToken,
    claimVerifier: await verifier,
    ...(await links),
  };
}

export async function linkPair(urlKey: Uint8Array, salt: Uint8Array): Promise<Pick<Sealed, 'linkToken' | 'linkVerifier'>> {
  const token = await linkToken(urlKey, salt);
  return { linkToken: token, linkVerifier: await claimVerifier(token) };
}

/** Opens an envelope, checking the header MAC before decrypting anything. */
export async function open(envelope: Uint8Array, input: OpenInput): Promise<Opened> {
  const header = parseHeader(envelope);
  const keys = await keysFor(header, input);
  const body = envelope.subarray(header.length);
  const headerBytes = envelope.subarray(0, header.length);
  let offset = 0;
  let metaOpened: Promise<FileMeta> | undefined;
  if (header.kind === 'file') {
    if (body.length < 4) throw new EnvelopeError('tampered', 'no meta block');
    const metaLength = new DataView(body.buffer, body.byteOffset, 4).getUint32(0);
    if (body.length < 4 + metaLength) throw new EnvelopeError('tampered', 'meta block cut short');
    // Decrypted alongside the chunks; its failure is still the one reported first.
    metaOpened = started(openMeta(keys, headerBytes, body.subarray(4, 4 + metaLength)));
    offset = 4 + metaLength;
  }
  const chunks = body.subarray(offset);
  const spans = chunkSpans(chunks.length, header.chunkLog2);
  const size = 2 ** header.chunkLog2;
  const decrypted = started(
    spans.length === 1
      ? // One chunk: WebCrypto's own output is the plaintext, no copy into a second buffer.
        decryptChunk(keys, headerBytes, 0, true, chunks)
      : decryptAll(spans.length, chunks.length - spans.length * TAG_BYTES, async (index, out) => {
          const span = spans[index]!;
          out.set(await decryptChunk(keys, headerBytes, span.index, span.final, chunks.subarray(span.start, span.end)), index * size);
        }),
  );
  const meta = await metaOpened;
  const plaintext = await decrypted;
  return { kind: header.kind, plaintext, ...(meta ? { meta } : {}) };
}

export async function sealText(text: string, options: Omit<SealInput, 'kind' | 'plaintext' | 'meta'> = {}): Promise<Sealed> {
  return seal({ ...options, kind: 'text', plaintext: utf8.encode(text) });
}

export async function openText(envelope: Uint8Array, input: OpenInput): Promise<string> {
  const opened = await open(envelope, input);
  if (opened.kind !== 'text') throw new EnvelopeError('malformed', 'this envelope holds a file');
  try {
    return fromUtf8(opened.plaintext);
  } catch {
    throw new EnvelopeError('tampered', 'not UTF-8 text');
  }
}

/**
 * The claim token for a secret, from the link key, the salt and (when the secret has one) the
 * passphrase: what the reveal page presents before it has the envelope.
 */
export async function claimTokenFor(input: OpenInput & { iterations: number }): Promise<string> {
  const keys = await deriveKeys({
    urlKey: urlKeyOf(input.key),
    salt: fromBase64Url(input.salt),
    passphrase: input.passphrase,
    iterations: input.passphrase === undefined ? 0 : input.iterations,
  });
  return keys.claimToken;
}

/** The link token for a secret, from the link key and the salt: what a reader presents beside the claim token. */
export async function linkTokenFor(input: { key: string | Uint8Array; salt: string }): Promise<string> {
  return linkToken(urlKeyOf(input.key), fromBase64Url(input.salt));
}

export async function keysFor(header: ParsedHeader, input: OpenInput): Promise<EnvelopeKeys> {
  if (toBase64Url(header.salt) !== input.salt) throw new EnvelopeError('salt_mismatch');
  if (header.passphrase && (input.passphrase === undefined || input.passphrase === '')) {
    throw new EnvelopeError('passphrase_required');
  }
  const keys = await deriveKeys({
    urlKey: urlKeyOf(input.key),
    salt: header.salt,
    passphrase: header.passphrase ? input.passphrase : undefined,
    iterations: header.iterations,
  });
  const valid = await subtle().verify('HMAC', keys.header, buf(header.mac), buf(header.authenticated));
  // The MAC commits to the key: a wrong key or passphrase is told apart from damage to the body.
  if (!valid) throw new EnvelopeError(header.passphrase ? 'wrong_passphrase' : 'wrong_key');
  return keys;
}

function urlKeyOf(key: string | Uint8Array): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = typeof key === 'string' ? fromBase64Url(key) : key;
  } catch {
    throw new EnvelopeError('wrong_key', 'the key is not base64url');
  }
  if (bytes.length !== KEY_BYTES) throw new EnvelopeError('wrong_key', 'the key is not 32 bytes');
  return bytes;
}

/** The header bytes followed by their MAC. */
export async function sealHeader(keys: EnvelopeKeys, fields: Parameters<typeof encodeHeader>[0]): Promise<Uint8Array> {
  const body = encodeHeader(fields);
  return concatBytes(body, await headerMac(keys, body));
}

/** HMAC-SHA-256 of the header bytes before the MAC. */
async function headerMac(keys: EnvelopeKeys, body: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await subtle().sign('HMAC', keys.header, buf(body)));
}

/** AAD of chunks and meta: the whole header except its MAC. */
export const aadOf = (header: Uint8Array) => header.subarray(0, header.length - 32);

/** What a chunk that does not open is reported as, whichever cipher opened it. */
export const chunkTampered = (index: number, final: boolean) =>
  new EnvelopeError('tampered', `chunk ${index}${final ? ' (final)' : ''} does not authenticate`);
export const chunkTooShort = (index: number) => new EnvelopeError('tampered', `chunk ${index} is too short`);

export async function encryptChunk(
  keys: EnvelopeKeys,
  header: Uint8Array,
  index: number,
  final: boolean,
  plaintext: Uint8Array,
): Promise<Uint8Array> {
  const ciphertext = await subtle().encrypt(
    { name: 'AES-GCM', iv: buf(chunkNonce(index, final)), additionalData: buf(aadOf(header)) },
    keys.payload,
    buf(plaintext),
  );
  return new Uint8Array(ciphertext);
}

/** `header` is the whole header, MAC included, as for encryption. */
export async function decryptChunk(
  keys: EnvelopeKeys,
  header: Uint8Array,
  index: number,
  final: boolean,
  ciphertext: Uint8Array,
): Promise<Uint8Array> {
  if (ciphertext.length < TAG_BYTES) throw chunkTooShort(index);
  try {
    const plaintext = await subtle().decrypt(
      { name: 'AES-GCM', iv: buf(chunkNonce(index, final)), additionalData: buf(aadOf(header)) },
      keys.payload,
      buf(ciphertext),
    );
    return new Uint8Array(plaintext);
  } catch {
    throw chunkTampered(index, final);
  }
}

const metaBytes = (meta: FileMeta): Uint8Array => utf8.encode(JSON.stringify(meta));

/** The meta ciphertext and tag, without the length prefix. */
async function encryptMeta(keys: EnvelopeKeys, header: Uint8Array, plaintext: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(
    await subtle().encrypt({ name: 'AES-GCM', iv: zeroNonce, additionalData: buf(aadOf(header)) }, keys.meta, buf(plaintext)),
  );
}

export async function sealMeta(keys: EnvelopeKeys, header: Uint8Array, meta: FileMeta): Promise<Uint8Array> {
  const ciphertext = await encryptMeta(keys, header, metaBytes(meta));
  const block = new Uint8Array(4 + ciphertext.length);
  new DataView(block.buffer).setUint32(0, ciphertext.length);
  block.set(ciphertext, 4);
  return block;
}

export async function openMeta(keys: EnvelopeKeys, header: Uint8Array, ciphertext: Uint8Array): Promise<FileMeta> {
  try {
    const plaintext = await subtle().decrypt(
      { name: 'AES-GCM', iv: zeroNonce, additionalData: buf(aadOf(header)) },
      keys.meta,
      buf(ciphertext),
    );
    return JSON.parse(fromUtf8(new Uint8Array(plaintext))) as FileMeta;
  } catch {
    throw new EnvelopeError('tampered', 'the file details do not authenticate');
  }
}
