/**
 * The layer rules of docs/ARCHITECTURE.md, checked in CI (`npm run lint:layers`).
 * Domain code speaks its own language: no HTTP, wire types, adapters, store or SDKs.
 * Stores know the domain's types, never its logic: test/unit/layers.test.ts checks that one, since
 * telling `import type` apart needs TypeScript's parser as a library, which TypeScript 7 no longer
 * ships. Nothing reaches into the local runtime.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'shared/domain imports no http, api (wire), adapters, store, functions, local, or AWS/provider SDK',
      severity: 'error',
      from: { path: '^shared/domain/' },
      to: {
        path: ['^shared/(http|api|adapters|store)/', '^functions/', '^local/', '^lib/'],
      },
    },
    {
      name: 'domain-no-sdk',
      comment: 'shared/domain imports no SDK of AWS or a provider',
      severity: 'error',
      from: { path: '^shared/domain/' },
      to: { path: 'node_modules/(@aws-sdk|@smithy|stripe|@slack|@middy|@aws-lambda-powertools)/' },
    },
    {
      name: 'store-not-upward',
      comment: 'shared/store imports no http, api, adapters or functions',
      severity: 'error',
      from: { path: '^shared/store/' },
      to: { path: ['^shared/(http|api|adapters)/', '^functions/'] },
    },
    {
      name: 'http-not-store',
      comment: 'shared/http (middlewares, the refusal table) imports no store or adapters: functions compose them',
      severity: 'error',
      from: { path: '^shared/http/' },
      to: { path: ['^shared/(store|adapters)/', '^functions/'] },
    },
    {
      name: 'local-only-from-runtime-and-tests',
      comment: 'nothing imports local/ but local/ itself, tests, benches and scripts',
      severity: 'error',
      from: { pathNot: ['^local/', '^test/', '^bench/', '^scripts/'] },
      to: { path: '^local/' },
    },
    {
      name: 'no-circular',
      severity: 'warn',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['^node_modules', '^cdk\\.out', '^\\.data'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
      extensions: ['.ts', '.js', '.json'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
