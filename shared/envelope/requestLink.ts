import type { CipherSuite } from '@hpke/core';
import { buf, equalBytes, fromBase64Url, randomBytes, toBase64Url, utf8 } from './bytes.ts';
import { sealText, openText } from './envelope.ts';
import { EnvelopeError } from './errors.ts';
import { KEY_BYTES, parseHeader } from './format.ts';

/**
 * Request links (docs/envelope.md, "Request links"): a requester's device holds an HPKE key
 * pair; the link's fragment `#<fp>.<s>` names the public key by its SHA-256 and carries a
 * secret `s` from which the HPKE PSK and the prompt's key are derived. Responders seal a normal
 * envelope under a fresh key and wrap that key to the requester (HPKE, PSK mode), so neither
 * the server nor anyone holding only the public key can read a response or make one the
 * requester accepts.
 */

export type RequestKem = 'x25519' | 'p256';

export interface RequesterKeys {
  kem: RequestKem;
  /** The serialized public key: 32 raw bytes (X25519) or the 65-byte uncompressed P-256 point. */
  publicKey: Uint8Array;
  privateKey: CryptoKey;
}

export interface RequestLink {
  /** base64url of SHA-256 of the public key, 43 characters. */
  fingerprint: string;
  /** `s`: 32 random bytes. */
  linkSecret: Uint8Array;
}

/** RFC 9180 KEM ids: DHKEM(X25519, HKDF-SHA256), DHKEM(P-256, HKDF-SHA256). */
export const requestKemIds: Record<RequestKem, number> = { x25519: 0x0020, p256: 0x0010 };
/** Bytes of a serialized public key (and of `enc`, which is one). */
export const requestPublicKeyBytes: Record<RequestKem, number> = { x25519: 32, p256: 65 };
export const LINK_SECRET_BYTES = 32;
export const FINGERPRINT_BYTES = 32;
/** The wrapped key: the 32-byte URL key and AES-256-GCM's 16-byte tag. */
export const WRAPPED_KEY_BYTES = KEY_BYTES + 16;

// Nothing at the top level calls a function, so bundles that import the envelope without
// request links (the Lambdas, the other pages) drop this module, and with it @hpke/core.

/** HPKE's psk_id (UTF-8): fixed, since the PSK itself is per link. */
export const REQUEST_PSK_ID = 'hushlink/v1/request-link';
const pskLabel = 'hushlink/v1/request-psk';
const promptLabel = 'hushlink/v1/request-prompt';
/** HPKE's info: a wrapped key opens only for the request it was made for. */
export const responseKeyInfo = (requestId: string): Uint8Array => utf8.encode(`hushlink/v1/response-key/${requestId}`);

const subtle = () => globalThis.crypto.subtle;
const webCryptoAlgorithm = (kem: RequestKem) => (kem === 'x25519' ? { name: 'X25519' } : { name: 'ECDH', namedCurve: 'P-256' });

/** One suite per KEM, loaded and made on first use (requestSuite.ts says why it is a dynamic import). */
const suites: Partial<Record<RequestKem, CipherSuite>> = {};
async function suiteFor(kem: RequestKem): Promise<CipherSuite> {
  const { requestSuite } = await import('./requestSuite.ts');
  return (suites[kem] ??= requestSuite(kem));
}

/**
 * A key pair made on this device: X25519 where the platform has it, else P-256 (or the one
 * asked for). The private key is not extractable unless asked: a browser keeps it as a
 * CryptoKey in IndexedDB and no script, ours included, can read its bytes.
 */
export async function generateRequesterKeys(options: { kem?: RequestKem; extractable?: boolean } = {}): Promise<RequesterKeys> {
  const extractable = options.extractable ?? false;
  const generate = async (kem: RequestKem): Promise<RequesterKeys> => {
    const pair = (await subtle().generateKey(webCryptoAlgorithm(kem), extractable, ['deriveBits'])) as CryptoKeyPair;
    return { kem, publicKey: new Uint8Array(await subtle().exportKey('raw', pair.publicKey)), privateKey: pair.privateKey };
  };
  if (options.kem) return generate(options.kem);
  try {
    return await generate('x25519');
  } catch {
    // WebCrypto without X25519 (older Safari and Firefox) has P-256 everywhere.
    return generate('p256');
  }
}

