import vectorFile from '../vectors/envelope-v1.json' with { type: 'json' };
import { fromBase64, fromBase64Url, seal } from '../../shared/envelope/index.ts';

export type Vector = (typeof vectorFile.vectors)[number];
export type NegativeCase = (typeof vectorFile.negative.cases)[number];
export const vectors: Vector[] = vectorFile.vectors;
export const negativeCases: NegativeCase[] = vectorFile.negative.cases;

export function plaintextOf(vector: Vector): Uint8Array {
  if (vector.plaintext.base64 !== undefined) return fromBase64(vector.plaintext.base64);
  return new Uint8Array(vector.plaintext.length).map((_, i) => i % 251);
}

/** Rebuilds a vector's envelope from its recipe (the envelope's nonces are deterministic). */
export async function rebuild(vector: Vector): Promise<Uint8Array> {
  const sealed = await seal({
    kind: vector.kind as 'text' | 'file',
    plaintext: plaintextOf(vector),
    urlKey: fromBase64Url(vector.key),
    salt: fromBase64Url(vector.salt),
    chunkLog2: vector.chunk_log2,
    ...(vector.passphrase ? { passphrase: vector.passphrase, iterations: vector.iterations } : {}),
    ...(vector.meta ? { meta: vector.meta } : {}),
  });
  return sealed.envelope;
}

/** Applies a negative case's mutation to the base envelope (a file envelope with a meta block). */
export function mutate(envelope: Uint8Array, mutation: NegativeCase['mutation']): Uint8Array {
  const view = new DataView(envelope.buffer, envelope.byteOffset, envelope.byteLength);
  const headerLength = view.getUint16(10);
  const chunkLog2 = envelope[8]!;
  const metaLength = view.getUint32(headerLength);
  const firstChunk = headerLength + 4 + metaLength;
  const full = 2 ** chunkLog2 + 16;
  const chunks: Uint8Array[] = [];
  for (let start = firstChunk; start < envelope.length; start += full)
    chunks.push(envelope.slice(start, Math.min(start + full, envelope.length)));
  const prefix = envelope.slice(0, firstChunk);
  const join = (parts: Uint8Array[]) => {
    const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
    let offset = 0;
    for (const part of parts) out.set(part, offset), (offset += part.length);
    return out;
  };
  const m = mutation as unknown as Record<string, number | string>;
  switch (m.type) {
    case 'drop_chunks_from':
      return join([prefix, ...chunks.slice(0, m.chunk as number)]);
    case 'drop_tail_bytes':
      return envelope.slice(0, envelope.length - (m.count as number));
    case 'swap_chunks': {
      const swapped = [...chunks];
      [swapped[m.a as number], swapped[m.b as number]] = [chunks[m.b as number]!, chunks[m.a as number]!];
      return join([prefix, ...swapped]);
    }
    case 'append_chunk_copy':
      return join([prefix, ...chunks, chunks[m.chunk as number]!]);
    case 'duplicate_chunk':
      return join([
        prefix,
        ...chunks.slice(0, (m.chunk as number) + 1),
        chunks[m.chunk as number]!,
        ...chunks.slice((m.chunk as number) + 1),
      ]);
    case 'flip_bit': {
      const out = envelope.slice();
      out[m.offset as number]! ^= 1 << (m.bit as number);
      return out;
    }
    case 'set_byte': {
      const out = envelope.slice();
      out[m.offset as number] = m.value as number;
      return out;
    }
    default:
      throw new Error(`unknown mutation ${String(m.type)}`);
  }
}
