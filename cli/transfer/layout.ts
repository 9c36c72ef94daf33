import { TAG_BYTES } from '../../shared/envelope/index.ts';

/**
 * Where everything is in a file's envelope and in its upload's parts. The envelope is the
 * prefix (header and meta block, `prefixBytes` long) then the chunks, each `chunkBytes` of
 * plaintext plus a tag; part p is envelope bytes [(p-1)·partSize, p·partSize). A part holds a
 * whole number of chunks' worth of bytes, but the prefix shifts its boundaries inside chunks.
 */
export interface EnvelopeLayout {
  /** Plaintext bytes of the file. */
  size: number;
  prefixBytes: number;
  chunkBytes: number;
  chunkCipherBytes: number;
  chunkCount: number;
  envelopeBytes: number;
  partSize: number;
  partCount: number;
}

export function envelopeLayout(input: { size: number; prefixBytes: number; chunkBytes: number; partSize: number }): EnvelopeLayout {
  const chunkCount = Math.max(1, Math.ceil(input.size / input.chunkBytes));
  const envelopeBytes = input.prefixBytes + input.size + chunkCount * TAG_BYTES;
  return {
    ...input,
    chunkCipherBytes: input.chunkBytes + TAG_BYTES,
    chunkCount,
    envelopeBytes,
    partCount: Math.max(1, Math.ceil(envelopeBytes / input.partSize)),
  };
}

/** Envelope bytes [start, end) of part `partNumber` (1-based). */
export function partRange(layout: EnvelopeLayout, partNumber: number): { start: number; end: number } {
  const start = (partNumber - 1) * layout.partSize;
  return { start, end: Math.min(layout.envelopeBytes, start + layout.partSize) };
}

/** The chunk holding envelope byte `offset` (past the prefix), and how far into its ciphertext. */
export function chunkAt(layout: EnvelopeLayout, offset: number): { index: number; skip: number } {
  const body = offset - layout.prefixBytes;
  const index = Math.min(layout.chunkCount - 1, Math.floor(body / layout.chunkCipherBytes));
  return { index, skip: body - index * layout.chunkCipherBytes };
}

/** Plaintext bytes of chunk `index`: every chunk is full but the last (an empty file is one empty chunk). */
export const plaintextBytesOf = (layout: EnvelopeLayout, index: number): number =>
  Math.max(0, Math.min(layout.chunkBytes, layout.size - index * layout.chunkBytes));
