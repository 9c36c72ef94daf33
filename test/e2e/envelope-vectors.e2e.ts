/**
 * The envelope's known-answer and negative vectors, run in Chromium on the same code the
 * web client bundles: what holds on Node must hold in the browser.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { negativeCases, vectors } from '../support/vectors.ts';
import { launchChromium } from './harness.ts';
import { bundleForPage, scriptPage } from './scriptPage.ts';

interface Outcome {
  name: string;
  ok: boolean;
  detail: string;
}

/** Runs in the page: every vector rebuilt and opened, every negative case refused with its code. */
const pageScript = `
import { open, EnvelopeError } from './shared/envelope/index.ts';
import { mutate, negativeCases, plaintextOf, rebuild, vectors } from './test/support/vectors.ts';

const hex = async (bytes) => [...new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))].map((b) => b.toString(16).padStart(2, '0')).join('');
const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

window.runVectors = async () => {
  const outcomes = [];
  for (const vector of vectors) {
    const envelope = await rebuild(vector);
    const digest = await hex(envelope);
    const opened = await open(envelope, { key: vector.key, salt: vector.salt, passphrase: vector.passphrase ?? undefined });
    const ok = digest === vector.envelope_sha256 && same(opened.plaintext, plaintextOf(vector));
    outcomes.push({ name: vector.name, ok, detail: digest });
  }
  const base = vectors.find((vector) => vector.name === 'file-three-chunks');
  const envelope = await rebuild(base);
  for (const negative of negativeCases) {
    const code = await open(mutate(envelope, negative.mutation), { key: base.key, salt: base.salt }).then(
      () => 'opened',
      (error) => (error instanceof EnvelopeError ? error.code : String(error)),
    );
    outcomes.push({ name: negative.name, ok: code === negative.error, detail: code });
  }
  return outcomes;
};
`;

let browser: Browser;
let bundle: string;
beforeAll(async () => {
  [bundle, browser] = await Promise.all([bundleForPage(pageScript), launchChromium()]);
}, 180_000);
afterAll(() => browser?.close());

describe('envelope vectors in Chromium', () => {
  it('rebuilds every known-answer vector byte for byte and refuses every negative one with its code', async () => {
    const page = await scriptPage(browser, 'vectors', bundle, 'runVectors');
    const outcomes = await page.evaluate(() => (window as unknown as { runVectors: () => Promise<Outcome[]> }).runVectors());
    expect(outcomes.map((outcome) => outcome.name)).toEqual([...vectors.map((v) => v.name), ...negativeCases.map((c) => c.name)]);
    expect(outcomes.filter((outcome) => !outcome.ok)).toEqual([]);
    expect(await page.evaluate(() => navigator.userAgent)).toContain('Chrome');
  });
});
