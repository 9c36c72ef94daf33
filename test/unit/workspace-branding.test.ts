import { readFileSync } from 'node:fs';
import { crc32, deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { BrandingRequest } from '../../shared/api/workspaces.ts';
import type { FieldError } from '../../shared/http/errors.ts';
import { toHttpError } from '../../shared/http/refusals.ts';
import { workspaceLimits } from '../../shared/limits.ts';
import { Invalid } from '../../shared/domain/refusals.ts';
import {
  accentShortfalls,
  accentUses,
  contrastRatio,
  formatRatio,
  pageColours,
  relativeLuminance,
} from '../../shared/domain/workspaces/accent.ts';
import { checkBranding as checkInput } from '../../shared/domain/workspaces/branding.ts';
import { brandingInput } from '../../functions/workspaces/inputs.ts';
import { maxLogoSide, parseLogo } from '../../shared/domain/workspaces/logo.ts';

// Real images, built byte by byte here (CRCs by node:zlib, independently of logo.ts).

const u32be = (n: number) => Buffer.from([n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]);
const u16be = (n: number) => Buffer.from([n >>> 8, n & 0xff]);
const u32le = (n: number) => Buffer.from([n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24]);

const pngChunk = (type: string, data: Buffer) =>
  Buffer.concat([u32be(data.length), Buffer.from(type, 'latin1'), data, u32be(crc32(Buffer.concat([Buffer.from(type, 'latin1'), data])))]);
const pngSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** An RGB PNG of one colour (other depths and colour types get the same data: only the header is read); `pad` adds a private ancillary chunk of that many data bytes. */
function png({
  width = 1,
  height = 1,
  depth = 8,
  colourType = 2,
  pad,
}: {
  width?: number;
  height?: number;
  depth?: number;
  colourType?: number;
  pad?: number;
} = {}): Buffer {
  const ihdr = Buffer.concat([u32be(width), u32be(height), Buffer.from([depth, colourType, 0, 0, 0])]);
  // Pixel data for the size asked, up to a little over the largest side the checks allow (they read the header).
  const side = (n: number) => Math.min(Math.max(n, 1), maxLogoSide + 1);
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(side(width) * 3, 0x3b)]);
  const pixels = deflateSync(Buffer.concat(Array.from({ length: side(height) }, () => row)));
  return Buffer.concat([
    pngSignature,
    pngChunk('IHDR', ihdr),
    ...(pad === undefined ? [] : [pngChunk('prVt', Buffer.alloc(pad, 0x61))]),
    pngChunk('IDAT', pixels),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

const jpegSegment = (marker: number, data: Buffer) => Buffer.concat([Buffer.from([0xff, marker]), u16be(data.length + 2), data]);

/**
 * A baseline greyscale JPEG: quantisation table of ones, Huffman tables with one code each (DC
 * category 0, AC end of block), so the one 8×8 block's entropy data is the bits `00`, padded
 * with ones. The tables come before the frame header, as JPEG allows (and DHT is C4, inside the
 * SOFn range without being one).
 */
function jpeg({ width = 1, height = 1, sof = 0xc0, fill = 0, before = [] as Buffer[] } = {}): Buffer {
  const table = (tc: number) => Buffer.concat([Buffer.from([tc << 4]), Buffer.from([1, ...Array(15).fill(0)]), Buffer.from([0])]);
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    jpegSegment(0xe0, Buffer.from('JFIF\0\x01\x01\0\0\x01\0\x01\0\0', 'latin1')),
    ...before,
    jpegSegment(0xdb, Buffer.concat([Buffer.from([0]), Buffer.alloc(64, 1)])),
    jpegSegment(0xc4, table(0)),
    jpegSegment(0xc4, table(1)),
    Buffer.alloc(fill, 0xff),
    jpegSegment(sof, Buffer.concat([Buffer.from([8]), u16be(height), u16be(width), Buffer.from([1, 1, 0x11, 0])])),
    jpegSegment(0xda, Buffer.from([1, 1, 0x00, 0, 63, 0])),
    Buffer.from([0x3f]),
    Buffer.from([0xff, 0xd9]),
  ]);
}

