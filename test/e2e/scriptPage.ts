import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';

/**
 * Code of the repository run in Chromium as the web client runs it: `script` (TypeScript, its
 * imports from the repository root) bundled by esbuild for the browser, then loaded into a blank
 * page of a localhost origin, a secure context (so WebCrypto is there), served by the test.
 */
export async function bundleForPage(script: string): Promise<string> {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const built = await build({
    stdin: { contents: script, resolveDir: root, loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  });
  return built.outputFiles[0]!.text;
}

/** A page at `http://localhost/<name>` with `bundle` loaded, once the bundle has set `window[ready]`. */
export async function scriptPage(browser: Browser, name: string, bundle: string, ready: string): Promise<Page> {
  const page = await browser.newPage();
  const url = `http://localhost/${name}`;
  await page.route(url, (route) => route.fulfill({ contentType: 'text/html', body: `<!doctype html><title>${name}</title>` }));
  await page.goto(url);
  await page.addScriptTag({ content: bundle, type: 'module' });
  await page.waitForFunction((global) => typeof (window as unknown as Record<string, unknown>)[global] === 'function', ready);
  return page;
}