export async function publicKeyFingerprint(publicKey: Uint8Array): Promise<string> {
  return toBase64Url(new Uint8Array(await subtle().digest('SHA-256', buf(publicKey))));
}

export function newLinkSecret(): Uint8Array {
  return randomBytes(LINK_SECRET_BYTES);
}

/** The link's fragment, without its `#`: `<fingerprint>.<s>`. */
export function requestFragment(fingerprint: string, linkSecret: Uint8Array): string {
  fingerprintBytes(fingerprint);
  if (linkSecret.length !== LINK_SECRET_BYTES) throw new EnvelopeError('bad_link', 'the link secret is not 32 bytes');
  return `${fingerprint}.${toBase64Url(linkSecret)}`;
}

/** Reads `#<fingerprint>.<s>` (the `#` optional); anything else is `bad_link`. */
export function parseRequestFragment(fragment: string): RequestLink {
  const parts = (fragment.startsWith('#') ? fragment.slice(1) : fragment).split('.');
  if (parts.length !== 2) throw new EnvelopeError('bad_link', 'not two parts');
  fingerprintBytes(parts[0]!);
  return { fingerprint: parts[0]!, linkSecret: canonical32(parts[1]!, 'link secret') };
}

/**
 * The responder's check before anything is typed or sealed: the served key must hash to the
 * link's fingerprint (compared in constant time), or the server substituted it.
 */
export async function checkServedKey(publicKey: Uint8Array, fingerprint: string): Promise<void> {
  const expected = fingerprintBytes(fingerprint);
  const actual = new Uint8Array(await subtle().digest('SHA-256', buf(publicKey)));
  if (!equalBytes(actual, expected)) throw new EnvelopeError('key_mismatch');
}

/**
 * The secrets a link's `s` gives, 32 bytes each:
 * `HKDF-SHA-256(s, salt = the fingerprint's 32 bytes, info = "hushlink/v1/request-psk" | "hushlink/v1/request-prompt")`.
 */
export async function deriveRequestSecrets(link: RequestLink): Promise<{ psk: Uint8Array; promptKey: Uint8Array }> {
  const salt = fingerprintBytes(link.fingerprint);
  if (link.linkSecret.length !== LINK_SECRET_BYTES) throw new EnvelopeError('bad_link', 'the link secret is not 32 bytes');
  const hkdf = await subtle().importKey('raw', buf(link.linkSecret), 'HKDF', false, ['deriveBits']);
  const derive = async (info: string) =>
    new Uint8Array(await subtle().deriveBits({ name: 'HKDF', hash: 'SHA-256', salt: buf(salt), info: buf(utf8.encode(info)) }, hkdf, 256));
  const [psk, promptKey] = await Promise.all([derive(pskLabel), derive(promptLabel)]);
  return { psk: psk!, promptKey: promptKey! };
}

/**
 * The prompt as a text envelope v1 whose URL key is the link's prompt key: only link holders
 * read it. `prompt_envelope` on the wire is base64 of `envelope`. `options.salt` only for
 * test vectors; otherwise a fresh one.
 */
export async function sealPrompt(
  prompt: string,
  link: RequestLink,
  options: { salt?: Uint8Array } = {},
): Promise<{ envelope: Uint8Array; salt: string }> {
  const { promptKey } = await deriveRequestSecrets(link);
  const sealed = await sealText(prompt, { urlKey: promptKey, ...(options.salt ? { salt: options.salt } : {}) });
  return { envelope: sealed.envelope, salt: sealed.salt };
}

/** Opens a prompt with the link's `s`; another link's is the envelope's own `wrong_key`. */
export async function openPrompt(envelope: Uint8Array, link: RequestLink): Promise<string> {
  const { promptKey } = await deriveRequestSecrets(link);
  // The prompt travels without a separate salt: the header's is the one.
  return openText(envelope, { key: promptKey, salt: toBase64Url(parseHeader(envelope).salt) });
}

