/**
 * What bench/cli.ts measures the command-line client against: `openssl speed` (the issue's
 * baseline) and the ceilings that explain the CLI's figure, each ceiling in a process of its own
 * (this file, forked): the CLI's seal alone, and raw AES-256-GCM over 1 MiB chunks with no I/O.
 */
import { execFile, fork } from 'node:child_process';
import { createCipheriv, createSecretKey, randomBytes } from 'node:crypto';
import { closeSync, openSync, writeSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { madeGarbage } from '../cli/transfer/garbage.ts';

const MiB = 1024 * 1024;
/** openssl counts in thousands of bytes, so every throughput of the bench is in MB of 10^6 bytes. */
export const MB = 1e6;
export const OPENSSL_SECONDS = 3;
export const OPENSSL_BLOCK = 16384;
/** Bytes each raw-crypto ceiling encrypts per repetition, in chunks of the envelope's default size. */
export const CEILING_BYTES = 1024 * MiB;
const CHUNK = MiB;
export const CEILING_REPS = 3;

// ---------------------------------------------------------------------------------------------
// openssl

export interface OpensslRun {
  mbps: number;
  version: string;
}

/**
 * `openssl speed` divides by the user CPU time it used unless told `-elapsed`: the baseline is
 * the command as written, the wall-clock run (which slows with the machine's load, as
 * every other figure of the bench does) is printed beside it.
 */
export async function opensslSpeed(clock: 'cpu' | 'elapsed'): Promise<OpensslRun> {
  const args = [
    'speed',
    ...(clock === 'elapsed' ? ['-elapsed'] : []),
    '-evp',
    'aes-256-gcm',
    '-bytes',
    String(OPENSSL_BLOCK),
    '-seconds',
    String(OPENSSL_SECONDS),
  ];
  // Not execFileSync: a Ctrl-C must reach the bench's handler (which removes its files) while openssl runs.
  const { stdout } = await run('openssl', args);
  const figure = /^AES-256-GCM\s+([\d.]+)k\s*$/m.exec(stdout);
  if (!figure) throw new Error(`openssl speed printed no AES-256-GCM figure:\n${stdout}`);
  const version = (await run('openssl', ['version'])).stdout.trim();
  return { mbps: (Number(figure[1]) * 1000) / MB, version };
}

const run = promisify(execFile);

// ---------------------------------------------------------------------------------------------
// The ceilings: MB of plaintext per second and per CPU second, per repetition

export type Ceiling = 'seal' | 'node-crypto' | 'webcrypto';

/** MB per second, and per second of CPU time (the process's, the thread pool's included), of each repetition. */
export interface CeilingRates {
  wall: number[];
  cpu: number[];
}

/** Measures one ceiling in a fresh process; `seal` reads the file at `path` (`size` bytes). */
export async function measureCeiling(kind: Ceiling, path = '', size = 0): Promise<CeilingRates> {
  const child = fork(fileURLToPath(import.meta.url), [kind, path, String(size)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const rates = await new Promise<CeilingRates>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the ${kind} ceiling's process exited (${code}) before answering`)));
    child.once('message', (reply) => resolve(reply as CeilingRates));
  });
  if ((await exited) !== 0) throw new Error(`the ${kind} ceiling's process failed`);
  return rates;
}

async function ceilingProcess(kind: Ceiling, path: string, size: number): Promise<void> {
  const once = kind === 'seal' ? () => sealOnce(path, size) : kind === 'node-crypto' ? async () => nodeCryptoOnce() : webCryptoOnce;
  const megabytes = (kind === 'seal' ? size : CEILING_BYTES) / MB;
  await once(); // a warm-up: the modules' first use, the file in the page cache
  const rates: CeilingRates = { wall: [], cpu: [] };
  for (let rep = 0; rep < CEILING_REPS; rep += 1) {
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await once();
    const wallSeconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    rates.wall.push(megabytes / wallSeconds);
    rates.cpu.push(megabytes / ((cpu.user + cpu.system) / 1e6));
  }
  process.send!(rates);
}

/** The file sealed as `hushlink send` seals it, parts cut into one reused buffer, written to /dev/null. */
async function sealOnce(path: string, size: number): Promise<void> {
  const { chunkLog2Range, fileSealer } = await import('../shared/envelope/index.ts');
  const { partsOf } = await import('../shared/domain/files/upload.ts');
  const { envelopeLayout, partRange } = await import('../cli/transfer/layout.ts');
  const { fileChunks, SealedReader } = await import('../cli/transfer/sealedStream.ts');
  const { nodeChunkCipher } = await import('../cli/transfer/nodeChunkCipher.ts');
  const sealer = await fileSealer({ meta: { name: 'bench.bin', type: 'application/octet-stream', size }, chunkCipher: nodeChunkCipher });
  const { partSize } = partsOf(sealer.envelopeSize(size), chunkLog2Range.default);
  const layout = envelopeLayout({ size, prefixBytes: sealer.prefix.length, chunkBytes: sealer.chunkBytes, partSize });
  const reader = new SealedReader(sealer, layout, fileChunks(path, layout, 0), 0);
  const part = Buffer.allocUnsafe(partSize);
  const sink = openSync('/dev/null', 'w');
  try {
    for (let number = 1; number <= layout.partCount; number += 1) {
      const { start, end } = partRange(layout, number);
      const target = part.subarray(0, end - start);
      await reader.read(target);
      writeSync(sink, target);
    }
  } finally {
    closeSync(sink);
    await reader.close();
  }
}

/** The envelope's nonce for chunk `index`: 3 zero bytes, the index as a big-endian u64, the final flag. */
function nonce(index: number, final: boolean): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(12);
  new DataView(bytes.buffer).setBigUint64(3, BigInt(index));
  bytes[11] = final ? 1 : 0;
  return bytes;
}

