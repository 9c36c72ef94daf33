/**
 * Throughput of envelope v1 (shared/envelope) against the raw AES-256-GCM it is built on.
 *
 *   npx tsx bench/envelope.ts          (or: npm run bench:envelope)
 *   BENCH_REPS=9 BENCH_REPS_SMALL=41   (measured repetitions for 64 MiB / 1 MiB inputs)
 *   BENCH_FIXED_REPS=200               (repetitions of the fixed-cost rows)
 *
 * For 1 MiB and 64 MiB inputs it times `seal` (kind 'file' with a meta block, and kind 'text')
 * and `open`, at chunkLog2 20 (1 MiB chunks, the default) and 16 (64 KiB chunks),
 * next to, in the same run and over the same bytes:
 *   - node:crypto  createCipheriv/createDecipheriv('aes-256-gcm'), one cipher per piece (own
 *     nonce, 32-byte AAD, 16-byte tag, like an envelope chunk), in 1 MiB and 64 KiB pieces and
 *     in one piece;
 *   - WebCrypto    crypto.subtle.encrypt/decrypt AES-GCM over the same pieces, one awaited
 *     call after another, on subarray views of the input (the baseline); then, at the
 *     envelope's chunk sizes, the same calls 4 in flight, their outputs written into one new
 *     buffer, and after deriving the keys (the floor: what a seal or open cannot avoid).
 * The headline is each envelope figure as a fraction of the raw figure at the same chunk size,
 * with its fraction of the floor beside it.
 *
 * Cases of one input size and piece size are run round-robin (order rotated each repetition)
 * after a warm-up, so load changes hit them alike; the median time is reported. Only one
 * 64 MiB input, one raw ciphertext and one envelope of each kind are alive at a time.
 */
import { createCipheriv, createDecipheriv, createSecretKey, randomFillSync, type KeyObject } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  claimVerifier,
  deriveKeys,
  encryptChunk,
  open,
  randomBytes,
  seal,
  sealHeader,
  sealText,
  type FileMeta,
  type Sealed,
} from '../shared/envelope/index.ts';
import { fmtLoad, fmtRatio, median, positiveInt, printTable, reportHeadlines } from './support.ts';

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

const REPS_LARGE = positiveInt(process.env.BENCH_REPS, 9);
const REPS_SMALL = positiveInt(process.env.BENCH_REPS_SMALL, 41);
const FIXED_REPS = positiveInt(process.env.BENCH_FIXED_REPS, 200);
const WARMUP_LARGE = 2;
const WARMUP_SMALL = 8;
const INPUT_SIZES = [1 * MiB, 64 * MiB];
const CHUNK_LOG2S = [20, 16];

const subtle = globalThis.crypto.subtle;

// A full GC before each timed 64 MiB run (outside the timing), so garbage of the previous run is
// neither timed nor kept: without it the process held about 600 MiB.
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

// ---------------------------------------------------------------------------------------------
// Raw AES-256-GCM, the way the envelope uses it: one GCM operation per piece, 12-byte nonce
// (index, final flag), 32 bytes of AAD, 16-byte tag appended.

const TAG = 16;
const rawKeyBytes = randomBytes(32);
const aad = randomBytes(32) as Uint8Array<ArrayBuffer>;
const nodeKey: KeyObject = createSecretKey(rawKeyBytes);
const webKey = await subtle.importKey('raw', rawKeyBytes as Uint8Array<ArrayBuffer>, 'AES-GCM', false, ['encrypt', 'decrypt']);

function nonce(index: number, final: boolean): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(12);
  new DataView(out.buffer).setBigUint64(3, BigInt(index));
  out[11] = final ? 1 : 0;
  return out;
}

const pieceCount = (length: number, piece: number) => Math.max(1, Math.ceil(length / piece));

function nodeEncrypt(input: Uint8Array, piece: number): void {
  const count = pieceCount(input.length, piece);
  for (let i = 0; i < count; i++) {
    const cipher = createCipheriv('aes-256-gcm', nodeKey, nonce(i, i === count - 1), { authTagLength: TAG });
    cipher.setAAD(aad);
    cipher.update(input.subarray(i * piece, (i + 1) * piece));
    cipher.final();
    cipher.getAuthTag();
  }
}

