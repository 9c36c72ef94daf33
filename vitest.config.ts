import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/e2e/**', 'node_modules/**'],
    // One local runtime per file at most; two cores, so two files at a time.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    // The contract test: every API response checked against the OpenAPI document, and every
    // status the document lists answered by some suite (test/support/contract*.ts).
    setupFiles: ['test/support/contract.ts'],
    // DynamoDB Local, one per worker for the whole run, started on first use (test/support/sharedDynamo.ts).
    globalSetup: ['test/support/contractCoverage.ts', 'test/support/sharedDynamo.ts'],
    hookTimeout: 120_000,
  },
});
