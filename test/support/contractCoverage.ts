import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { routeKey, routes, type Route } from '../../shared/routes.ts';

/**
 * The second half of the contract test (vitest `globalSetup`): when every integration suite ran,
 * every status the OpenAPI document lists for a route must have been answered in one of them
 * (test/support/contract.ts writes down what each file saw). A listed status no suite reaches
 * is either untested or wrong in the document; the run fails naming it.
 */
export default function setup(project: TestProject) {
  const directory = mkdtempSync(join(tmpdir(), 'hushlink-contract-'));
  project.provide('contractDir', directory);
  return () => {
    try {
      const integration = readdirSync('test/integration').filter((file) => file.endsWith('.test.ts'));
      const reports = existsSync(directory) ? readdirSync(directory) : [];
      // A run of some files only (a developer's focus) cannot judge coverage.
      if (!integration.every((file) => reports.includes(`integration__${file}.json`))) return;
      const seen = new Map<string, Set<number>>();
      for (const report of reports) {
        const { observed } = JSON.parse(readFileSync(join(directory, report), 'utf8')) as { observed: Record<string, number[]> };
        for (const [key, statuses] of Object.entries(observed))
          for (const status of statuses) (seen.get(key) ?? seen.set(key, new Set()).get(key)!).add(status);
      }
      const missing = (routes as readonly Route[]).flatMap((route) =>
        [route.reply.status, ...(route.accepted ? [route.accepted.status] : []), ...route.errors]
          .filter((status) => !seen.get(routeKey(route))?.has(status))
          .map((status) => `${routeKey(route)} ${status}`),
      );
      if (missing.length > 0) {
        console.error(
          `\ncontract coverage: the OpenAPI document lists these statuses, and no integration suite answered them:\n  ${missing.join('\n  ')}\n`,
        );
        process.exitCode = 1;
      }
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  };
}
