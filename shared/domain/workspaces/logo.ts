/**
 * A workspace's logo (issue 15): a `data:` URL of a PNG, JPEG or WebP image, never SVG (which
 * can carry script and links). The bytes are decoded and read far enough to prove they are one
 * image of the declared type with sensible dimensions, so what a reveal page shows is a picture
 * and nothing else (no polyglot riding after the image's end). No Buffer: browsers run it too.
 */
import { workspaceLimits } from '../../limits.ts';

export const logoTypes = ['image/png', 'image/jpeg', 'image/webp'] as const;
export type LogoType = (typeof logoTypes)[number];

/** Pixels a side, at most (`workspaceLimits.logoSide`). */
export const maxLogoSide = workspaceLimits.logoSide;

export interface Logo {
  type: LogoType;
  /** The URL to store: the media type in lower case, `;base64`, and the canonical base64. */
  dataUrl: string;
  bytes: number;
  width: number;
  height: number;
}

/** Why a logo is refused, phrased to follow the field's name ("logo must be …"). */
export class LogoError extends Error {
  override name = 'LogoError';
}

const names: Record<LogoType, string> = { 'image/png': 'PNG', 'image/jpeg': 'JPEG', 'image/webp': 'WebP' };
const canonicalShape = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function parseLogo(text: string): Logo {
  const comma = text.indexOf(',');
  if (!/^data:/i.test(text) || comma < 0) throw new LogoError('must be a data: URL (data:image/png;base64,…)');
  const [mediaType = '', ...parameters] = text.slice('data:'.length, comma).split(';');
  const type = mediaType.toLowerCase();
  if (!(logoTypes as readonly string[]).includes(type))
    throw new LogoError('must be a PNG, JPEG or WebP image (image/png, image/jpeg or image/webp); SVG and other types are refused');
  if (parameters.length !== 1 || parameters[0]!.toLowerCase() !== 'base64')
    throw new LogoError('must be base64 with no other parameters (data:<type>;base64,…)');
  const payload = text.slice(comma + 1);
  if (!canonicalShape.test(payload)) throw new LogoError('must be padded base64 (A-Z, a-z, 0-9, + and /) with no spaces or line breaks');
  // The length is known before decoding, so an oversized logo costs no work.
  const length = (payload.length / 4) * 3 - (payload.endsWith('==') ? 2 : payload.endsWith('=') ? 1 : 0);
  if (length > workspaceLimits.logoBytes)
    throw new LogoError(`must be at most ${workspaceLimits.logoBytes} bytes decoded (this one is ${length})`);
  const binary = atob(payload);
  // atob ignores bits left over in the last character; a second spelling of the same bytes is refused.
  if (btoa(binary) !== payload) throw new LogoError('must be canonical base64 (the unused bits of the last character must be zero)');
  const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
  const found = sniff(bytes);
  if (found !== type)
    throw new LogoError(
      `is declared ${type} but its bytes ${found ? `are a ${names[found]} image` : `are not a ${names[type as LogoType]} image`}`,
    );
  const { width, height } = readers[found](bytes);
  if (width < 1 || height < 1) throw new LogoError(`must have a width and height of at least 1 pixel (this one is ${width}×${height})`);
  if (width > maxLogoSide || height > maxLogoSide)
    throw new LogoError(`must be at most ${maxLogoSide} pixels a side (this one is ${width}×${height})`);
  return { type: found, dataUrl: `data:${found};base64,${payload}`, bytes: bytes.length, width, height };
}

const pngSignature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const startsWith = (bytes: Uint8Array, prefix: number[], at = 0) => prefix.every((byte, i) => bytes[at + i] === byte);
const ascii = (text: string) => [...text].map((char) => char.charCodeAt(0));

/** The type the bytes announce by their magic numbers, whatever the URL declared. */
function sniff(bytes: Uint8Array): LogoType | null {
  if (startsWith(bytes, pngSignature)) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8)) return 'image/webp';
  return null;
}

/** Bounds-checked reads: running past the end means the image was cut short. */
function reader(bytes: Uint8Array, format: string) {
  const need = (at: number, count: number) => {
    if (at < 0 || at + count > bytes.length) throw new LogoError(`is cut short: its ${format} data ends early`);
  };
  return {
    u8: (at: number) => (need(at, 1), bytes[at]!),
    be16: (at: number) => (need(at, 2), (bytes[at]! << 8) | bytes[at + 1]!),
    be32: (at: number) => (need(at, 4), ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0),
    le16: (at: number) => (need(at, 2), bytes[at]! | (bytes[at + 1]! << 8)),
    le24: (at: number) => (need(at, 3), bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16)),
    le32: (at: number) => (need(at, 4), (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0),
    fourcc: (at: number) => (need(at, 4), String.fromCharCode(...bytes.subarray(at, at + 4))),
  };
}

interface Dimensions {
  width: number;
  height: number;
}

const readers: Record<LogoType, (bytes: Uint8Array) => Dimensions> = {
  'image/png': readPng,
  'image/jpeg': readJpeg,
  'image/webp': readWebp,
};

