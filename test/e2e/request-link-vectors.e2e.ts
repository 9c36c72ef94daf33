/**
 * RFC 9180's vectors and the request-link vectors, run in Chromium on the same code the web
 * client bundles (@hpke/core on the browser's WebCrypto); then the request page's own path: a
 * non-extractable X25519 key made in the page, kept in IndexedDB, read back and used to open
 * a response wrapped to it.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkVectors, rfcVectors, type Outcome } from '../support/requestLinkVectors.ts';
import { launchChromium } from './harness.ts';
import { bundleForPage, scriptPage } from './scriptPage.ts';

/** Runs in the page. */
const pageScript = `
import { checkAllVectors } from './test/support/requestLinkVectors.ts';
import { generateRequesterKeys, newLinkSecret, publicKeyFingerprint, randomBytes, unwrapResponseKey, wrapResponseKey } from './shared/envelope/index.ts';

window.runVectors = () => checkAllVectors();

const idb = (request) => new Promise((resolve, reject) => ((request.onsuccess = () => resolve(request.result)), (request.onerror = () => reject(request.error))));

window.runDeviceKey = async () => {
  const keys = await generateRequesterKeys();
  const link = { fingerprint: await publicKeyFingerprint(keys.publicKey), linkSecret: newLinkSecret() };
  const opening = indexedDB.open('request-keys', 1);
  opening.onupgradeneeded = () => opening.result.createObjectStore('keys');
  const db = await idb(opening);
  await idb(db.transaction('keys', 'readwrite').objectStore('keys').put(keys, 'rq_1'));
  const stored = await idb(db.transaction('keys').objectStore('keys').get('rq_1'));
  const responseKey = randomBytes(32);
  const wrap = await wrapResponseKey({ requestId: 'rq_1', kem: keys.kem, publicKey: keys.publicKey, ...link, responseKey });
  const opened = await unwrapResponseKey({ requestId: 'rq_1', keys: stored, ...link, ...wrap });
  const exported = await crypto.subtle.exportKey('pkcs8', stored.privateKey).then(() => 'exported', (error) => error.name);
  return {
    kem: stored.kem,
    algorithm: stored.privateKey.algorithm.name,
    extractable: stored.privateKey.extractable,
    exported,
    opened: opened.length === 32 && opened.every((byte, i) => byte === responseKey[i]),
  };
};
`;

let browser: Browser;
let bundle: string;
beforeAll(async () => {
  [bundle, browser] = await Promise.all([bundleForPage(pageScript), launchChromium()]);
}, 180_000);
afterAll(() => browser?.close());

describe('request-link vectors in Chromium', () => {
  it('passes RFC 9180 vectors and rebuilds and opens every request-link vector; a device key kept in IndexedDB opens a response', async () => {
    const page = await scriptPage(browser, 'request-vectors', bundle, 'runDeviceKey');

    const outcomes = await page.evaluate(() => (window as unknown as { runVectors: () => Promise<Outcome[]> }).runVectors());
    const names = outcomes.map((outcome) => outcome.name.split(' ')[0]);
    expect(new Set(names)).toEqual(new Set([...rfcVectors.map((v) => v.name), ...linkVectors.map((v) => v.name)]));
    expect(outcomes.length).toBeGreaterThan(40);
    expect(outcomes.filter((outcome) => !outcome.ok)).toEqual([]);

    const device = await page.evaluate(() =>
      (window as unknown as { runDeviceKey: () => Promise<Record<string, unknown>> }).runDeviceKey(),
    );
    expect(device).toEqual({ kem: 'x25519', algorithm: 'X25519', extractable: false, exported: 'InvalidAccessError', opened: true });
    expect(await page.evaluate(() => navigator.userAgent)).toContain('Chrome');
  });
});