/** A RIFF WebP around one chunk (padded to even length, as RIFF does). */
function webp(fourcc: string, data: Buffer): Buffer {
  const chunk = Buffer.concat([Buffer.from(fourcc, 'latin1'), u32le(data.length), data, Buffer.alloc(data.length % 2)]);
  return Buffer.concat([Buffer.from('RIFF'), u32le(4 + chunk.length), Buffer.from('WEBP'), chunk]);
}
// Modernizr's feature tests: a 1×1 lossless, lossy, and extended (alpha) WebP, as browsers decode them.
const modernizrLossless = Buffer.from('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==', 'base64');
const modernizrLossy = Buffer.from('UklGRiIAAABXRUJQVlA4IBYAAAAwAQCdASoBAAEADsD+JaQAA3AAAAAA', 'base64');
const modernizrAlpha = Buffer.from(
  'UklGRkoAAABXRUJQVlA4WAoAAAAQAAAAAAAAAAAAQUxQSAwAAAARBxAR/Q9ERP8DAABWUDggGAAAABQBAJ0BKgEAAQAAAP4AAA3AAP7mtQAAAA==',
  'base64',
);

/** The lossless one with its header's dimensions (14 bits each, less one) and version set as asked. */
const vp8l = (width = 1, height = 1, version = 0) => {
  const bytes = Buffer.from(modernizrLossless);
  bytes.writeUInt32LE(((width - 1) | ((height - 1) << 14) | (bytes.readUInt32LE(21) & (1 << 28)) | (version << 29)) >>> 0, 21);
  return bytes;
};
/** The lossy one with its key frame's dimensions and frame tag set as asked (bit 0 of the tag clear: a key frame). */
const vp8 = (width = 1, height = 1, frameTag = 0x30) => {
  const bytes = Buffer.from(modernizrLossy);
  bytes[20] = frameTag;
  bytes.writeUInt16LE(width, 26);
  bytes.writeUInt16LE(height, 28);
  return bytes;
};
/** An extended WebP's header (VP8X) with its canvas, as the first chunk. */
const vp8x = (width = 1, height = 1, size = 10) => {
  const w = width - 1;
  const h = height - 1;
  return webp(
    'VP8X',
    Buffer.concat([
      Buffer.from([0x10, 0, 0, 0, w & 0xff, (w >> 8) & 0xff, w >> 16, h & 0xff, (h >> 8) & 0xff, h >> 16]),
      Buffer.alloc(size - 10),
    ]),
  );
};

const dataUrl = (type: string, bytes: Buffer) => `data:${type};base64,${bytes.toString('base64')}`;

const name = 'Acme Security';

/** The branding a `PUT …/branding` body sets, as the route hands it to the domain. */
const checkBranding = (body: BrandingRequest) => checkInput(brandingInput(body));

function refusal(input: BrandingRequest): FieldError[] {
  try {
    checkBranding(input);
  } catch (error) {
    expect(error).toBeInstanceOf(Invalid);
    const http = toHttpError(error);
    expect([http.status, http.code]).toEqual([400, 'invalid_request']);
    return http.extras.errors ?? [];
  }
  throw new Error(`accepted: ${JSON.stringify(input).slice(0, 200)}`);
}
const logoRefusal = (logo: string) => {
  const errors = refusal({ display_name: name, logo });
  expect(errors.map((error) => error.path)).toEqual(['body.logo']);
  return errors[0]!.message;
};

