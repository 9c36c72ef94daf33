/**
 * AES-256-GCM of one chunk with the payload key (docs/envelope.md, "Chunks"), made by a factory
 * given the key's bytes and the chunks' AAD. The envelope code defaults to WebCrypto's, which
 * every platform has; a caller with a faster one for the same bytes passes it (the CLI gives
 * node:crypto's: cli/transfer/nodeChunkCipher.ts, ADR 0184). The nonce is `chunkNonce(index,
 * final)`; the sealed chunk is the ciphertext followed by the 16-byte tag. Known-answer tests hold
 * every cipher to the same bytes (test/unit/envelope-cipher.test.ts).
 */
export interface ChunkCipher {
  /**
   * The sealed chunk in pieces whose concatenation is ciphertext || tag: node:crypto hands the
   * ciphertext and the tag apart, and a caller that sends them in turn needs no copy to join them.
   * `plaintext` must be read (or copied) before the call returns, not after an await: the CLI
   * reads files into a ring of reused buffers (cli/transfer/sealedStream.ts `fileChunks`).
   */
  encrypt(index: number, final: boolean, plaintext: Uint8Array): Promise<Uint8Array[]>;
  /** Rejects (with anything: the caller reports `tampered`) when the chunk does not authenticate. */
  decrypt(index: number, final: boolean, ciphertext: Uint8Array): Promise<Uint8Array>;
}

/** `key`: the payload key's 32 bytes; `aad`: the header without its MAC. */
export type ChunkCipherFactory = (key: Uint8Array, aad: Uint8Array) => ChunkCipher;
