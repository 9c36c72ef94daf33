/**
 * Writes the envelope v1 known-answer vectors (`npx tsx test/vectors/generate.ts`). Run it
 * only when the format changes on purpose: the committed JSON is what other clients check
 * against, and `test/unit/envelope-vectors.test.ts` recomputes every vector independently.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { seal, toBase64, toBase64Url } from '../../shared/envelope/index.ts';

const key = new Uint8Array(32).map((_, i) => i); // 00 01 02 … 1f
const salt = new Uint8Array(16).map((_, i) => 0xa0 + i); // a0 … af
const patterned = (length: number) => new Uint8Array(length).map((_, i) => i % 251);

interface Case {
  name: string;
  description: string;
  kind: 'text' | 'file';
  plaintext: Uint8Array;
  passphrase?: string;
  chunkLog2?: number;
  meta?: { name: string; type: string; size: number };
  /** Large outputs are given by hash and header instead of in full. */
  byHash?: boolean;
}

const cases: Case[] = [
  {
    name: 'text-basic',
    description: 'text, no passphrase, one final chunk',
    kind: 'text',
    plaintext: new TextEncoder().encode('Hello, Hushlink! 🔐'),
  },
  { name: 'text-empty', description: 'empty text: one final chunk holding only its tag', kind: 'text', plaintext: new Uint8Array(0) },
  {
    name: 'text-passphrase',
    description: 'text with passphrase "correct horse battery staple" (NFC), PBKDF2 600000',
    kind: 'text',
    plaintext: new TextEncoder().encode('passphrase-protected'),
    passphrase: 'correct horse battery staple',
  },
  {
    name: 'file-three-chunks',
    description: 'file, chunk_log2 16, plaintext byte i = i mod 251, 2 full chunks and a final one of 100 bytes',
    kind: 'file',
    plaintext: patterned(2 * 65536 + 100),
    chunkLog2: 16,
    meta: { name: 'report.pdf', type: 'application/pdf', size: 2 * 65536 + 100 },
    byHash: true,
  },
  {
    name: 'file-exact-chunk',
    description: 'file, chunk_log2 16, plaintext exactly one chunk (65536 bytes): the full chunk is the final one',
    kind: 'file',
    plaintext: patterned(65536),
    chunkLog2: 16,
    meta: { name: 'a.bin', type: 'application/octet-stream', size: 65536 },
    byHash: true,
  },
];

const vectors = [];
for (const item of cases) {
  const sealed = await seal({
    kind: item.kind,
    plaintext: item.plaintext,
    urlKey: key,
    salt,
    ...(item.passphrase ? { passphrase: item.passphrase } : {}),
    ...(item.chunkLog2 ? { chunkLog2: item.chunkLog2 } : {}),
    ...(item.meta ? { meta: item.meta } : {}),
  });
  const headerLength = new DataView(sealed.envelope.buffer).getUint16(10);
  vectors.push({
    name: item.name,
    description: item.description,
    kind: item.kind,
    key: toBase64Url(key),
    salt: toBase64Url(salt),
    passphrase: item.passphrase ?? null,
    iterations: item.passphrase ? 600000 : 0,
    chunk_log2: item.chunkLog2 ?? 20,
    meta: item.meta ?? null,
    plaintext: item.byHash ? { pattern: 'i mod 251', length: item.plaintext.length } : { base64: toBase64(item.plaintext) },
    claim_token: sealed.claimToken,
    claim_verifier: sealed.claimVerifier,
    link_token: sealed.linkToken,
    link_verifier: sealed.linkVerifier,
    header_hex: Buffer.from(sealed.envelope.subarray(0, headerLength)).toString('hex'),
    envelope_length: sealed.envelope.length,
    envelope_sha256: createHash('sha256').update(sealed.envelope).digest('hex'),
    ...(item.byHash ? {} : { envelope_base64: toBase64(sealed.envelope) }),
  });
}
/**
 * Negative vectors: mutations of the `file-three-chunks` envelope (regenerate it from its
 * recipe and check its SHA-256 first). Offsets are into the whole envelope; chunk indexes
 * count from the first chunk after the meta block.
 */
const negative = [
  { name: 'truncated-final-chunk', mutation: { type: 'drop_chunks_from', chunk: 2 }, error: 'tampered' },
  { name: 'truncated-inside-tag', mutation: { type: 'drop_tail_bytes', count: 10 }, error: 'tampered' },
  { name: 'reordered-chunks', mutation: { type: 'swap_chunks', a: 0, b: 1 }, error: 'tampered' },
  { name: 'extra-chunk-after-final', mutation: { type: 'append_chunk_copy', chunk: 1 }, error: 'tampered' },
  { name: 'duplicated-chunk', mutation: { type: 'duplicate_chunk', chunk: 0 }, error: 'tampered' },
  { name: 'flipped-body-bit', mutation: { type: 'flip_bit', offset: 70000, bit: 0 }, error: 'tampered' },
  { name: 'flipped-meta-bit', mutation: { type: 'flip_bit', offset: 70, bit: 3 }, error: 'tampered' },
  { name: 'flipped-reserved-flag', mutation: { type: 'flip_bit', offset: 6, bit: 7 }, error: 'malformed' },
  { name: 'flipped-header-mac-bit', mutation: { type: 'flip_bit', offset: 63, bit: 0 }, error: 'wrong_key' },
  { name: 'flipped-salt-bit', mutation: { type: 'flip_bit', offset: 20, bit: 1 }, error: 'salt_mismatch' },
  { name: 'unknown-version', mutation: { type: 'set_byte', offset: 4, value: 2 }, error: 'unsupported_version' },
  { name: 'chunk-size-out-of-range', mutation: { type: 'set_byte', offset: 8, value: 25 }, error: 'malformed' },
  { name: 'not-an-envelope', mutation: { type: 'set_byte', offset: 0, value: 0 }, error: 'not_envelope' },
];

writeFileSync(
  new URL('./envelope-v1.json', import.meta.url),
  `${JSON.stringify({ format: 'hushlink envelope v1', vectors, negative: { base: 'file-three-chunks', cases: negative } }, null, 2)}\n`,
);
console.log(`wrote ${vectors.length} vectors`);