describe('checkBranding: the display name', () => {
  it('is stored trimmed, with neither logo nor accent when they are absent or null', () => {
    expect(checkBranding({ display_name: '  Acme Security \n' })).toEqual({ displayName: name, logo: null, accent: null });
    expect(checkBranding({ display_name: name, logo: null, accent: null })).toEqual({ displayName: name, logo: null, accent: null });
  });

  it(`is 1 to ${workspaceLimits.displayName.max} characters once trimmed`, () => {
    const max = workspaceLimits.displayName.max;
    expect(checkBranding({ display_name: 'x'.repeat(max) }).displayName).toHaveLength(max);
    expect(checkBranding({ display_name: ` ${'x'.repeat(max)} ` }).displayName).toHaveLength(max);
    for (const bad of ['', '   ', '\t\n', 'x'.repeat(max + 1)]) {
      expect(refusal({ display_name: bad })).toEqual([
        { path: 'body.display_name', message: `must be 1 to ${max} characters long once trimmed` },
      ]);
    }
  });

  it('refuses controls, separators, lone surrogates, bidi controls and annotation characters, naming the first', () => {
    const refused = [
      '\u0000',
      '\u0007',
      '\u001b',
      '\u007f',
      '\u0085',
      '\u009f',
      '\u061c',
      '\u200e',
      '\u200f',
      '\u2028',
      '\u2029',
      '\ud800',
      '\udfff',
      '\ufff9',
      '\ufffb',
    ];
    for (let code = 0x202a; code <= 0x202e; code++) refused.push(String.fromCharCode(code));
    for (let code = 0x2066; code <= 0x2069; code++) refused.push(String.fromCharCode(code));
    for (const char of refused) {
      const [error, ...rest] = refusal({ display_name: `Acme${char}Security` });
      expect(rest).toEqual([]);
      expect(error).toEqual({
        path: 'body.display_name',
        message: `must not contain control or bidirectional formatting characters (U+${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')} at 4)`,
      });
    }
  });

  it('refuses a name that would turn "on Hushlink" around it (RLO … PDF)', () => {
    expect(refusal({ display_name: 'Acme \u202Eknilhsuh no\u202C' })[0]!.path).toBe('body.display_name');
  });

  it('keeps the scripts and sequences names are written in', () => {
    for (const good of [
      'Société Générale',
      'شركة أكمي',
      'חברת אקמי',
      'アクメ株式会社',
      'Family 👨\u200d👩\u200d👧',
      'می\u200cخواهم',
      'Zoë & Co. (EU)',
    ]) {
      expect(checkBranding({ display_name: good }).displayName).toBe(good);
    }
  });

  it('reports a name both too long and holding a control as two entries', () => {
    expect(refusal({ display_name: `\u202e${'x'.repeat(70)}` }).map((error) => error.message)).toEqual([
      `must be 1 to ${workspaceLimits.displayName.max} characters long once trimmed`,
      'must not contain control or bidirectional formatting characters (U+202E at 0)',
    ]);
  });
});