export interface WrapInput extends RequestLink {
  requestId: string;
  kem: RequestKem;
  /** The key the server served, checked against the fingerprint before it is used. */
  publicKey: Uint8Array;
  /** The response envelope's 32-byte URL key. */
  responseKey: Uint8Array;
  /** Only for test vectors: the ephemeral key pair from this ikm (RFC 9180 DeriveKeyPair). Otherwise a fresh one. */
  ephemeralIkm?: Uint8Array;
}

/**
 * Wraps a response's URL key to the requester: HPKE single-shot seal in PSK mode, `info` the
 * request id, no AAD. `enc` and `wrappedKey` are base64url, as on the wire.
 */
export async function wrapResponseKey(input: WrapInput): Promise<{ enc: string; wrappedKey: string }> {
  await checkServedKey(input.publicKey, input.fingerprint);
  checkKeyLength(input.kem, input.publicKey);
  if (input.responseKey.length !== KEY_BYTES) throw new Error('the response key must be 32 bytes');
  const suite = await suiteFor(input.kem);
  const { psk } = await deriveRequestSecrets(input);
  let recipientPublicKey: CryptoKey;
  try {
    recipientPublicKey = await suite.kem.deserializePublicKey(buf(input.publicKey));
  } catch {
    throw new EnvelopeError('key_mismatch', `not a point of ${input.kem}`);
  }
  const sealed = await suite.seal(
    {
      recipientPublicKey,
      psk: { id: buf(utf8.encode(REQUEST_PSK_ID)), key: buf(psk) },
      info: buf(responseKeyInfo(input.requestId)),
      ...(input.ephemeralIkm ? { ekm: buf(input.ephemeralIkm) } : {}),
    },
    buf(input.responseKey),
  );
  return { enc: toBase64Url(new Uint8Array(sealed.enc)), wrappedKey: toBase64Url(new Uint8Array(sealed.ct)) };
}

export interface UnwrapInput extends RequestLink {
  requestId: string;
  keys: RequesterKeys;
  enc: string;
  wrappedKey: string;
}

/**
 * The requester's side: the response's URL key, or `forged` when the wrap does not open
 * (made without the link's `s`, for another request, or altered). `key_mismatch` when these
 * keys are not the ones the link names.
 */
export async function unwrapResponseKey(input: UnwrapInput): Promise<Uint8Array> {
  await checkServedKey(input.keys.publicKey, input.fingerprint);
  const suite = await suiteFor(input.keys.kem);
  const enc = wireBytes(input.enc, 'enc', requestPublicKeyBytes[input.keys.kem]);
  const wrapped = wireBytes(input.wrappedKey, 'wrapped key', WRAPPED_KEY_BYTES);
  const { psk } = await deriveRequestSecrets(input);
  const recipientKey = { privateKey: input.keys.privateKey, publicKey: await suite.kem.deserializePublicKey(buf(input.keys.publicKey)) };
  let key: ArrayBuffer;
  try {
    key = await suite.open(
      {
        recipientKey,
        enc: buf(enc),
        psk: { id: buf(utf8.encode(REQUEST_PSK_ID)), key: buf(psk) },
        info: buf(responseKeyInfo(input.requestId)),
      },
      buf(wrapped),
    );
  } catch {
    throw new EnvelopeError('forged', 'the wrapped key does not open');
  }
  return new Uint8Array(key);
}

/** The public key as the API carries it (`public_key`): base64url. */
export const encodePublicKey = (publicKey: Uint8Array): string => toBase64Url(publicKey);

/** A served `public_key`, checked for its KEM's length; anything else is `key_mismatch`. */
export function decodePublicKey(kem: RequestKem, text: string): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = fromBase64Url(text);
  } catch {
    throw new EnvelopeError('key_mismatch', 'the public key is not base64url');
  }
  checkKeyLength(kem, bytes);
  return bytes;
}

/**
 * For the CLI's key file (mode 0600): the private key as base64url of its scalar (JWK `d`).
 * Only extractable keys can be exported; a browser's are not.
 */
