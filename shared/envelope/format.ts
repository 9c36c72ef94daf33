import { equalBytes } from './bytes.ts';
import { EnvelopeError } from './errors.ts';

/**
 * Envelope v1, byte by byte (docs/envelope.md). Parsing needs no key, so the server checks
 * the same rules the clients do before it stores anything.
 */
export const MAGIC = new Uint8Array([0x48, 0x4c, 0x45, 0x31]); // "HLE1"
export const VERSION = 1;
export const SUITE = 1; // HKDF-SHA-256 / AES-256-GCM / HMAC-SHA-256
export const FIXED_HEADER_BYTES = 32;
export const MAC_BYTES = 32;
export const TAG_BYTES = 16;
export const SALT_BYTES = 16;
export const KEY_BYTES = 32;

export const flags = { passphrase: 1, stanza: 2, serverEncrypted: 4 } as const;
const reservedFlags = 0xff & ~(flags.passphrase | flags.stanza | flags.serverEncrypted);

export const chunkLog2Range = { min: 16, max: 24, default: 20 } as const;
export const iterationRange = { min: 600_000, max: 5_000_000, default: 600_000 } as const;

export type EnvelopeKind = 'text' | 'file';
const kindCodes: Record<EnvelopeKind, number> = { text: 1, file: 2 };

export interface HeaderFields {
  kind: EnvelopeKind;
  passphrase: boolean;
  serverEncrypted: boolean;
  chunkLog2: number;
  /** PBKDF2 iterations; 0 without a passphrase. */
  iterations: number;
  salt: Uint8Array;
  /** Recipient stanza of request links (kem id, encapsulated key, wrapped key). */
  stanza?: Uint8Array;
}

export interface ParsedHeader extends HeaderFields {
  /** Header length including the MAC: where the body starts. */
  length: number;
  /** Every header byte before the MAC: what the MAC covers and the AAD of every chunk. */
  authenticated: Uint8Array;
  mac: Uint8Array;
}

/** The header without its MAC. */
export function encodeHeader(fields: HeaderFields): Uint8Array {
  const stanza = fields.stanza ?? new Uint8Array(0);
  const length = FIXED_HEADER_BYTES + stanza.length + MAC_BYTES;
  const out = new Uint8Array(length - MAC_BYTES);
  const view = new DataView(out.buffer);
  out.set(MAGIC, 0);
  out[4] = VERSION;
  out[5] = kindCodes[fields.kind];
  out[6] =
    (fields.passphrase ? flags.passphrase : 0) | (stanza.length ? flags.stanza : 0) | (fields.serverEncrypted ? flags.serverEncrypted : 0);
  out[7] = SUITE;
  out[8] = fields.chunkLog2;
  out[9] = fields.passphrase ? 1 : 0;
  view.setUint16(10, length);
  view.setUint32(12, fields.passphrase ? fields.iterations : 0);
  out.set(fields.salt, 16);
  out.set(stanza, FIXED_HEADER_BYTES);
  return out;
}

export const startsWithMagic = (bytes: Uint8Array): boolean => bytes.length >= MAGIC.length && equalBytes(bytes.subarray(0, 4), MAGIC);

/** Reads and checks the header: magic, version, reserved bits, suite, bounds, lengths. */
export function parseHeader(bytes: Uint8Array): ParsedHeader {
  if (!startsWithMagic(bytes)) throw new EnvelopeError('not_envelope');
  if (bytes.length < FIXED_HEADER_BYTES + MAC_BYTES) throw new EnvelopeError('malformed', 'shorter than a header');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes[4] !== VERSION) throw new EnvelopeError('unsupported_version', `version ${bytes[4]}`);
  const kind = bytes[5] === 1 ? 'text' : bytes[5] === 2 ? 'file' : null;
  if (!kind) throw new EnvelopeError('malformed', `kind ${bytes[5]}`);
  const flagByte = bytes[6]!;
  if (flagByte & reservedFlags) throw new EnvelopeError('malformed', 'reserved flag bits set');
  if (bytes[7] !== SUITE) throw new EnvelopeError('malformed', `suite ${bytes[7]}`);
  const chunkLog2 = bytes[8]!;
  if (chunkLog2 < chunkLog2Range.min || chunkLog2 > chunkLog2Range.max) throw new EnvelopeError('malformed', `chunk size 2^${chunkLog2}`);
  const passphrase = (flagByte & flags.passphrase) !== 0;
  const kdf = bytes[9]!;
  if (kdf !== (passphrase ? 1 : 0)) throw new EnvelopeError('malformed', `kdf ${kdf}`);
  const length = view.getUint16(10);
  const iterations = view.getUint32(12);
  if (passphrase ? iterations < iterationRange.min || iterations > iterationRange.max : iterations !== 0) {
    throw new EnvelopeError('malformed', `iterations ${iterations}`);
  }
  const hasStanza = (flagByte & flags.stanza) !== 0;
  const minimum = FIXED_HEADER_BYTES + MAC_BYTES + (hasStanza ? 1 : 0);
  if (length < minimum || (!hasStanza && length !== minimum) || length > bytes.length) {
    throw new EnvelopeError('malformed', `header length ${length}`);
  }
  return {
    kind,
    passphrase,
    serverEncrypted: (flagByte & flags.serverEncrypted) !== 0,
    chunkLog2,
    iterations,
    salt: bytes.slice(16, 32),
    ...(hasStanza ? { stanza: bytes.slice(FIXED_HEADER_BYTES, length - MAC_BYTES) } : {}),
    length,
    authenticated: bytes.subarray(0, length - MAC_BYTES),
    mac: bytes.subarray(length - MAC_BYTES, length),
  };
}

export interface ChunkSpan {
  index: number;
  start: number;
  end: number;
  final: boolean;
}

/**
 * Where each chunk lies in a body of `bodyLength` bytes: every chunk but the last holds
 * exactly 2^chunkLog2 plaintext bytes; the last holds 0 … 2^chunkLog2. Throws when no such
 * split exists (a body cut inside a tag).
 */
export function chunkSpans(bodyLength: number, chunkLog2: number): ChunkSpan[] {
  const full = 2 ** chunkLog2 + TAG_BYTES;
  if (bodyLength < TAG_BYTES) throw new EnvelopeError('tampered', 'no final chunk');
  const remainder = bodyLength % full;
  if (remainder !== 0 && remainder < TAG_BYTES) throw new EnvelopeError('tampered', 'cut inside a chunk');
  const count = Math.floor(bodyLength / full) + (remainder === 0 ? 0 : 1);
  return Array.from({ length: count }, (_, index) => ({
    index,
    start: index * full,
    end: Math.min((index + 1) * full, bodyLength),
    final: index === count - 1,
  }));
}

/** AES-GCM nonce of chunk i: 3 zero bytes, i as u64, then 1 for the final chunk. */
export function chunkNonce(index: number, final: boolean): Uint8Array {
  const nonce = new Uint8Array(12);
  new DataView(nonce.buffer).setBigUint64(3, BigInt(index));
  nonce[11] = final ? 1 : 0;
  return nonce;
}
