import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunkAt, envelopeLayout, partRange } from '../../cli/transfer/layout.ts';
import { nodeChunkCipher } from '../../cli/transfer/nodeChunkCipher.ts';
import { fileChunks, SealedReader } from '../../cli/transfer/sealedStream.ts';
import { fileSealer, seal } from '../../shared/envelope/index.ts';

// The upload's sealed stream as the CLI runs it: chunks read into a ring of reused buffers and
// sealed with node:crypto, cut into parts from the start (an upload) or from any part (a resume).

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'hushlink-cli-sealed-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

async function setUp(size: number, partSize: number) {
  const plaintext = randomBytes(size);
  const path = join(folder, `file-${size}-${partSize}.bin`);
  await writeFile(path, plaintext);
  const [urlKey, salt] = [randomBytes(32), randomBytes(16)];
  const meta = { name: 'a.bin', type: 'application/octet-stream', size };
  const sealer = await fileSealer({ meta, chunkLog2: 16, urlKey, salt, chunkCipher: nodeChunkCipher });
  const layout = envelopeLayout({ size, prefixBytes: sealer.prefix.length, chunkBytes: sealer.chunkBytes, partSize });
  const expected = Buffer.from((await seal({ kind: 'file', plaintext, meta, chunkLog2: 16, urlKey, salt })).envelope);
  return { path, sealer, layout, expected };
}

describe("the CLI's sealed stream", () => {
  // Parts shorter than a chunk, spanning several, and one for the whole envelope; an empty file.
  for (const [size, partSize] of [
    [0, 1000],
    [5 * 65_536 + 123, 20_000],
    [5 * 65_536 + 123, 150_000],
    [4 * 65_536, 1 << 20],
  ] as const) {
    it(`cuts the envelope seal() makes into parts of ${partSize} bytes, from the start and from each part (${size} bytes)`, async () => {
      const { path, sealer, layout, expected } = await setUp(size, partSize);
      const whole = new SealedReader(sealer, layout, fileChunks(path, layout, 0), 0, {});
      const parts: Buffer[] = [];
      try {
        for (let number = 1; number <= layout.partCount; number += 1) {
          const { start, end } = partRange(layout, number);
          const part = Buffer.alloc(end - start);
          await whole.read(part);
          parts.push(part);
        }
      } finally {
        await whole.close();
      }
      expect(Buffer.concat(parts).equals(expected)).toBe(true);

      for (let number = 1; number <= layout.partCount; number += 1) {
        const { start, end } = partRange(layout, number);
        const first = start === 0 ? 0 : chunkAt(layout, start).index;
        const last = chunkAt(layout, end - 1).index;
        const reader = new SealedReader(sealer, layout, fileChunks(path, layout, first, last), start, { lastChunk: last });
        const part = Buffer.alloc(end - start);
        try {
          await reader.read(part);
        } finally {
          await reader.close();
        }
        expect(part.equals(expected.subarray(start, end)), `part ${number}`).toBe(true);
      }
    });
  }

  it('reports a file that shrank while it was read as changed', async () => {
    const { path, sealer, layout } = await setUp(3 * 65_536, 1 << 20);
    await truncate(path, 2 * 65_536 + 10);
    const reader = new SealedReader(sealer, layout, fileChunks(path, layout, 0), 0, {});
    try {
      await expect(reader.read(Buffer.alloc(layout.envelopeBytes))).rejects.toMatchObject({ code: 'file_changed' });
    } finally {
      await reader.close();
    }
  });
});
