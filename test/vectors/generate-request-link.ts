/**
 * Writes the request-link known-answer vectors (`npx tsx test/vectors/generate-request-link.ts`).
 * Run it only when the derivations change on purpose: the committed JSON is what other clients
 * check against. `test/unit/request-link.test.ts` recomputes the fingerprints and derived
 * secrets with node:crypto, and (with `test/e2e/request-link-vectors.e2e.ts` in Chromium)
 * rebuilds every wrap and prompt and opens them with the committed private keys.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { CipherSuite, DhkemP256HkdfSha256, DhkemX25519HkdfSha256, HkdfSha256, Aes256Gcm } from '@hpke/core';
import {
  deriveRequestSecrets,
  exportRequesterKeys,
  publicKeyFingerprint,
  requestFragment,
  sealPrompt,
  sealText,
  toBase64,
  toBase64Url,
  wrapResponseKey,
  type RequestKem,
} from '../../shared/envelope/index.ts';

const bytes = (start: number) => new Uint8Array(32).map((_, i) => (start + i) & 0xff);
const requestId = 'rq_vector_0001';
const prompt = 'Please send the staging database password. 🔑';
const response = 'correct horse battery staple';
const promptSalt = new Uint8Array(16).map((_, i) => 0xa0 + i);
const responseSalt = new Uint8Array(16).map((_, i) => 0xb0 + i);

const vectors = [];
for (const [kem, offset] of [
  ['x25519', 0],
  ['p256', 0x08],
] as [RequestKem, number][]) {
  // The requester's key pair from a fixed ikm (RFC 9180 DeriveKeyPair), so it can be committed.
  const suite = new CipherSuite({
    kem: kem === 'x25519' ? new DhkemX25519HkdfSha256() : new DhkemP256HkdfSha256(),
    kdf: new HkdfSha256(),
    aead: new Aes256Gcm(),
  });
  const ikmR = bytes(0x40 + offset);
  const pair = await suite.kem.deriveKeyPair(ikmR);
  const publicKey = new Uint8Array(await suite.kem.serializePublicKey(pair.publicKey));
  const keys = await exportRequesterKeys({ kem, publicKey, privateKey: pair.privateKey });
  const fingerprint = await publicKeyFingerprint(publicKey);
  const linkSecret = bytes(0x80 + offset);
  const link = { fingerprint, linkSecret };
  const { psk, promptKey } = await deriveRequestSecrets(link);
  const sealedPrompt = await sealPrompt(prompt, link, { salt: promptSalt });

  const responseKey = bytes(0x60 + offset);
  const ephemeralIkm = bytes(0x20 + offset);
  const wrap = await wrapResponseKey({ requestId, kem, publicKey, ...link, responseKey, ephemeralIkm });
  const sealedResponse = await sealText(response, { urlKey: responseKey, salt: responseSalt });

  // Negative cases: what someone holding the public key but not `s` can make, and a wrap for another request.
  const otherSecret = bytes(0xc0 + offset);
  const forged = await wrapResponseKey({ requestId, kem, publicKey, fingerprint, linkSecret: otherSecret, responseKey, ephemeralIkm });
  const otherRequest = await wrapResponseKey({ requestId: 'rq_vector_0002', kem, publicKey, ...link, responseKey, ephemeralIkm });

  vectors.push({
    name: `${kem}-text-response`,
    kem,
    requester: { ikmR: toBase64Url(ikmR), ...keys },
    fingerprint,
    link_secret: toBase64Url(linkSecret),
    fragment: requestFragment(fingerprint, linkSecret),
    psk: toBase64Url(psk),
    prompt_key: toBase64Url(promptKey),
    prompt: { text: prompt, salt: sealedPrompt.salt, envelope_base64: toBase64(sealedPrompt.envelope) },
    request_id: requestId,
    response: {
      response_key: toBase64Url(responseKey),
      ephemeral_ikm: toBase64Url(ephemeralIkm),
      enc: wrap.enc,
      wrapped_key: wrap.wrappedKey,
      text: response,
      salt: sealedResponse.salt,
      envelope_base64: toBase64(sealedResponse.envelope),
      envelope_sha256: createHash('sha256').update(sealedResponse.envelope).digest('hex'),
    },
    negative: [
      {
        name: 'forged-without-link-secret',
        description: 'wrapped with the public key and another s (bytes c0…)',
        request_id: requestId,
        enc: forged.enc,
        wrapped_key: forged.wrappedKey,
        error: 'forged',
      },
      {
        name: 'wrapped-for-another-request',
        description: 'the right s, request id rq_vector_0002',
        request_id: requestId,
        enc: otherRequest.enc,
        wrapped_key: otherRequest.wrappedKey,
        error: 'forged',
      },
    ],
  });
}

writeFileSync(
  new URL('./request-link.json', import.meta.url),
  `${JSON.stringify(
    {
      format: 'hushlink request links v1 (docs/envelope.md, "Request links")',
      notes:
        'Byte strings are base64url unless named _base64. HPKE: DHKEM(kem, HKDF-SHA256), HKDF-SHA256, AES-256-GCM, mode PSK, psk_id "hushlink/v1/request-link", info "hushlink/v1/response-key/" + request_id, empty AAD; the ephemeral key pair from DeriveKeyPair(ephemeral_ikm).',
      vectors,
    },
    null,
    2,
  )}\n`,
);
console.log(`wrote ${vectors.length} vectors`);
