import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * `npm run test:e2e`: the web client in Debian's Chromium, one file at a time, each with its
 * runtime and browser, all on one DynamoDB Local for the run (test/support/sharedDynamo.ts):
 * Java's start was 7 to 11 s of each of the 15 files.
 */
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['test/e2e/**/*.e2e.ts'],
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 180_000,
    globalSetup: ['test/support/sharedDynamo.ts'],
  },
});
