import { nodeCrypto } from '../src/nodeCrypto.ts';
import { chunkNonce, TAG_BYTES, type ChunkCipherFactory } from '../../shared/envelope/index.ts';
import { madeGarbage } from './garbage.ts';

/**
 * The chunks' AES-256-GCM through node:crypto rather than WebCrypto, for the same bytes
 * (test/unit/envelope-cipher.test.ts holds them to WebCrypto's and to the vectors). WebCrypto in
 * Node copies each chunk into a job for the thread pool and back, and its threads' malloc
 * arenas swell the peak RSS; this runs OpenSSL on the caller's thread, and hands the ciphertext
 * and its tag apart so that nothing copies them together (ADR 0184).
 */
export const nodeChunkCipher: ChunkCipherFactory = (key, aad) => {
  const secret = nodeCrypto().createSecretKey(key);
  return {
    async encrypt(index, final, plaintext) {
      const cipher = nodeCrypto().createCipheriv('aes-256-gcm', secret, chunkNonce(index, final), { authTagLength: TAG_BYTES });
      cipher.setAAD(aad);
      const body = cipher.update(plaintext);
      cipher.final();
      madeGarbage(body.length);
      return body.length === 0 ? [cipher.getAuthTag()] : [body, cipher.getAuthTag()];
    },
    async decrypt(index, final, ciphertext) {
      const decipher = nodeCrypto().createDecipheriv('aes-256-gcm', secret, chunkNonce(index, final), { authTagLength: TAG_BYTES });
      decipher.setAAD(aad);
      decipher.setAuthTag(ciphertext.subarray(ciphertext.length - TAG_BYTES));
      const plaintext = decipher.update(ciphertext.subarray(0, ciphertext.length - TAG_BYTES));
      decipher.final(); // throws when the tag does not match: nothing of the plaintext is used then
      madeGarbage(plaintext.length);
      return plaintext;
    },
  };
};