/** Bit depths PNG allows for each colour type (PNG §11.2.2). */
const pngDepths: Record<number, number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };

/**
 * PNG: the signature, IHDR first with its length of 13 and valid fields, then every chunk whole
 * with a right CRC, at least one IDAT, and IEND ending the file exactly.
 */
function readPng(bytes: Uint8Array): Dimensions {
  const read = reader(bytes, 'PNG');
  if (read.be32(8) !== 13 || read.fourcc(12) !== 'IHDR')
    throw new LogoError('is not a valid PNG: its first chunk must be IHDR, 13 bytes long');
  const width = read.be32(16);
  const height = read.be32(20);
  const [depth, colourType, compression, filter, interlace] = [24, 25, 26, 27, 28].map(read.u8) as [number, number, number, number, number];
  if (!pngDepths[colourType]?.includes(depth) || compression !== 0 || filter !== 0 || interlace > 1)
    throw new LogoError('is not a valid PNG: its IHDR fields are out of range');
  let at = 8;
  let idat = false;
  for (;;) {
    const length = read.be32(at);
    const type = read.fourcc(at + 4);
    read.be32(at + 8 + length);
    if (crc32(bytes.subarray(at + 4, at + 8 + length)) !== read.be32(at + 8 + length))
      throw new LogoError('is not a valid PNG: a chunk fails its CRC');
    at += 12 + length;
    if (type === 'IDAT') idat = true;
    if (type === 'IEND') break;
  }
  if (!idat) throw new LogoError('is not a valid PNG: it has no image data (IDAT)');
  if (at !== bytes.length) throw new LogoError('must end where its image ends (nothing after PNG’s IEND)');
  return { width, height };
}

/** SOFn markers: C0-CF but DHT (C4), JPG (C8) and DAC (CC). */
const isStartOfFrame = (marker: number) => marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;

/** JPEG: SOI, segments walked by their lengths to a frame header (SOFn) before any scan, and EOI last. */
function readJpeg(bytes: Uint8Array): Dimensions {
  const read = reader(bytes, 'JPEG');
  let at = 2;
  for (;;) {
    if (read.u8(at) !== 0xff) throw new LogoError('is not a valid JPEG: a segment does not start with a marker');
    while (read.u8(at) === 0xff) at++; // fill bytes may pad a marker
    const marker = read.u8(at);
    at++;
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) continue; // RSTn and TEM stand alone
    if (marker === 0x00 || marker === 0xd8 || marker === 0xd9 || marker === 0xda)
      throw new LogoError('is not a valid JPEG: no frame header (SOF) before its image data');
    const length = read.be16(at);
    if (length < 2) throw new LogoError('is not a valid JPEG: a segment’s length is under 2');
    if (isStartOfFrame(marker)) {
      const components = read.u8(at + 7);
      if (components < 1 || length !== 8 + 3 * components) throw new LogoError('is not a valid JPEG: its frame header is malformed');
      read.u8(at + length - 1);
      if (bytes[bytes.length - 2] !== 0xff || bytes[bytes.length - 1] !== 0xd9)
        throw new LogoError('must end where its image ends (JPEG’s EOI last)');
      return { height: read.be16(at + 3), width: read.be16(at + 5) };
    }
    at += length;
  }
}

/**
 * WebP: a RIFF whose size is the file's, `WEBP`, and a first chunk that carries the size: a
 * lossy key frame (VP8), a lossless bitstream (VP8L, version 0), or the extended header's canvas (VP8X).
 */
function readWebp(bytes: Uint8Array): Dimensions {
  const read = reader(bytes, 'WebP');
  const riffSize = read.le32(4);
  const chunk = read.fourcc(12);
  const size = read.le32(16);
  if (20 + size > bytes.length) throw new LogoError('is cut short: its WebP data ends early');
  if (riffSize + 8 !== bytes.length) throw new LogoError('must end where its image ends (a WebP’s RIFF size is its length)');
  if (chunk === 'VP8 ') {
    if (size < 10 || (read.u8(20) & 1) !== 0 || !startsWith(bytes, [0x9d, 0x01, 0x2a], 23))
      throw new LogoError('is not a valid WebP: its VP8 frame is not a key frame');
    return { width: read.le16(26) & 0x3fff, height: read.le16(28) & 0x3fff };
  }
  if (chunk === 'VP8L') {
    if (size < 5 || read.u8(20) !== 0x2f) throw new LogoError('is not a valid WebP: its VP8L signature is wrong');
    const bits = read.le32(21);
    if (bits >>> 29 !== 0) throw new LogoError('is not a valid WebP: its VP8L version is not 0');
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8X') {
    if (size !== 10) throw new LogoError('is not a valid WebP: its VP8X chunk is not 10 bytes');
    return { width: read.le24(24) + 1, height: read.le24(27) + 1 };
  }
  throw new LogoError('is not a valid WebP: its first chunk is not VP8, VP8L or VP8X');
}

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** CRC-32 as PNG computes it over a chunk's type and data (ISO 3309, reflected). */
function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = crcTable[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