describe('checkBranding: the logo', () => {
  it('takes a real PNG, JPEG and WebP (lossless, lossy, extended) and stores the URL as given', () => {
    const cases: [string, Buffer][] = [
      ['image/png', png()],
      ['image/jpeg', jpeg()],
      ['image/webp', modernizrLossless],
      ['image/webp', modernizrLossy],
      ['image/webp', modernizrAlpha],
      ['image/webp', vp8l()],
      ['image/webp', vp8()],
    ];
    for (const [type, bytes] of cases) {
      const url = dataUrl(type, bytes);
      expect(checkBranding({ display_name: name, logo: url }).logo).toBe(url);
    }
  });

  it('reads each format’s dimensions from its header', () => {
    const size = (bytes: Buffer, type: string) => {
      const { width, height } = parseLogo(dataUrl(type, bytes));
      return [width, height];
    };
    expect(size(png({ width: 3, height: 2 }), 'image/png')).toEqual([3, 2]);
    expect(size(jpeg({ width: 300, height: 120 }), 'image/jpeg')).toEqual([300, 120]);
    expect(size(jpeg({ width: 64, height: 48, sof: 0xc2 }), 'image/jpeg')).toEqual([64, 48]);
    expect(size(vp8l(640, 33), 'image/webp')).toEqual([640, 33]);
    expect(size(vp8(200, 100), 'image/webp')).toEqual([200, 100]);
    expect(size(vp8x(4000, 17), 'image/webp')).toEqual([4000, 17]);
    expect(size(modernizrAlpha, 'image/webp')).toEqual([1, 1]);
  });

  it('lower-cases the media type and the base64 parameter of the URL it stores', () => {
    const bytes = png();
    for (const declared of ['DATA:IMAGE/PNG;BASE64,', 'data:Image/Png;Base64,']) {
      expect(checkBranding({ display_name: name, logo: declared + bytes.toString('base64') }).logo).toBe(dataUrl('image/png', bytes));
    }
  });

  it('refuses SVG and every other type, and parameters other than ;base64', () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    const types = 'must be a PNG, JPEG or WebP image (image/png, image/jpeg or image/webp); SVG and other types are refused';
    for (const url of [
      dataUrl('image/svg+xml', svg),
      dataUrl('image/gif', png()),
      dataUrl('image/jpg', jpeg()),
      dataUrl('text/html', png()),
      dataUrl('', png()),
      `data:;base64,${png().toString('base64')}`,
    ]) {
      expect(logoRefusal(url)).toBe(types);
    }
    const b64 = png().toString('base64');
    for (const url of [
      `data:image/png,${b64}`,
      `data:image/png;charset=utf-8;base64,${b64}`,
      `data:image/png;base64;base64,${b64}`,
      `data:image/png;name=a.png;base64,${b64}`,
    ]) {
      expect(logoRefusal(url)).toBe('must be base64 with no other parameters (data:<type>;base64,…)');
    }
    for (const url of ['', 'https://example.com/logo.png', 'image/png;base64,AAAA', 'data:image/png;base64']) {
      expect(logoRefusal(url)).toBe('must be a data: URL (data:image/png;base64,…)');
    }
  });

  it('refuses base64 that is not canonical: no padding, whitespace, base64url, or stray bits in the last character', () => {
    const bytes = [png(), png({ pad: 1 }), png({ pad: 2 })].find((image) => image.length % 3 === 1)!;
    const b64 = bytes.toString('base64');
    expect(b64.endsWith('==')).toBe(true);
    const shape = 'must be padded base64 (A-Z, a-z, 0-9, + and /) with no spaces or line breaks';
    for (const payload of [
      b64.replace(/=+$/, ''),
      `${b64.slice(0, 40)}\r\n${b64.slice(40)}`,
      ` ${b64}`,
      `${b64.slice(0, 40)} ${b64.slice(40)}`,
      b64.replaceAll('+', '-').replaceAll('/', '_'),
      `${b64}=`,
    ]) {
      expect(logoRefusal(`data:image/png;base64,${payload}`)).toBe(shape);
    }
    // The same bytes spelled a second way: the bits after the last byte set.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    const last = b64.replace(/=+$/, '').length - 1;
    const stray = b64.slice(0, last) + alphabet[alphabet.indexOf(b64[last]!) + 1] + b64.slice(last + 1);
    expect(Buffer.from(stray, 'base64')).toEqual(bytes);
    expect(logoRefusal(`data:image/png;base64,${stray}`)).toBe(
      'must be canonical base64 (the unused bits of the last character must be zero)',
    );
  });

  it(`takes exactly ${workspaceLimits.logoBytes} bytes decoded and refuses one more, before decoding it`, () => {
    const base = png().length;
    const exact = png({ pad: workspaceLimits.logoBytes - base - 12 });
    expect(exact).toHaveLength(workspaceLimits.logoBytes);
    expect(checkBranding({ display_name: name, logo: dataUrl('image/png', exact) }).logo).toBe(dataUrl('image/png', exact));
    const over = png({ pad: workspaceLimits.logoBytes - base - 11 });
    expect(over).toHaveLength(workspaceLimits.logoBytes + 1);
    expect(logoRefusal(dataUrl('image/png', over))).toBe(
      `must be at most ${workspaceLimits.logoBytes} bytes decoded (this one is ${workspaceLimits.logoBytes + 1})`,
    );
    // Each padding length: 65,535 to 65,537 bytes, whatever the number of `=`.
    for (const extra of [-1, 0, 1]) {
      const bytes = png({ pad: workspaceLimits.logoBytes - base - 12 + extra });
      const url = dataUrl('image/png', bytes);
      if (extra <= 0) expect(checkBranding({ display_name: name, logo: url }).logo).toBe(url);
      else expect(logoRefusal(url)).toMatch(/^must be at most/);
    }
  });

  it('refuses bytes that are not the declared type, naming what they are', () => {
    expect(logoRefusal(dataUrl('image/png', jpeg()))).toBe('is declared image/png but its bytes are a JPEG image');
    expect(logoRefusal(dataUrl('image/jpeg', vp8l()))).toBe('is declared image/jpeg but its bytes are a WebP image');
    expect(logoRefusal(dataUrl('image/webp', png()))).toBe('is declared image/webp but its bytes are a PNG image');
    expect(logoRefusal(dataUrl('image/png', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')))).toBe(
      'is declared image/png but its bytes are not a PNG image',
    );
    expect(logoRefusal(dataUrl('image/jpeg', Buffer.from('GIF89a\x01\0\x01\0')))).toBe(
      'is declared image/jpeg but its bytes are not a JPEG image',
    );
    expect(logoRefusal(dataUrl('image/webp', Buffer.concat([Buffer.from('RIFF'), u32le(4), Buffer.from('WAVE')])))).toBe(
      'is declared image/webp but its bytes are not a WebP image',
    );
    expect(logoRefusal('data:image/png;base64,')).toBe('is declared image/png but its bytes are not a PNG image');
  });

  it(`refuses zero dimensions and more than ${maxLogoSide} pixels a side, in every format`, () => {
    const ok = [png({ width: maxLogoSide, height: 1 }), png({ width: 1, height: maxLogoSide })];
    for (const bytes of ok) expect(parseLogo(dataUrl('image/png', bytes)).bytes).toBe(bytes.length);
    expect(parseLogo(dataUrl('image/webp', vp8x(maxLogoSide, maxLogoSide))).width).toBe(maxLogoSide);
    const tooBig = `must be at most ${maxLogoSide} pixels a side`;
    const cases: [string, Buffer, string][] = [
      ['image/png', png({ width: maxLogoSide + 1, height: 1 }), `${tooBig} (this one is 4097×1)`],
      ['image/png', png({ width: 1, height: 2 ** 31 - 1 }), `${tooBig} (this one is 1×2147483647)`],
      ['image/png', png({ width: 0, height: 5 }), 'must have a width and height of at least 1 pixel (this one is 0×5)'],
      ['image/jpeg', jpeg({ width: 65535, height: 10 }), `${tooBig} (this one is 65535×10)`],
      ['image/jpeg', jpeg({ width: 10, height: 0 }), 'must have a width and height of at least 1 pixel (this one is 10×0)'],
      ['image/webp', vp8l(16384, 16384), `${tooBig} (this one is 16384×16384)`],
      ['image/webp', vp8(0, 10), 'must have a width and height of at least 1 pixel (this one is 0×10)'],
      ['image/webp', vp8(5000, 10), `${tooBig} (this one is 5000×10)`],
      ['image/webp', vp8x(maxLogoSide + 1, 1), `${tooBig} (this one is 4097×1)`],
      ['image/webp', vp8x(2 ** 24, 2 ** 24), `${tooBig} (this one is 16777216×16777216)`],
    ];
    for (const [type, bytes, message] of cases) expect(logoRefusal(dataUrl(type, bytes))).toBe(message);
  });

  it('refuses every truncation of every image, and anything after an image’s end', () => {
    const images: [string, Buffer][] = [
      ['image/png', png({ width: 2, height: 2 })],
      ['image/jpeg', jpeg()],
      ['image/webp', modernizrLossless],
      ['image/webp', modernizrLossy],
      ['image/webp', modernizrAlpha],
    ];
    for (const [type, bytes] of images) {
      for (let length = 0; length < bytes.length; length++) {
        expect(
          () => checkBranding({ display_name: name, logo: dataUrl(type, bytes.subarray(0, length)) }),
          `${type} cut to ${length}`,
        ).toThrow(Invalid);
      }
      expect(logoRefusal(dataUrl(type, Buffer.concat([bytes, Buffer.from('<html>')])))).toMatch(/^must end where its image ends/);
    }
  });

  it('refuses a PNG whose IHDR is not first, not 13 bytes, out of range, or whose chunks fail their CRC or hold no image data', () => {
    const good = png();
    const ihdrData = good.subarray(16, 29);
    const withIhdr = (data: Buffer) => Buffer.concat([pngSignature, pngChunk('IHDR', data), good.subarray(33)]);
    expect(logoRefusal(dataUrl('image/png', Buffer.concat([pngSignature, pngChunk('tEXt', Buffer.from('a\0b')), good.subarray(8)])))).toBe(
      'is not a valid PNG: its first chunk must be IHDR, 13 bytes long',
    );
    expect(logoRefusal(dataUrl('image/png', withIhdr(Buffer.concat([ihdrData, Buffer.from([0])]))))).toBe(
      'is not a valid PNG: its first chunk must be IHDR, 13 bytes long',
    );
    for (const [depth, colourType, compression, filter, interlace] of [
      [3, 2, 0, 0, 0],
      [16, 3, 0, 0, 0],
      [8, 1, 0, 0, 0],
      [8, 7, 0, 0, 0],
      [8, 2, 1, 0, 0],
      [8, 2, 0, 1, 0],
      [8, 2, 0, 0, 2],
    ] as const) {
      const data = Buffer.concat([ihdrData.subarray(0, 8), Buffer.from([depth, colourType, compression, filter, interlace])]);
      expect(logoRefusal(dataUrl('image/png', withIhdr(data)))).toBe('is not a valid PNG: its IHDR fields are out of range');
    }
    for (const [depth, colourType] of [
      [1, 0],
      [16, 0],
      [16, 2],
      [1, 3],
      [8, 3],
      [8, 4],
      [16, 6],
    ]) {
      expect(parseLogo(dataUrl('image/png', png({ depth, colourType }))).type).toBe('image/png');
    }
    const badCrc = Buffer.from(good);
    badCrc[29] = badCrc[29]! ^ 1;
    expect(logoRefusal(dataUrl('image/png', badCrc))).toBe('is not a valid PNG: a chunk fails its CRC');
    const badIdat = Buffer.from(good);
    badIdat[good.length - 14] = badIdat[good.length - 14]! ^ 1;
    expect(logoRefusal(dataUrl('image/png', badIdat))).toBe('is not a valid PNG: a chunk fails its CRC');
    expect(
      logoRefusal(dataUrl('image/png', Buffer.concat([pngSignature, pngChunk('IHDR', ihdrData), pngChunk('IEND', Buffer.alloc(0))]))),
    ).toBe('is not a valid PNG: it has no image data (IDAT)');
  });

  it('walks a JPEG’s segments (fill bytes, tables and application data before the frame) and refuses a scan before any frame header', () => {
    expect(
      parseLogo(
        dataUrl(
          'image/jpeg',
          jpeg({ fill: 3, before: [jpegSegment(0xe1, Buffer.alloc(300, 0xff)), jpegSegment(0xfe, Buffer.from('comment'))] }),
        ),
      ).width,
    ).toBe(1);
    const noFrame = Buffer.concat([
      Buffer.from([0xff, 0xd8]),
      jpegSegment(0xda, Buffer.from([1, 1, 0, 0, 63, 0])),
      Buffer.from([0x3f, 0xff, 0xd9]),
    ]);
    expect(logoRefusal(dataUrl('image/jpeg', noFrame))).toBe('is not a valid JPEG: no frame header (SOF) before its image data');
    const eoiFirst = Buffer.from([0xff, 0xd8, 0xff, 0xd9]);
    expect(logoRefusal(dataUrl('image/jpeg', eoiFirst))).toBe('is not a valid JPEG: no frame header (SOF) before its image data');
    const shortSegment = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x01, 0xff, 0xd9]);
    expect(logoRefusal(dataUrl('image/jpeg', shortSegment))).toBe('is not a valid JPEG: a segment’s length is under 2');
    const noMarker = Buffer.concat([Buffer.from([0xff, 0xd8]), jpegSegment(0xe0, Buffer.alloc(4)), Buffer.from([0x00, 0xff, 0xd9])]);
    expect(logoRefusal(dataUrl('image/jpeg', noMarker))).toBe('is not a valid JPEG: a segment does not start with a marker');
    const badFrame = Buffer.concat([
      Buffer.from([0xff, 0xd8]),
      jpegSegment(0xc0, Buffer.from([8, 0, 1, 0, 1, 2, 1, 0x11, 0])),
      Buffer.from([0xff, 0xd9]),
    ]);
    expect(logoRefusal(dataUrl('image/jpeg', badFrame))).toBe('is not a valid JPEG: its frame header is malformed');
    // DAC (CC) and JPG (C8) sit in the SOFn range without being frames.
    expect(parseLogo(dataUrl('image/jpeg', jpeg({ before: [jpegSegment(0xcc, Buffer.from([0x00, 0x10]))] }))).width).toBe(1);
  });

  it('refuses a WebP whose first chunk is not an image header, or whose header is malformed', () => {
    expect(logoRefusal(dataUrl('image/webp', webp('ALPH', Buffer.alloc(12))))).toBe(
      'is not a valid WebP: its first chunk is not VP8, VP8L or VP8X',
    );
    expect(logoRefusal(dataUrl('image/webp', vp8(1, 1, 0x31)))).toBe('is not a valid WebP: its VP8 frame is not a key frame');
    expect(logoRefusal(dataUrl('image/webp', vp8l(1, 1, 1)))).toBe('is not a valid WebP: its VP8L version is not 0');
    const badSignature = Buffer.from(vp8l());
    badSignature[20] = 0x2e;
    expect(logoRefusal(dataUrl('image/webp', badSignature))).toBe('is not a valid WebP: its VP8L signature is wrong');
    expect(logoRefusal(dataUrl('image/webp', vp8x(1, 1, 12)))).toBe('is not a valid WebP: its VP8X chunk is not 10 bytes');
    const longerChunk = Buffer.from(vp8l());
    longerChunk.writeUInt32LE(1000, 16);
    expect(logoRefusal(dataUrl('image/webp', longerChunk))).toBe('is cut short: its WebP data ends early');
  });
});