/** The body raw decryption reads: each piece's ciphertext followed by its tag (the envelope's layout). */
function nodeBody(input: Uint8Array, piece: number): Uint8Array {
  const count = pieceCount(input.length, piece);
  const out = new Uint8Array(input.length + count * TAG);
  let offset = 0;
  for (let i = 0; i < count; i++) {
    const cipher = createCipheriv('aes-256-gcm', nodeKey, nonce(i, i === count - 1), { authTagLength: TAG });
    cipher.setAAD(aad);
    for (const part of [cipher.update(input.subarray(i * piece, (i + 1) * piece)), cipher.final(), cipher.getAuthTag()]) {
      out.set(part, offset);
      offset += part.length;
    }
  }
  return out;
}

function nodeDecrypt(body: Uint8Array, piece: number): void {
  const count = pieceCount(body.length, piece + TAG);
  for (let i = 0; i < count; i++) {
    const chunk = body.subarray(i * (piece + TAG), (i + 1) * (piece + TAG));
    const decipher = createDecipheriv('aes-256-gcm', nodeKey, nonce(i, i === count - 1), { authTagLength: TAG });
    decipher.setAAD(aad);
    decipher.setAuthTag(chunk.subarray(chunk.length - TAG));
    decipher.update(chunk.subarray(0, chunk.length - TAG));
    decipher.final();
  }
}

async function webEncrypt(input: Uint8Array<ArrayBuffer>, piece: number): Promise<void> {
  const count = pieceCount(input.length, piece);
  for (let i = 0; i < count; i++) {
    await subtle.encrypt(
      { name: 'AES-GCM', iv: nonce(i, i === count - 1), additionalData: aad },
      webKey,
      input.subarray(i * piece, (i + 1) * piece),
    );
  }
}

async function webDecrypt(body: Uint8Array<ArrayBuffer>, piece: number): Promise<void> {
  const count = pieceCount(body.length, piece + TAG);
  for (let i = 0; i < count; i++) {
    const chunk = body.subarray(i * (piece + TAG), (i + 1) * (piece + TAG));
    await subtle.decrypt({ name: 'AES-GCM', iv: nonce(i, i === count - 1), additionalData: aad }, webKey, chunk);
  }
}

// What a seal or open that returns one buffer cannot avoid, built up from the raw calls: the
// same calls kept in flight as the envelope keeps them (shared/envelope's `chunksInFlight`), then
// each output written into one new buffer at its offset, then the keys derived from a fresh link
// key before the first call (and, to open, the header's MAC checked first, as the format
// requires). The envelope adds its header, meta block and tokens to the last of these.

const IN_FLIGHT = 4;

async function webInFlight(
  input: Uint8Array<ArrayBuffer>,
  piece: number,
  direction: Direction,
  into: Uint8Array | undefined,
  key: CryptoKey = webKey,
): Promise<void> {
  const step = direction === 'encrypt' ? piece : piece + TAG;
  const outStep = direction === 'encrypt' ? piece + TAG : piece;
  const count = pieceCount(input.length, step);
  // One chunk opened is its own plaintext: the output is returned, not copied.
  const target = direction === 'decrypt' && count === 1 ? undefined : into;
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const i = next++;
      const params = { name: 'AES-GCM', iv: nonce(i, i === count - 1), additionalData: aad };
      const view = input.subarray(i * step, (i + 1) * step);
      const out = await (direction === 'encrypt' ? subtle.encrypt(params, key, view) : subtle.decrypt(params, key, view));
      target?.set(new Uint8Array(out), i * outStep);
    }
  };
  await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, count) }, lane));
}

const outputLength = (input: Uint8Array, piece: number, direction: Direction) =>
  direction === 'encrypt'
    ? input.length + pieceCount(input.length, piece) * TAG
    : input.length - pieceCount(input.length, piece + TAG) * TAG;