const key = randomBytes(32);
const aad = randomBytes(32) as Uint8Array<ArrayBuffer>;
/**
 * One chunk, encrypted over and over: the seal's chunks are as warm in the cache, each read into
 * its buffer just before it is sealed. (Distinct chunks from a 256 MiB buffer, past the cache,
 * made raw node:crypto 3x slower here than the seal it is to bound.)
 */
const chunk = randomBytes(CHUNK) as Uint8Array<ArrayBuffer>;
const chunks = CEILING_BYTES / CHUNK;

const nodeKey = createSecretKey(key);

/**
 * One cipher per chunk, as an envelope chunk is sealed: own nonce, AAD, tag. The key is imported
 * once and dead outputs are collected as the CLI's cipher has them collected (madeGarbage):
 * without that, a fresh output per chunk costs page faults and long collections the CLI does not
 * pay, and the raw ceiling would be slower than the CLI that does more on top of it.
 */
function nodeCryptoOnce(): void {
  for (let i = 0; i < chunks; i += 1) {
    const cipher = createCipheriv('aes-256-gcm', nodeKey, nonce(i, i === chunks - 1), { authTagLength: 16 });
    cipher.setAAD(aad);
    madeGarbage(cipher.update(chunk).length);
    cipher.final();
    cipher.getAuthTag();
  }
}

/** `crypto.subtle.encrypt` per chunk, two running ahead of the one awaited, as SealedReader keeps them. */
async function webCryptoOnce(): Promise<void> {
  const subtle = globalThis.crypto.subtle;
  const webKey = await subtle.importKey('raw', key, 'AES-GCM', false, ['encrypt']);
  const running: Array<Promise<ArrayBuffer>> = [];
  for (let i = 0; i < chunks || running.length > 0; ) {
    while (running.length < 2 && i < chunks) {
      running.push(subtle.encrypt({ name: 'AES-GCM', iv: nonce(i, i === chunks - 1), additionalData: aad }, webKey, chunk));
      i += 1;
    }
    await running.shift();
  }
}

// Forked by measureCeiling: this file is then the process's entry.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [kind, path, size] = process.argv.slice(2);
  void ceilingProcess(kind as Ceiling, path!, Number(size));
}
