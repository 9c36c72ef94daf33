/**
 * A curl-mode link, made with the real curl binary, opens in Chromium's reveal page like any
 * other: the page claims with the proofs it derives from the key and decrypts the
 * server-sealed envelope (flag bit2), a small one and one of 1 MiB kept in parts.
 */
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { startRuntimeAndBrowser, stopRuntimeAndBrowser, Session } from './harness.ts';

const run = promisify(execFile);
let runtime: Runtime;
let browser: Browser;

beforeAll(async () => {
  ({ runtime, browser } = await startRuntimeAndBrowser());
}, 180_000);
afterAll(() => stopRuntimeAndBrowser(runtime, browser));

async function curlLink(text: string): Promise<string> {
  const child = run('curl', ['-sS', '--data-binary', '@-', `${runtime.url}/v1/curl`], { maxBuffer: 4 * 1024 * 1024 });
  child.child.stdin!.end(text);
  return (await child).stdout.trim();
}

async function reveal(name: string, link: string): Promise<string> {
  const s = await Session.open(browser, name);
  await s.page.goto(link);
  await s.ready('reveal');
  await s.page.waitForSelector('#reveal-button:not([disabled])');
  await s.page.click('#reveal-button');
  await s.page.waitForSelector('#screen-revealed:not([hidden])');
  const text = await s.page.inputValue('#secret-text');
  expect(await s.problems()).toEqual([]);
  await s.screenshot(name);
  await s.close();
  return text;
}

describe('curl-mode links in the browser', () => {
  it('a piped secret opens on the reveal page', async () => {
    const secret = `from a terminal ${randomUUID()}`;
    expect(await reveal('curl-small', await curlLink(secret))).toBe(secret);
  });

  it('a 1 MiB secret (kept in parts) opens on the reveal page', async () => {
    const secret = randomBytes(768 * 1024)
      .toString('base64')
      .slice(0, 1024 * 1024);
    expect(await reveal('curl-1mib', await curlLink(secret))).toBe(secret);
  });
});
