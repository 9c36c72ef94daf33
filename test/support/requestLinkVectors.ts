/**
 * The request-link vectors and RFC 9180's, checked by code that runs unchanged in Node (the
 * unit test) and in Chromium (the e2e page bundles this file): each check is one named outcome.
 */
import { Aes128Gcm, Aes256Gcm, CipherSuite, DhkemP256HkdfSha256, DhkemX25519HkdfSha256, HkdfSha256 } from '@hpke/core';
import rfcFile from '../vectors/hpke-rfc9180.json' with { type: 'json' };
import linkFile from '../vectors/request-link.json' with { type: 'json' };
import {
  EnvelopeError,
  deriveRequestSecrets,
  fromBase64,
  fromBase64Url,
  importRequesterKeys,
  open,
  openPrompt,
  parseRequestFragment,
  publicKeyFingerprint,
  sealPrompt,
  toBase64,
  toBase64Url,
  unwrapResponseKey,
  wrapResponseKey,
  type RequestKem,
} from '../../shared/envelope/index.ts';

/** An entry of test/vectors/hpke-rfc9180.json (the CFRG file's fields; hex). */
export interface RfcVector {
  name: string;
  mode: number;
  kem_id: number;
  kdf_id: number;
  aead_id: number;
  info: string;
  ikmR?: string;
  ikmE?: string;
  skRm: string;
  pkRm: string;
  skEm?: string;
  pkEm?: string;
  enc: string;
  psk?: string;
  psk_id?: string;
  encryptions: { aad: string; pt: string; ct: string }[];
  exports: { exporter_context: string; L: number; exported_value: string }[];
}
export type LinkVector = (typeof linkFile.vectors)[number];
export const rfcVectors: RfcVector[] = rfcFile.vectors;
export const linkVectors: LinkVector[] = linkFile.vectors;

export interface Outcome {
  name: string;
  ok: boolean;
  detail: string;
}

const hex = (text: string) => new Uint8Array((text.match(/../g) ?? []).map((pair) => parseInt(pair, 16)));
const toHex = (bytes: ArrayBuffer | Uint8Array) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');
const codeOf = (error: unknown) => (error instanceof EnvelopeError ? error.code : String(error));

/**
 * One RFC 9180 vector through @hpke/core: the key pairs from ikmR/ikmE by DeriveKeyPair where the
 * vector has them (else imported from skRm/skEm), then enc, every ciphertext (sealed and opened)
 * and every exported value must be the vector's.
 */
export async function checkRfcVector(vector: RfcVector): Promise<Outcome[]> {
  const suite = new CipherSuite({
    kem: vector.kem_id === 0x20 ? new DhkemX25519HkdfSha256() : new DhkemP256HkdfSha256(),
    kdf: new HkdfSha256(),
    aead: vector.aead_id === 2 ? new Aes256Gcm() : new Aes128Gcm(),
  });
  const outcomes: Outcome[] = [];
  const expect = (name: string, actual: string, expected: string) =>
    outcomes.push({ name: `${vector.name} ${name}`, ok: actual === expected, detail: actual });
  let recipient: CryptoKeyPair;
  let ekm: CryptoKeyPair | Uint8Array;
  if (vector.ikmR !== undefined && vector.ikmE !== undefined) {
    recipient = await suite.kem.deriveKeyPair(hex(vector.ikmR));
    expect('skRm', toHex(await suite.kem.serializePrivateKey(recipient.privateKey)), vector.skRm);
    expect('pkRm', toHex(await suite.kem.serializePublicKey(recipient.publicKey)), vector.pkRm);
    ekm = hex(vector.ikmE);
  } else {
    recipient = {
      privateKey: await suite.kem.deserializePrivateKey(hex(vector.skRm)),
      publicKey: await suite.kem.deserializePublicKey(hex(vector.pkRm)),
    };
    ekm = {
      privateKey: await suite.kem.deserializePrivateKey(hex(vector.skEm ?? '')),
      publicKey: await suite.kem.deserializePublicKey(hex(vector.pkEm ?? '')),
    };
  }
  const psk = vector.psk !== undefined ? { psk: { key: hex(vector.psk), id: hex(vector.psk_id ?? '') } } : {};
  const info = hex(vector.info);
  const sender = await suite.createSenderContext({ recipientPublicKey: recipient.publicKey, info, ekm, ...psk });
  expect('enc', toHex(sender.enc), vector.enc);
  const receiver = await suite.createRecipientContext({ recipientKey: recipient, enc: hex(vector.enc), info, ...psk });
  for (const [index, encryption] of vector.encryptions.entries()) {
    expect(`ct ${index}`, toHex(await sender.seal(hex(encryption.pt), hex(encryption.aad))), encryption.ct);
    expect(`pt ${index}`, toHex(await receiver.open(hex(encryption.ct), hex(encryption.aad))), encryption.pt);
  }
  for (const [index, exported] of vector.exports.entries()) {
    expect(`export ${index}`, toHex(await receiver.export(hex(exported.exporter_context), exported.L)), exported.exported_value);
  }
  return outcomes;
}

