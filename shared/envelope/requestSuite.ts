import { Aes256Gcm, CipherSuite, DhkemP256HkdfSha256, DhkemX25519HkdfSha256, HkdfSha256 } from '@hpke/core';

/**
 * The HPKE suite of request links: DHKEM(X25519 or P-256, HKDF-SHA256), HKDF-SHA256, AES-256-GCM.
 * requestLink.ts loads this file by dynamic import: @hpke/core's modules are not marked free of
 * side effects (its esm/package.json has no `sideEffects`), so a static import would leave some
 * of it in every bundle that imports the envelope, request links or not.
 */
export function requestSuite(kem: 'x25519' | 'p256'): CipherSuite {
  return new CipherSuite({
    kem: kem === 'x25519' ? new DhkemX25519HkdfSha256() : new DhkemP256HkdfSha256(),
    kdf: new HkdfSha256(),
    aead: new Aes256Gcm(),
  });
}