/** The floor: keys derived from a fresh link key (and, to open, the header MAC checked), then the calls into one buffer. */
async function floorRun(input: Uint8Array<ArrayBuffer>, piece: number, direction: Direction): Promise<void> {
  const keys = await deriveKeys({ urlKey: randomBytes(32), salt: randomBytes(16), iterations: 0 });
  if (direction === 'decrypt') await subtle.verify('HMAC', keys.header, new Uint8Array(32), aad);
  // The raw key stands in for the derived one: same algorithm and length, and the raw body was sealed with it.
  await webInFlight(input, piece, direction, new Uint8Array(outputLength(input, piece, direction)));
}

// ---------------------------------------------------------------------------------------------
// Measuring

type Direction = 'encrypt' | 'decrypt';
type Impl = 'node' | 'web' | 'envelope' | 'copy' | 'web4' | 'webInto' | 'floor';

interface Case {
  direction: Direction;
  impl: Impl;
  label: string;
  /** Bytes per GCM operation (piece or chunk). */
  piece: number;
  run: () => unknown;
  samples: number[];
}

interface Result {
  inputSize: number;
  direction: Direction;
  impl: Impl;
  label: string;
  piece: number;
  medianMs: number;
  minMs: number;
  maxMs: number;
}

const results: Result[] = [];

async function runRoundRobin(cases: Case[], warmup: number, reps: number, gcEachRun: boolean): Promise<void> {
  for (let w = 0; w < warmup; w++) {
    for (const c of cases) {
      if (gcEachRun) collect();
      await c.run();
    }
  }
  for (let r = 0; r < reps; r++) {
    for (let k = 0; k < cases.length; k++) {
      const c = cases[(k + r) % cases.length]!;
      if (gcEachRun) collect();
      sampleRss();
      const start = performance.now();
      await c.run();
      c.samples.push(performance.now() - start);
      sampleRss();
    }
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength)) === 0;
}

let peakRss = 0;
const sampleRss = () => {
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
};