export async function exportRequesterKeys(keys: RequesterKeys): Promise<{ kem: RequestKem; publicKey: string; privateKey: string }> {
  if (!keys.privateKey.extractable) throw new Error('this private key is not extractable');
  const jwk = await subtle().exportKey('jwk', keys.privateKey);
  if (!jwk.d) throw new Error('not a private key');
  return { kem: keys.kem, publicKey: toBase64Url(keys.publicKey), privateKey: jwk.d };
}

/**
 * The inverse, not extractable again. The private key must be the public key's (checked by
 * multiplying the curve's base point, which works on a non-extractable key), else `key_mismatch`.
 */
export async function importRequesterKeys(stored: { kem: RequestKem; publicKey: string; privateKey: string }): Promise<RequesterKeys> {
  if (stored.kem !== 'x25519' && stored.kem !== 'p256') throw new EnvelopeError('key_mismatch', `unknown kem ${String(stored.kem)}`);
  const publicKey = decodePublicKey(stored.kem, stored.publicKey);
  const jwk: JsonWebKey =
    stored.kem === 'x25519'
      ? { kty: 'OKP', crv: 'X25519', x: stored.publicKey, d: stored.privateKey }
      : {
          kty: 'EC',
          crv: 'P-256',
          x: toBase64Url(publicKey.subarray(1, 33)),
          y: toBase64Url(publicKey.subarray(33)),
          d: stored.privateKey,
        };
  let privateKey: CryptoKey;
  try {
    privateKey = await subtle().importKey('jwk', jwk, webCryptoAlgorithm(stored.kem), false, ['deriveBits']);
  } catch {
    throw new EnvelopeError('key_mismatch', 'the private key does not import');
  }
  const basePoint = await subtle().importKey('raw', buf(basePointOf(stored.kem)), webCryptoAlgorithm(stored.kem), true, []);
  const derived = new Uint8Array(
    await subtle().deriveBits({ name: webCryptoAlgorithm(stored.kem).name, public: basePoint } as EcdhKeyDeriveParams, privateKey, 256),
  );
  // X25519 gives the whole public key; ECDH gives the x coordinate of the point.
  const expected = stored.kem === 'x25519' ? publicKey : publicKey.subarray(1, 33);
  if (!equalBytes(derived, expected)) throw new EnvelopeError('key_mismatch', 'the private key does not belong to the public key');
  return { kem: stored.kem, publicKey, privateKey };
}

/** The generators: u = 9 for X25519, G (uncompressed) for P-256. */
function basePointOf(kem: RequestKem): Uint8Array {
  if (kem === 'x25519') return new Uint8Array(32).map((_, i) => (i === 0 ? 9 : 0));
  const g =
    '046b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c2964fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5';
  return new Uint8Array(g.match(/../g)!.map((pair) => parseInt(pair, 16)));
}

function checkKeyLength(kem: RequestKem, publicKey: Uint8Array): void {
  const length = requestPublicKeyBytes[kem];
  if (publicKey.length !== length || (kem === 'p256' && publicKey[0] !== 0x04)) {
    throw new EnvelopeError('key_mismatch', `not a ${kem} public key`);
  }
}

/** The 32 bytes a fingerprint names; a malformed one is a damaged link. */
function fingerprintBytes(fingerprint: string): Uint8Array {
  return canonical32(fingerprint, 'fingerprint');
}

/** 32 bytes as the canonical 43-character base64url, or `bad_link`. */
function canonical32(text: string, what: string): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = fromBase64Url(text);
  } catch {
    throw new EnvelopeError('bad_link', `the ${what} is not base64url`);
  }
  // A 43rd character with low bits set decodes to the same bytes: only one spelling is accepted.
  if (bytes.length !== 32 || toBase64Url(bytes) !== text) throw new EnvelopeError('bad_link', `the ${what} is not 32 bytes`);
  return bytes;
}

function wireBytes(text: string, what: string, length: number): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = fromBase64Url(text);
  } catch {
    throw new EnvelopeError('forged', `the ${what} is not base64url`);
  }
  if (bytes.length !== length) throw new EnvelopeError('forged', `the ${what} is not ${length} bytes`);
  return bytes;
}
