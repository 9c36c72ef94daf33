import { defineConfig } from 'vitest/config';

/**
 * `npm test` runs everything but the property suites and the browser; `npm run test:property`
 * (HUSHLINK_SUITE=property) runs the property suites alone, with the same setup: CI runs them at
 * 10,000 generated requests per route group in a step of their own.
 */
const propertyRun = process.env.HUSHLINK_SUITE === 'property';

export default defineConfig({
  test: {
    include: propertyRun ? ['test/property/**/*.test.ts'] : ['test/**/*.test.ts'],
    exclude: ['test/e2e/**', 'node_modules/**', ...(propertyRun ? [] : ['test/property/**'])],
    // One local runtime per file at most; two cores, so two files at a time.
    pool: 'forks',
    maxWorkers: 2,
    // Three times the slowest measured under a full run on this loaded 2-core machine (20 s): a
    // test measured above that names its own timeout, three times its own figure.
    testTimeout: 60_000,
    // The contract test: every API response checked against the OpenAPI document, and every
    // status the document lists answered by some suite (test/support/contract*.ts).
    setupFiles: ['test/support/contract.ts', 'test/support/isolation.ts'],
    // A fresh DynamoDB Local for each file that needs one, started before it asks (test/support/sharedDynamo.ts).
    globalSetup: ['test/support/contractCoverage.ts', 'test/support/sharedDynamo.ts'],
    hookTimeout: 120_000,
    // A worker keeps its modules from file to file: a fresh process and import cost 4 to 6 s a
    // file (ADR 0161, ADR 0177). Each file still gets its own runtime, table and DynamoDB Local.
    isolate: false,
  },
});
