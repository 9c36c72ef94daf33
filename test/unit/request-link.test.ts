import { createHash, createPrivateKey, createPublicKey, hkdfSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  EnvelopeError,
  checkServedKey,
  exportRequesterKeys,
  fileSealer,
  fromBase64Url,
  generateRequesterKeys,
  importRequesterKeys,
  newLinkSecret,
  open,
  openPrompt,
  parseRequestFragment,
  publicKeyFingerprint,
  randomBytes,
  requestFragment,
  sealPrompt,
  sealText,
  toBase64Url,
  unwrapResponseKey,
  wrapResponseKey,
  type RequestKem,
  type RequesterKeys,
} from '../../shared/envelope/index.ts';
import { checkLinkVector, checkRfcVector, linkVectors, rfcVectors } from '../support/requestLinkVectors.ts';

const kems: RequestKem[] = ['x25519', 'p256'];

async function codeOf(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => 'resolved',
    (error: unknown) => (error instanceof EnvelopeError ? error.code : `not an EnvelopeError: ${String(error)}`),
  );
}

function codeOfSync(run: () => unknown): string {
  try {
    run();
    return 'returned';
  } catch (error) {
    return error instanceof EnvelopeError ? error.code : `not an EnvelopeError: ${String(error)}`;
  }
}

/** A requester's link: keys on the device, the fingerprint and `s`. */
async function newRequest(kem: RequestKem, options: { extractable?: boolean } = {}) {
  const keys = await generateRequesterKeys({ kem, ...options });
  const link = { fingerprint: await publicKeyFingerprint(keys.publicKey), linkSecret: newLinkSecret() };
  return { keys, link };
}

describe('RFC 9180 test vectors through @hpke/core', () => {
  for (const vector of rfcVectors) {
    it(`${vector.name}: keys, enc, ciphertexts and exports are the vector's`, async () => {
      const outcomes = await checkRfcVector(vector);
      expect(outcomes.length).toBeGreaterThan(0);
      expect(outcomes.filter((outcome) => !outcome.ok)).toEqual([]);
    });
  }

  it('cover both KEMs with AES-256-GCM in base mode, and both KEMs in PSK mode', () => {
    const suites = rfcVectors.map((v) => `${v.kem_id}/${v.kdf_id}/${v.aead_id}/${v.mode}`);
    expect(suites).toEqual(expect.arrayContaining(['32/1/2/0', '16/1/2/0', '32/1/1/1', '16/1/1/1']));
  });
});

describe('request-link known-answer vectors', () => {
  for (const vector of linkVectors) {
    it(`${vector.name}: rebuilt byte for byte, opened with the committed private key, negatives refused`, async () => {
      const outcomes = await checkLinkVector(vector);
      expect(outcomes.filter((outcome) => !outcome.ok)).toEqual([]);
      expect(outcomes.map((outcome) => outcome.name)).toContain(`${vector.name} forged-without-link-secret`);
    });

    it(`${vector.name}: fingerprint and derived secrets recomputed with node:crypto from docs/envelope.md`, () => {
      const publicKey = Buffer.from(vector.requester.publicKey, 'base64url');
      const fingerprint = createHash('sha256').update(publicKey).digest();
      expect(fingerprint.toString('base64url')).toBe(vector.fingerprint);
      const s = Buffer.from(vector.link_secret, 'base64url');
      expect(Buffer.from(hkdfSync('sha256', s, fingerprint, 'hushlink/v1/request-psk', 32)).toString('base64url')).toBe(vector.psk);
      expect(Buffer.from(hkdfSync('sha256', s, fingerprint, 'hushlink/v1/request-prompt', 32)).toString('base64url')).toBe(
        vector.prompt_key,
      );
      expect(vector.fragment).toBe(`${vector.fingerprint}.${vector.link_secret}`);
    });

    it(`${vector.name}: the committed private key is the committed public key's (node:crypto)`, () => {
      const jwk =
        vector.kem === 'x25519'
          ? { kty: 'OKP', crv: 'X25519', d: vector.requester.privateKey, x: vector.requester.publicKey }
          : (() => {
              const point = Buffer.from(vector.requester.publicKey, 'base64url');
              return {
                kty: 'EC',
                crv: 'P-256',
                d: vector.requester.privateKey,
                x: point.subarray(1, 33).toString('base64url'),
                y: point.subarray(33).toString('base64url'),
              };
            })();
      const derived = createPublicKey(createPrivateKey({ key: jwk, format: 'jwk' })).export({ format: 'jwk' });
      expect(derived.x).toBe(jwk.x);
    });
  }
});

