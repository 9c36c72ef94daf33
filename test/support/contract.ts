import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { afterAll, expect, inject } from 'vitest';

/**
 * The contract test, run around every test file (vitest `setupFiles`): every response from the
 * API that a suite receives through `fetch` (and `callFrom`, which checks its own) is checked
 * against the OpenAPI document (test/support/contractCheck.ts). What each file saw is written
 * down for the coverage check (test/support/contractCoverage.ts): every status the document
 * lists must be answered in some suite. The document and its validators are built on the first
 * API response only, so a file that calls no API (a unit test, a use case on fakes) pays nothing.
 */

let contract: Promise<typeof import('./contractCheck.ts')> | undefined;
const loadContract = () => (contract ??= import('./contractCheck.ts'));

// Wrapped once per process: where a worker keeps its modules from file to file (the property
// step), this file runs again for each, and a second wrapper would check each response twice.
const wrapped = Symbol.for('hushlink.contract.fetch');
const originalFetch = globalThis.fetch;
const checkedFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const response = await originalFetch(input, init);
  const url = new URL(input instanceof Request ? input.url : String(input));
  const local = url.hostname === 'localhost' || url.hostname === '127.0.0.1';
  if (local && (url.pathname.startsWith('/v1/') || url.pathname.startsWith('/scim/v2/'))) {
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    (await loadContract()).checkApiResponse(method, url, {
      status: response.status,
      contentType: response.headers.get('content-type') ?? '',
      text: await response.clone().text(),
    });
  }
  return response;
};
if (!(wrapped in originalFetch)) globalThis.fetch = Object.assign(checkedFetch, { [wrapped]: true });

afterAll(async () => {
  const directory = inject('contractDir');
  const testPath = expect.getState().testPath;
  if (!directory || !testPath) return;
  mkdirSync(directory, { recursive: true });
  const seen =
    ((globalThis as Record<symbol, unknown>)[Symbol.for('hushlink.contract.seen')] as Map<string, Set<number>> | undefined) ??
    new Map<string, Set<number>>();
  const observed = Object.fromEntries([...seen].map(([key, statuses]) => [key, [...statuses].sort()]));
  // Named by the path under test/, so test/property/files.test.ts and test/integration/files.test.ts both count.
  writeFileSync(join(directory, `${relative('test', testPath).replaceAll(sep, '__')}.json`), JSON.stringify({ file: testPath, observed }));
});

declare module 'vitest' {
  interface ProvidedContext {
    contractDir: string;
  }
}