describe('contrast (WCAG 2)', () => {
  it('matches the known pairs: #777777 on white is 4.48, #767676 is 4.54; black on white is 21', () => {
    expect(contrastRatio('#777777', '#ffffff')).toBeCloseTo(4.48, 2);
    expect(contrastRatio('#767676', '#ffffff')).toBeCloseTo(4.54, 2);
    expect(contrastRatio('#000000', '#ffffff')).toBe(21);
    expect(contrastRatio('#ffffff', '#000000')).toBe(21);
    expect(contrastRatio('#3B3FBF', '#3b3fbf')).toBe(1);
    expect(relativeLuminance('#ffffff')).toBe(1);
    expect(relativeLuminance('#000000')).toBe(0);
    // Pure primaries: their coefficients.
    expect(relativeLuminance('#ff0000')).toBeCloseTo(0.2126, 10);
    expect(relativeLuminance('#00ff00')).toBeCloseTo(0.7152, 10);
    expect(relativeLuminance('#0000ff')).toBeCloseTo(0.0722, 10);
  });

  it('linearises below and above the sRGB threshold (10/255 is linear, 11/255 is not)', () => {
    expect(relativeLuminance('#0a0a0a')).toBeCloseTo(10 / 255 / 12.92, 12);
    expect(relativeLuminance('#0b0b0b')).toBeCloseTo(((11 / 255 + 0.055) / 1.055) ** 2.4, 12);
  });

  it('is symmetric and throws on what is not #rrggbb', () => {
    expect(contrastRatio('#123456', '#abcdef')).toBe(contrastRatio('#abcdef', '#123456'));
    for (const bad of ['red', '#fff', '#12345g', '123456', '#1234567', '']) expect(() => contrastRatio(bad, '#ffffff')).toThrow(TypeError);
  });

  it('formats a ratio rounded down, so a refused one never reads as enough', () => {
    expect(formatRatio(4.4999)).toBe('4.49:1');
    expect(formatRatio(21)).toBe('21.00:1');
  });

  it('checks the page colours styles.css really has', () => {
    const css = readFileSync(new URL('../../web/public/styles.css', import.meta.url), 'utf8');
    const light = css.slice(css.indexOf(':root {'), css.indexOf('}', css.indexOf(':root {')));
    const colour = (variable: string) => new RegExp(`${variable}:\\s*(#[0-9a-f]{6});`, 'i').exec(light)?.[1]?.toLowerCase();
    expect(colour('--surface')).toBe(pageColours.surface);
    expect(colour('--bg')).toBe(pageColours.background);
    expect(colour('--accent-text')).toBe(pageColours.label);
    // The page's own accent passes its own test.
    expect(accentShortfalls(colour('--accent')!)).toEqual([]);
  });
});

