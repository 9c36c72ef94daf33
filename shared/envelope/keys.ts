import { buf, concatBytes, fromBase64Url, toBase64Url, utf8 } from './bytes.ts';
import { KEY_BYTES } from './format.ts';

export interface EnvelopeKeys {
  /** HMAC-SHA-256 key of the header MAC. */
  header: CryptoKey;
  /** AES-256-GCM key of the chunks. */
  payload: CryptoKey;
  /**
   * The same key's 32 bytes, for a chunk cipher other than WebCrypto's (chunkCipher.ts): HKDF
   * gives them anyway, and keeping them spares a non-extractable key's export. They were in this
   * memory already (deriveBits returns bytes), as the link's key itself is; nothing stores, logs
   * or sends them, and they go with the keys object when the seal or open is done.
   */
  payloadBytes: Uint8Array;
  /** AES-256-GCM key of a file's name/type/size block. */
  meta: CryptoKey;
  /** Presented when claiming; the server keeps only its SHA-256 (`claim_verifier`). */
  claimToken: string;
}

export interface KeyMaterial {
  /** The 32-byte key of the link's fragment. */
  urlKey: Uint8Array;
  salt: Uint8Array;
  passphrase?: string | undefined;
  /** PBKDF2 iterations; used only with a passphrase. */
  iterations: number;
}

const subtle = () => globalThis.crypto.subtle;
const label = (name: string) => utf8.encode(`hushlink/v1/${name}`);

/**
 * K_pw = PBKDF2-SHA-256(NFC(passphrase), "hushlink/v1/pw" || salt). It is added to the URL key,
 * never instead of it: whoever holds ciphertext and salt without the link cannot test guesses.
 */
async function passphraseKey(passphrase: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  const base = await subtle().importKey('raw', buf(utf8.encode(passphrase.normalize('NFC'))), 'PBKDF2', false, ['deriveBits']);
  const bits = await subtle().deriveBits(
    { name: 'PBKDF2', hash: 'SHA-256', salt: buf(concatBytes(label('pw'), salt)), iterations },
    base,
    256,
  );
  return new Uint8Array(bits);
}

export async function deriveKeys(material: KeyMaterial): Promise<EnvelopeKeys> {
  if (material.urlKey.length !== KEY_BYTES) throw new Error('the URL key must be 32 bytes');
  const ikm =
    material.passphrase === undefined
      ? material.urlKey
      : concatBytes(material.urlKey, await passphraseKey(material.passphrase, material.salt, material.iterations));
  const hkdf = await subtle().importKey('raw', buf(ikm), 'HKDF', false, ['deriveBits']);
  const derive = async (name: string) =>
    new Uint8Array(
      await subtle().deriveBits({ name: 'HKDF', hash: 'SHA-256', salt: buf(material.salt), info: buf(label(name)) }, hkdf, 256),
    );
  const [header, payload, meta, claim] = await Promise.all(['header', 'payload', 'meta', 'claim'].map(derive));
  const [headerKey, payloadKey, metaKey] = await Promise.all([
    subtle().importKey('raw', buf(header!), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']),
    subtle().importKey('raw', buf(payload!), 'AES-GCM', false, ['encrypt', 'decrypt']),
    subtle().importKey('raw', buf(meta!), 'AES-GCM', false, ['encrypt', 'decrypt']),
  ]);
  return { header: headerKey, payload: payloadKey, payloadBytes: payload!, meta: metaKey, claimToken: toBase64Url(claim!) };
}

/** What the creator sends as `claim_verifier`: base64url(SHA-256(claim token bytes)). */
export async function claimVerifier(claimToken: string): Promise<string> {
  return toBase64Url(new Uint8Array(await subtle().digest('SHA-256', buf(fromBase64Url(claimToken)))));
}

/**
 * The link token: `HKDF-SHA-256(K_url, salt, "hushlink/v1/link")`, from the link key alone (never
 * the passphrase), so it proves the link was held however the passphrase was typed. A refused
 * claim counts towards the lock only with it; an id alone never does. The creator sends
 * `link_verifier` = base64url(SHA-256(link token)), computed the same way as the claim verifier.
 */
export async function linkToken(urlKey: Uint8Array, salt: Uint8Array): Promise<string> {
  if (urlKey.length !== KEY_BYTES) throw new Error('the URL key must be 32 bytes');
  const hkdf = await subtle().importKey('raw', buf(urlKey), 'HKDF', false, ['deriveBits']);
  return toBase64Url(
    new Uint8Array(await subtle().deriveBits({ name: 'HKDF', hash: 'SHA-256', salt: buf(salt), info: buf(label('link')) }, hkdf, 256)),
  );
}