/** All cases of one input size that use one piece size, run together. */
async function phase(input: Uint8Array<ArrayBuffer>, piece: number): Promise<void> {
  const size = input.length;
  const small = size <= MiB;
  const pieceName =
    piece >= size ? (size === piece ? `${sizeName(piece)} pieces (= one piece)` : 'one piece') : `${sizeName(piece)} pieces`;
  const cases: Case[] = [];
  const add = (direction: Direction, impl: Impl, label: string, run: () => unknown) =>
    cases.push({ direction, impl, label, piece: Math.min(piece, size), run, samples: [] });

  const body = nodeBody(input, piece) as Uint8Array<ArrayBuffer>;
  add('encrypt', 'node', `node:crypto ${pieceName}`, () => nodeEncrypt(input, piece));
  add('decrypt', 'node', `node:crypto ${pieceName}`, () => nodeDecrypt(body, piece));
  add('encrypt', 'web', `WebCrypto   ${pieceName}`, () => webEncrypt(input, piece));
  add('decrypt', 'web', `WebCrypto   ${pieceName}`, () => webDecrypt(body, piece));
  // What one extra copy of the input into fresh memory costs here (allocation + page faults + memcpy).
  if (piece === size) add('encrypt', 'copy', 'reference: copy input to a new buffer', () => new Uint8Array(input));

  const chunkLog2 = CHUNK_LOG2S.find((log2) => 2 ** log2 === piece);
  if (chunkLog2 !== undefined) {
    for (const [direction, source] of [
      ['encrypt', input],
      ['decrypt', body],
    ] as const) {
      add(direction, 'web4', `WebCrypto   ${pieceName}, ${IN_FLIGHT} in flight`, () => webInFlight(source, piece, direction, undefined));
      add(direction, 'webInto', `WebCrypto   ${pieceName}, ${IN_FLIGHT} in flight, into one new buffer`, () =>
        webInFlight(source, piece, direction, new Uint8Array(outputLength(source, piece, direction))),
      );
      add(direction, 'floor', `floor: the same after deriving keys${direction === 'decrypt' ? ', checking a MAC' : ''}`, () =>
        floorRun(source, piece, direction),
      );
    }
    const meta: FileMeta = { name: 'bench.bin', type: 'application/octet-stream', size };
    for (const kind of ['file', 'text'] as const) {
      const sealInput = { kind, plaintext: input, chunkLog2, ...(kind === 'file' ? { meta } : {}) };
      let sealed: Sealed | undefined = await seal(sealInput);
      const opened = await open(sealed.envelope, { key: sealed.key, salt: sealed.salt });
      if (!sameBytes(opened.plaintext, input) || opened.kind !== kind) throw new Error(`round trip failed: ${kind} 2^${chunkLog2}`);
      const { envelope, key, salt } = sealed;
      sealed = undefined;
      const what = `envelope ${kind.padEnd(4)} chunkLog2=${chunkLog2}`;
      add('encrypt', 'envelope', `${what} seal`, () => seal(sealInput));
      add('decrypt', 'envelope', `${what} open`, () => open(envelope, { key, salt }));
    }
  }

  sampleRss();
  await runRoundRobin(cases, small ? WARMUP_SMALL : WARMUP_LARGE, small ? REPS_SMALL : REPS_LARGE, !small);
  sampleRss();
  for (const c of cases) {
    results.push({
      inputSize: size,
      direction: c.direction,
      impl: c.impl,
      label: c.label,
      piece: c.piece,
      medianMs: median(c.samples),
      minMs: Math.min(...c.samples),
      maxMs: Math.max(...c.samples),
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Fixed cost

interface FixedRow {
  label: string;
  ms: number[];
  note: string;
}

async function timeMany(reps: number, run: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < Math.min(20, reps); i++) await run();
  const out: number[] = [];
  for (let i = 0; i < reps; i++) {
    const start = performance.now();
    await run();
    out.push(performance.now() - start);
  }
  return out;
}

async function fixedCosts(): Promise<FixedRow[]> {
  const urlKey = randomBytes(32);
  const salt = randomBytes(16);
  const empty = new Uint8Array(0);
  const keys = await deriveKeys({ urlKey, salt, iterations: 0 });
  const header = await sealHeader(keys, { kind: 'text', passphrase: false, serverEncrypted: false, chunkLog2: 20, iterations: 0, salt });
  const emptySealed = await sealText('');
  const rows: FixedRow[] = [
    { label: 'seal empty text (no passphrase)', ms: await timeMany(FIXED_REPS, () => sealText('')), note: 'whole call' },
    {
      label: '  deriveKeys (HKDF x4, 3 importKey)',
      ms: await timeMany(FIXED_REPS, () => deriveKeys({ urlKey, salt, iterations: 0 })),
      note: 'part of it',
    },
    {
      label: '  sealHeader (HMAC-SHA-256)',
      ms: await timeMany(FIXED_REPS, () =>
        sealHeader(keys, { kind: 'text', passphrase: false, serverEncrypted: false, chunkLog2: 20, iterations: 0, salt }),
      ),
      note: 'part of it',
    },
    {
      label: '  encryptChunk (empty final chunk)',
      ms: await timeMany(FIXED_REPS, () => encryptChunk(keys, header, 0, true, empty)),
      note: 'part of it',
    },
    { label: '  claimVerifier (SHA-256)', ms: await timeMany(FIXED_REPS, () => claimVerifier(emptySealed.claimToken)), note: 'part of it' },
    {
      label: 'open empty text (no passphrase)',
      ms: await timeMany(FIXED_REPS, () => open(emptySealed.envelope, { key: emptySealed.key, salt: emptySealed.salt })),
      note: 'whole call',
    },
    {
      label: 'raw WebCrypto encrypt, 0 bytes',
      ms: await timeMany(FIXED_REPS, () => subtle.encrypt({ name: 'AES-GCM', iv: nonce(0, true), additionalData: aad }, webKey, empty)),
      note: 'per-call floor',
    },
    {
      label: 'raw node:crypto GCM, 0 bytes',
      ms: await timeMany(FIXED_REPS, async () => nodeEncrypt(empty, MiB)),
      note: 'per-call floor',
    },
  ];
  // PBKDF2 600,000 is ~110 ms: two runs only.
  const pass: number[] = [];
  for (let i = 0; i < 2; i++) {
    const start = performance.now();
    await sealText('', { passphrase: 'correct horse battery staple' });
    pass.push(performance.now() - start);
  }
  rows.push({ label: 'seal empty text with passphrase', ms: pass, note: 'PBKDF2-SHA-256 600,000; 2 runs' });
  return rows;
}

// ---------------------------------------------------------------------------------------------
// Printing

function sizeName(bytes: number): string {
  if (bytes >= MiB && bytes % MiB === 0) return `${bytes / MiB} MiB`;
  if (bytes >= KiB && bytes % KiB === 0) return `${bytes / KiB} KiB`;
  return `${bytes} B`;
}

const gibPerS = (bytes: number, ms: number) => bytes / GiB / (ms / 1000);
/** About three significant digits: the rows run from a fraction of a millisecond (fixed cost) to hundreds (64 MiB). */
const fmtMs = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms >= 1 ? ms.toFixed(2) : ms.toFixed(3));

function rawFor(result: Result, impl: Impl): Result | undefined {
  return results.find(
    (r) => r.inputSize === result.inputSize && r.direction === result.direction && r.impl === impl && r.piece === result.piece,
  );
}

function printThroughput(): void {
  for (const inputSize of INPUT_SIZES) {
    for (const direction of ['encrypt', 'decrypt'] as const) {
      const rows = results.filter((r) => r.inputSize === inputSize && r.direction === direction);
      const order = (r: Result) => ['copy', 'node', 'web', 'web4', 'webInto', 'floor', 'envelope'].indexOf(r.impl) * 1e12 - r.piece;
      rows.sort((a, b) => order(a) - order(b));
      console.log('');
      console.log(`${direction === 'encrypt' ? 'Encrypt (seal)' : 'Decrypt (open)'}, ${sizeName(inputSize)} input`);
      printTable(
        ['case', 'GCM ops', 'median ms', 'min-max ms', 'GiB/s', 'x node', 'x WebCrypto', 'x floor'],
        rows.map((r) => {
          const ratio = (impl: Impl) => {
            const raw = r.impl === 'envelope' ? rawFor(r, impl) : undefined;
            return raw ? fmtRatio(raw.medianMs / r.medianMs, 2) : '';
          };
          return [
            r.label,
            r.impl === 'copy' ? '0' : String(pieceCount(inputSize, r.piece)),
            fmtMs(r.medianMs),
            `${fmtMs(r.minMs)}-${fmtMs(r.maxMs)}`,
            gibPerS(inputSize, r.medianMs).toFixed(2),
            ratio('node'),
            ratio('web'),
            ratio('floor'),
          ];
        }),
        new Set([1, 2, 3, 4, 5, 6, 7]),
      );
    }
  }
}

function printHeadline(): void {
  console.log('');
  console.log('Headline: envelope throughput as a fraction of raw AES-256-GCM at the same chunk size');
  const rows = results
    .filter((r) => r.impl === 'envelope')
    .map((r) => {
      const node = rawFor(r, 'node')!;
      const web = rawFor(r, 'web')!;
      return [
        `${r.label} ${sizeName(r.inputSize)}`,
        gibPerS(r.inputSize, r.medianMs).toFixed(2),
        gibPerS(r.inputSize, web.medianMs).toFixed(2),
        gibPerS(r.inputSize, node.medianMs).toFixed(2),
        fmtRatio(web.medianMs / r.medianMs, 2),
        fmtRatio(node.medianMs / r.medianMs, 2),
      ];
    });
  printTable(['envelope case', 'GiB/s', 'WebCrypto GiB/s', 'node GiB/s', 'x WebCrypto', 'x node'], rows, new Set([1, 2, 3, 4, 5]));
}

/** Issue 33's target: every envelope case at least as fast as raw WebCrypto at its chunk size. */
function reportEnvelopeHeadlines(): void {
  reportHeadlines(
    'envelope',
    results
      .filter((r) => r.impl === 'envelope')
      .map((r) => {
        const ratio = rawFor(r, 'web')!.medianMs / r.medianMs;
        return {
          name: `${r.label.replace(/\s+/g, ' ')} ${sizeName(r.inputSize)} / raw WebCrypto`,
          value: fmtRatio(ratio, 2),
          target: '≥ 1.00x',
          met: ratio >= 1,
          note: `${fmtRatio(rawFor(r, 'floor')!.medianMs / r.medianMs, 2)} the floor; the floor is ${fmtRatio(rawFor(r, 'web')!.medianMs / rawFor(r, 'floor')!.medianMs, 2)} raw`,
        };
      }),
  );
}

function printFixed(rows: FixedRow[]): void {
  console.log('');
  console.log(`Fixed cost (median of ${FIXED_REPS} after warm-up, except the passphrase row)`);
  printTable(
    ['operation', 'median ms', 'min-max ms', 'note'],
    rows.map((row) => [row.label, fmtMs(median(row.ms)), `${fmtMs(Math.min(...row.ms))}-${fmtMs(Math.max(...row.ms))}`, row.note]),
    new Set([1, 2]),
  );
}

function printLegend(): void {
  console.log(`
Legend
  GCM ops      AES-GCM operations per input: pieces for raw rows, chunks for envelope rows.
  median ms    median wall time of one whole call over the input (seal/open: key derivation,
               header MAC, meta block, every chunk and writing it into the one output buffer).
  GiB/s        plaintext bytes / median time (1 GiB = 2^30 bytes).
  x node       envelope GiB/s divided by raw node:crypto GiB/s at the same piece size;
  x WebCrypto  ... divided by raw WebCrypto GiB/s at the same piece size (the headline:
               1.00x = the envelope adds nothing over the WebCrypto calls it must make).
  node:crypto  createCipheriv/createDecipheriv('aes-256-gcm') per piece, 32-byte AAD, tag
               checked; output buffers are not joined. "one piece" = the whole input at once.
  WebCrypto    crypto.subtle.encrypt/decrypt AES-GCM per piece on subarray views, awaited one
               after another (the issue's baseline); outputs are not joined.
  4 in flight  the same calls kept 4 at a time, as the envelope keeps them; outputs dropped.
  into one new buffer   ... each output written at its offset in one new buffer, as any seal
               or open that returns one Uint8Array must (WebCrypto cannot write into a given
               buffer; the new buffer's pages are faulted in as they are first written).
  floor        ... after deriving the keys from a fresh link key (HKDF x4, 3 importKey), and to
               open, checking an HMAC first (the format checks the header's MAC before any
               chunk): what the envelope cannot avoid. It adds its header, meta block and the
               link and claim tokens on top.
  x floor      envelope GiB/s divided by the floor's (1.00x = it adds nothing beyond it).
  envelope     seal({ kind, plaintext, chunkLog2, meta }) / open(envelope, { key, salt }) from
               shared/envelope; 'file' carries a meta block, 'text' does not.
  reference    new Uint8Array(input): the price of one extra copy of the input into fresh
               memory on this machine, for reading what the envelope's own copies cost.`);
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const started = performance.now();
  const loadAtStart = loadavg();
  for (const inputSize of INPUT_SIZES) {
    let input: Uint8Array<ArrayBuffer> | undefined = new Uint8Array(inputSize);
    randomFillSync(input);
    const pieces = [...new Set([inputSize, ...CHUNK_LOG2S.map((log2) => 2 ** log2)])].filter((p) => p <= inputSize).sort((a, b) => b - a);
    for (const piece of pieces) await phase(input, piece);
    input = undefined;
  }
  const fixed = await fixedCosts();
  sampleRss();

  console.log(
    `Hushlink envelope v1 bench (AES-256-GCM): ${REPS_LARGE} measured repetitions for 64 MiB, ${REPS_SMALL} for 1 MiB, after warm-up; round-robin`,
  );
  console.log(
    `Node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model.trim() ?? '?'}), UV_THREADPOOL_SIZE=${process.env.UV_THREADPOOL_SIZE ?? '4 (default)'}, load average at start ${fmtLoad(loadAtStart, '/')}, at end ${fmtLoad(loadavg(), '/')}`,
  );
  printThroughput();
  printHeadline();
  printFixed(fixed);
  printLegend();
  reportEnvelopeHeadlines();
  console.log('');
  console.log(
    `Total ${((performance.now() - started) / 1000).toFixed(1)} s; peak RSS ${(Math.max(peakRss, process.resourceUsage().maxRSS * 1024) / MiB).toFixed(0)} MiB.`,
  );
}

await main();