describe('request links', () => {
  for (const kem of kems) {
    describe(kem, () => {
      it('round trip: the prompt, a text response and a file response', async () => {
        const { keys, link } = await newRequest(kem);
        expect(keys.kem).toBe(kem);
        expect(keys.privateKey.extractable).toBe(false);
        expect(keys.publicKey.length).toBe(kem === 'x25519' ? 32 : 65);

        // The requester seals the prompt; the responder reads it from the link alone.
        const fragment = requestFragment(link.fingerprint, link.linkSecret);
        const prompt = await sealPrompt('What is the Wi-Fi password?', link);
        const responder = parseRequestFragment(`#${fragment}`);
        expect(await openPrompt(prompt.envelope, responder)).toBe('What is the Wi-Fi password?');

        // The responder checks the served key, seals under a fresh key and wraps it.
        await checkServedKey(keys.publicKey, responder.fingerprint);
        const text = await sealText('hunter2');
        const textWrap = await wrapResponseKey({
          requestId: 'rq_1',
          kem,
          publicKey: keys.publicKey,
          ...responder,
          responseKey: fromBase64Url(text.key),
        });
        const file = await fileSealer({ meta: { name: 'a.txt', type: 'text/plain', size: 5 } });
        const fileWrap = await wrapResponseKey({
          requestId: 'rq_1',
          kem,
          publicKey: keys.publicKey,
          ...responder,
          responseKey: fromBase64Url(file.key),
        });
        expect(fromBase64Url(textWrap.enc).length).toBe(kem === 'x25519' ? 32 : 65);
        expect(fromBase64Url(textWrap.wrappedKey).length).toBe(48);

        // The requester unwraps each key and opens each envelope as any envelope.
        const textKey = await unwrapResponseKey({ requestId: 'rq_1', keys, ...link, ...textWrap });
        expect(new TextDecoder().decode((await open(text.envelope, { key: textKey, salt: text.salt })).plaintext)).toBe('hunter2');
        const fileKey = await unwrapResponseKey({ requestId: 'rq_1', keys, ...link, ...fileWrap });
        expect(toBase64Url(fileKey)).toBe(file.key);
        const chunk = await file.encryptChunk(0, true, new TextEncoder().encode('hello'));
        const opened = await open(new Uint8Array([...file.prefix, ...chunk]), { key: fileKey, salt: file.salt });
        expect(opened.meta).toEqual({ name: 'a.txt', type: 'text/plain', size: 5 });
        expect(new TextDecoder().decode(opened.plaintext)).toBe('hello');
      });

      it('a substituted public key is refused by checkServedKey and by wrapResponseKey, before anything is wrapped', async () => {
        const { keys, link } = await newRequest(kem);
        const server = await generateRequesterKeys({ kem });
        expect(await codeOf(checkServedKey(server.publicKey, link.fingerprint))).toBe('key_mismatch');
        const wrap = wrapResponseKey({ requestId: 'rq_1', kem, publicKey: server.publicKey, ...link, responseKey: randomBytes(32) });
        expect(await codeOf(wrap)).toBe('key_mismatch');
        // One flipped bit of the real key is a substitution too.
        const flipped = keys.publicKey.slice();
        flipped[7]! ^= 1;
        expect(await codeOf(checkServedKey(flipped, link.fingerprint))).toBe('key_mismatch');
        // The key the link names, served under the other KEM's label, is refused as well.
        const mislabelled = wrapResponseKey({
          requestId: 'rq_1',
          kem: kem === 'x25519' ? 'p256' : 'x25519',
          publicKey: keys.publicKey,
          ...link,
          responseKey: randomBytes(32),
        });
        expect(await codeOf(mislabelled)).toBe('key_mismatch');
      });

      it('a response forged with the public key but another s does not unwrap: forged', async () => {
        const { keys, link } = await newRequest(kem);
        const forger = { fingerprint: link.fingerprint, linkSecret: newLinkSecret() };
        const forged = await wrapResponseKey({
          requestId: 'rq_1',
          kem,
          publicKey: keys.publicKey,
          ...forger,
          responseKey: randomBytes(32),
        });
        const error = await unwrapResponseKey({ requestId: 'rq_1', keys, ...link, ...forged }).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(EnvelopeError);
        expect((error as EnvelopeError).code).toBe('forged');
        expect((error as EnvelopeError).message).toMatch(/not made with the request link/);
      });

      it('a wrap for another request id, or altered on the way, does not unwrap: forged', async () => {
        const { keys, link } = await newRequest(kem);
        const wrap = await wrapResponseKey({ requestId: 'rq_1', kem, publicKey: keys.publicKey, ...link, responseKey: randomBytes(32) });
        expect(await codeOf(unwrapResponseKey({ requestId: 'rq_2', keys, ...link, ...wrap }))).toBe('forged');
        const altered = fromBase64Url(wrap.wrappedKey);
        altered[0]! ^= 1;
        expect(await codeOf(unwrapResponseKey({ requestId: 'rq_1', keys, ...link, enc: wrap.enc, wrappedKey: toBase64Url(altered) }))).toBe(
          'forged',
        );
        const otherEnc = await wrapResponseKey({
          requestId: 'rq_1',
          kem,
          publicKey: keys.publicKey,
          ...link,
          responseKey: randomBytes(32),
        });
        expect(await codeOf(unwrapResponseKey({ requestId: 'rq_1', keys, ...link, enc: otherEnc.enc, wrappedKey: wrap.wrappedKey }))).toBe(
          'forged',
        );
        expect(await codeOf(unwrapResponseKey({ requestId: 'rq_1', keys, ...link, enc: 'not*base64', wrappedKey: wrap.wrappedKey }))).toBe(
          'forged',
        );
        expect(
          await codeOf(unwrapResponseKey({ requestId: 'rq_1', keys, ...link, enc: wrap.enc, wrappedKey: wrap.wrappedKey.slice(0, 40) })),
        ).toBe('forged');
        // And the right wrap still opens.
        expect((await unwrapResponseKey({ requestId: 'rq_1', keys, ...link, ...wrap })).length).toBe(32);
      });

      it('keys of another request cannot unwrap: key_mismatch, not a silent failure', async () => {
        const { keys, link } = await newRequest(kem);
        const wrap = await wrapResponseKey({ requestId: 'rq_1', kem, publicKey: keys.publicKey, ...link, responseKey: randomBytes(32) });
        const other = await generateRequesterKeys({ kem });
        expect(await codeOf(unwrapResponseKey({ requestId: 'rq_1', keys: other, ...link, ...wrap }))).toBe('key_mismatch');
      });

      it("the prompt opens only with the right s (the envelope's own wrong_key otherwise)", async () => {
        const { link } = await newRequest(kem);
        const prompt = await sealPrompt('The VPN key, please', link);
        expect(await openPrompt(prompt.envelope, link)).toBe('The VPN key, please');
        expect(await codeOf(openPrompt(prompt.envelope, { ...link, linkSecret: newLinkSecret() }))).toBe('wrong_key');
        const otherKey = await generateRequesterKeys({ kem });
        expect(await codeOf(openPrompt(prompt.envelope, { ...link, fingerprint: await publicKeyFingerprint(otherKey.publicKey) }))).toBe(
          'wrong_key',
        );
      });

      it('export and import round trip (the CLI key file); only extractable keys export', async () => {
        const { keys, link } = await newRequest(kem, { extractable: true });
        const stored = await exportRequesterKeys(keys);
        expect(stored).toEqual({ kem, publicKey: toBase64Url(keys.publicKey), privateKey: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
        const imported: RequesterKeys = await importRequesterKeys(JSON.parse(JSON.stringify(stored)));
        expect(imported.privateKey.extractable).toBe(false);
        const wrap = await wrapResponseKey({
          requestId: 'rq_1',
          kem,
          publicKey: imported.publicKey,
          ...link,
          responseKey: new Uint8Array(32).fill(7),
        });
        expect(await unwrapResponseKey({ requestId: 'rq_1', keys: imported, ...link, ...wrap })).toEqual(new Uint8Array(32).fill(7));

        await expect(exportRequesterKeys((await newRequest(kem)).keys)).rejects.toThrow(/not extractable/);
        const other = await exportRequesterKeys((await newRequest(kem, { extractable: true })).keys);
        expect(await codeOf(importRequesterKeys({ ...stored, privateKey: other.privateKey }))).toBe('key_mismatch');
        expect(await codeOf(importRequesterKeys({ ...stored, publicKey: 'AAAA' }))).toBe('key_mismatch');
      });
    });
  }

  it('generateRequesterKeys uses X25519 where the platform has it', async () => {
    const keys = await generateRequesterKeys();
    expect(keys.kem).toBe('x25519');
    expect(keys.privateKey.algorithm.name).toBe('X25519');
    expect(keys.privateKey.extractable).toBe(false);
  });

  it('malformed fragments are bad_link', async () => {
    const fingerprint = toBase64Url(randomBytes(32));
    const secret = toBase64Url(randomBytes(32));
    expect(parseRequestFragment(`#${fingerprint}.${secret}`).fingerprint).toBe(fingerprint);
    expect(toBase64Url(parseRequestFragment(`${fingerprint}.${secret}`).linkSecret)).toBe(secret);
    // The 43rd character carries two unused bits: a spelling with them set is not the canonical one.
    const last = secret.at(-1)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const noncanonical = secret.slice(0, -1) + alphabet[alphabet.indexOf(last) ^ 1];
    const malformed = [
      '',
      '#',
      fingerprint,
      `#${fingerprint}.`,
      `#.${secret}`,
      `#${fingerprint}.${secret}.x`,
      `#${fingerprint}${secret}`,
      `#${fingerprint.slice(1)}.${secret}`,
      `#${fingerprint}.${secret}A`,
      `#${fingerprint}.${secret.slice(0, 42)}`,
      `#${fingerprint}.${secret.replace(/^./, '+')}`,
      `#${fingerprint}.${secret}=`,
      `#${fingerprint}.${noncanonical}`,
      `##${fingerprint}.${secret}`,
      `#${fingerprint}.${secret}\n`,
    ];
    for (const fragment of malformed) expect([fragment, codeOfSync(() => parseRequestFragment(fragment))]).toEqual([fragment, 'bad_link']);
    expect(codeOfSync(() => requestFragment('short', randomBytes(32)))).toBe('bad_link');
    expect(codeOfSync(() => requestFragment(fingerprint, randomBytes(31)))).toBe('bad_link');
    expect(await codeOf(checkServedKey(randomBytes(32), 'not a fingerprint'))).toBe('bad_link');
  });
});