describe('checkBranding: the accent', () => {
  it('is stored in lower case', () => {
    expect(checkBranding({ display_name: name, accent: '#3B3FBF' }).accent).toBe('#3b3fbf');
  });

  it('refuses what is not #rrggbb', () => {
    for (const bad of ['red', '#fff', '#12345g', '3b3fbf', '#3b3fbf ', 'rgb(0,0,0)', '']) {
      expect(refusal({ display_name: name, accent: bad })).toEqual([{ path: 'body.accent', message: 'must be a colour written #rrggbb' }]);
    }
  });

  it(`needs ${workspaceLimits.accentContrast}:1 as text on the light page (#f6f7fb), not only on the white card`, () => {
    expect(checkBranding({ display_name: name, accent: '#717171' }).accent).toBe('#717171');
    expect(contrastRatio('#717171', pageColours.background)).toBeGreaterThanOrEqual(4.5);
    expect(refusal({ display_name: name, accent: '#727272' })).toEqual([
      { path: 'body.accent', message: 'gives a contrast of 4.49:1 as text on the page (#727272 on #f6f7fb); at least 4.5:1 is needed' },
    ]);
    // #767676 is the classic pass on white, yet too light on the page around the card.
    expect(contrastRatio('#767676', '#ffffff')).toBeGreaterThan(4.5);
    expect(refusal({ display_name: name, accent: '#767676' })[0]!.message).toBe(
      'gives a contrast of 4.24:1 as text on the page (#767676 on #f6f7fb); at least 4.5:1 is needed',
    );
  });

  it('names the worst use of a light accent', () => {
    expect(refusal({ display_name: name, accent: '#FFFF00' })[0]!.message).toBe(
      'gives a contrast of 1.00:1 as text on the page (#ffff00 on #f6f7fb); at least 4.5:1 is needed',
    );
    expect(accentShortfalls('#ffff00').map((use) => use.use)).toEqual([
      'text on the page',
      'text on the card',
      'button label on the accent',
    ]);
  });

  it('every accent readable as text on the light page also carries the white button label', () => {
    let accepted = 0;
    for (let r = 0; r < 256; r += 15) {
      for (let g = 0; g < 256; g += 15) {
        for (let b = 0; b < 256; b += 15) {
          const colour = `#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`;
          const [card, page, label] = accentUses(colour);
          if (card!.ratio >= 4.5 && page!.ratio >= 4.5) {
            accepted++;
            expect(label!.ratio, colour).toBeGreaterThanOrEqual(4.5);
            expect(checkBranding({ display_name: name, accent: colour }).accent).toBe(colour);
          } else {
            expect(refusal({ display_name: name, accent: colour })[0]!.path).toBe('body.accent');
          }
        }
      }
    }
    expect(accepted).toBeGreaterThan(1000);
  });
});

describe('checkBranding: several problems', () => {
  it('are reported at once, one entry per problem, in the order of the fields', () => {
    expect(refusal({ display_name: '\u2066Acme', logo: dataUrl('image/svg+xml', Buffer.from('<svg/>')), accent: '#eeeeee' })).toEqual([
      { path: 'body.display_name', message: 'must not contain control or bidirectional formatting characters (U+2066 at 0)' },
      {
        path: 'body.logo',
        message: 'must be a PNG, JPEG or WebP image (image/png, image/jpeg or image/webp); SVG and other types are refused',
      },
      { path: 'body.accent', message: 'gives a contrast of 1.08:1 as text on the page (#eeeeee on #f6f7fb); at least 4.5:1 is needed' },
    ]);
  });

  it('stores all three when all three are right', () => {
    const logo = dataUrl('image/webp', modernizrLossless);
    expect(checkBranding({ display_name: ' Acme ', logo, accent: '#1A7F37' })).toEqual({ displayName: 'Acme', logo, accent: '#1a7f37' });
  });
});