/**
 * One request-link vector through shared/envelope: the fragment parses, the fingerprint and the
 * derived secrets are the committed ones, the prompt and the wrap are rebuilt byte for byte, the
 * committed private key unwraps the response key and the response opens, and each negative
 * case is refused with its code.
 */
export async function checkLinkVector(vector: LinkVector): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  const expect = (name: string, actual: string, expected: string) =>
    outcomes.push({ name: `${vector.name} ${name}`, ok: actual === expected, detail: actual });
  const kem = vector.kem as RequestKem;
  const link = parseRequestFragment(`#${vector.fragment}`);
  expect('fragment', `${link.fingerprint}.${toBase64Url(link.linkSecret)}`, `${vector.fingerprint}.${vector.link_secret}`);
  const keys = await importRequesterKeys({ ...vector.requester, kem });
  expect('fingerprint', await publicKeyFingerprint(keys.publicKey), vector.fingerprint);
  const secrets = await deriveRequestSecrets(link);
  expect('psk', toBase64Url(secrets.psk), vector.psk);
  expect('prompt key', toBase64Url(secrets.promptKey), vector.prompt_key);

  const prompt = await sealPrompt(vector.prompt.text, link, { salt: fromBase64Url(vector.prompt.salt) });
  expect('prompt envelope', toBase64(prompt.envelope), vector.prompt.envelope_base64);
  expect('prompt opens', await openPrompt(fromBase64(vector.prompt.envelope_base64), link), vector.prompt.text);

  const response = vector.response;
  const wrap = await wrapResponseKey({
    requestId: vector.request_id,
    kem,
    publicKey: keys.publicKey,
    ...link,
    responseKey: fromBase64Url(response.response_key),
    ephemeralIkm: fromBase64Url(response.ephemeral_ikm),
  });
  expect('enc', wrap.enc, response.enc);
  expect('wrapped key', wrap.wrappedKey, response.wrapped_key);
  const responseKey = await unwrapResponseKey({
    requestId: vector.request_id,
    keys,
    ...link,
    enc: response.enc,
    wrappedKey: response.wrapped_key,
  });
  expect('unwrapped key', toBase64Url(responseKey), response.response_key);
  const opened = await open(fromBase64(response.envelope_base64), { key: responseKey, salt: response.salt });
  expect('response opens', new TextDecoder().decode(opened.plaintext), response.text);

  for (const negative of vector.negative) {
    const code = await unwrapResponseKey({
      requestId: negative.request_id,
      keys,
      ...link,
      enc: negative.enc,
      wrappedKey: negative.wrapped_key,
    }).then(() => 'opened', codeOf);
    expect(negative.name, code, negative.error);
  }
  return outcomes;
}

/** Every vector of both files, in order. */
export async function checkAllVectors(): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const vector of rfcVectors) outcomes.push(...(await checkRfcVector(vector)));
  for (const vector of linkVectors) outcomes.push(...(await checkLinkVector(vector)));
  return outcomes;
}
