/**
 * Lambda bundle size and cold import time of every function, against a baseline that only
 * imports the DynamoDB document client (and, for the functions that must carry S3's, Stripe's or
 * CloudFront's client, one that also imports it), all built and measured in the same run.
 *
 *   npx tsx bench/bundles.ts          (or: npm run bench:bundles)
 *   BENCH_REPS=15                     (fresh-process imports per bundle, at least 7)
 *   BENCH_KEEP=1                      (keep the bundles in the temp dir instead of deleting them)
 *
 * Every function (each group of `shared/routes.ts`, plus the `schedule`, `relay` and `deliveries`
 * workers) and a generated baseline handler are bundled with esbuild's JS API using the
 * options `lib/lambda.ts` gives CDK's NodejsFunction (its exported `lambdaBundling`, turned
 * into esbuild's options by `esbuildOptionsOf` below), into a directory under os.tmpdir().
 * For each bundle it prints the minified bytes of `index.mjs`, its gzip bytes (zlib, default
 * level), and the time `await import()` of it takes in a fresh `node` process (median and p90
 * over BENCH_REPS processes, bundles taken round-robin after one discarded warm-up import each,
 * so load changes hit them alike), each as a ratio to the baseline. Target: within 1.5x.
 *
 * The child processes get the Lambda's NODE_OPTIONS (`--enable-source-maps`, set by
 * lib/lambda.ts) and the settings a function reads, though importing a function builds
 * nothing: `lambdaEntry` builds the clients on the first invocation. That first invocation is
 * not timed; the import is the figure. Finally the esbuild metafile of the largest bundle shows
 * which inputs, and which packages, take its bytes.
 *
 * Exit code 0 even when a function is over target; each such function gets an "over target"
 * line. A bundle that fails to build or to import is an error (exit 1).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as esbuild from 'esbuild';
import { lambdaBundling } from '../lib/lambda.ts';
import { groups } from '../shared/routes.ts';
import { fmtLoad, fmtRatio, formatTable, median, positiveInt, quantile, reportHeadlines } from './support.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const REPS = positiveInt(process.env.BENCH_REPS, 15);
if (REPS < 7) throw new Error(`BENCH_REPS must be at least 7, got ${REPS}`);
const KEEP = process.env.BENCH_KEEP === '1';
const TARGET = 1.5;

// ---------------------------------------------------------------------------------------------
// The Lambda build: lib/lambda.ts's `lambdaBundling`, as the esbuild call CDK's NodejsFunction
// makes for it (aws-lambda-nodejs `buildEsbuildArgs`), run from the project root:
//   esbuild --bundle <entry> --platform=node --target=<target> --format=<format> --outfile=<dir>/index.mjs
//     [--minify] [--sourcemap] [--sources-content=false] [--banner:js=<banner>] [--main-fields=<fields>]
//     [--external:<module> ...] [--alias:<module>=<path> (esbuildArgs)]
// Only the options lib/lambda.ts sets are translated; any other one stops the bench, rather than
// measuring a build that differs from the deployed one.

/** Options of `lambdaBundling` translated below; `forceDockerBundling` changes where esbuild runs, not what it builds. */
const translated = new Set([
  'forceDockerBundling',
  'format',
  'target',
  'mainFields',
  'banner',
  'minify',
  'sourceMap',
  'sourcesContent',
  'externalModules',
  'esbuildArgs',
]);

/** `esbuildArgs`' `--alias` entries (`<module>=<path>`, the path from the project root), as esbuild's `alias`. */
function aliasesOf(args: BundlingOptions['esbuildArgs']): Record<string, string> {
  const unknown = Object.keys(args ?? {}).filter((key) => key !== '--alias');
  if (unknown.length) throw new Error(`bench/bundles.ts does not translate esbuildArgs ${unknown.join(', ')}`);
  const entries = [args?.['--alias'] ?? []].flat() as string[];
  return Object.fromEntries(
    entries.map((entry) => entry.split('=') as [string, string]).map(([module, target]) => [module, path.resolve(root, target)]),
  );
}

function esbuildOptionsOf(bundling: BundlingOptions): esbuild.BuildOptions {
  const unknown = Object.keys(bundling).filter((key) => !translated.has(key));
  if (unknown.length)
    throw new Error(
      `bench/bundles.ts does not translate lambdaBundling.${unknown.join(', lambdaBundling.')} to esbuild; add it to esbuildOptionsOf`,
    );
  return {
    bundle: true,
    platform: 'node',
    // NodejsFunction's defaults: CommonJS, and the target of the runtime (always set here).
    format: bundling.format ?? 'cjs',
    ...(bundling.target === undefined ? {} : { target: bundling.target }),
    minify: bundling.minify ?? false,
    sourcemap: bundling.sourceMap ?? false,
    ...(bundling.sourcesContent === false ? { sourcesContent: false } : {}),
    ...(bundling.mainFields === undefined ? {} : { mainFields: bundling.mainFields }),
    ...(bundling.banner === undefined ? {} : { banner: { js: bundling.banner } }),
    // NodejsFunction leaves @aws-sdk/* out unless told otherwise; lib/lambda.ts always says.
    external: bundling.externalModules ?? ['@aws-sdk/*'],
    ...(bundling.esbuildArgs ? { alias: aliasesOf(bundling.esbuildArgs) } : {}),
    absWorkingDir: root,
  };
}

const lambdaBuildOptions = esbuildOptionsOf(lambdaBundling);

/** The Lambda sets this (lib/lambda.ts); it changes what loading a bundle costs. */
const LAMBDA_NODE_OPTIONS = '--enable-source-maps';

/** What a function reads from its environment (only on first invocation, but set anyway). */
const functionEnv = {
  HUSHLINK_MODE: 'aws',
  TABLE_NAME: 't',
  WEB_ORIGIN: 'https://x.example',
  REGION: 'us-east-1',
};

const BASELINE = 'baseline';
const baselineSource = [
  "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';",
  "import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';",
  'const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));',
  'export const handler = async () => ({ statusCode: 200 });',
].join('\n');

/**
 * A baseline of the SDK clients some functions must carry, on top of DynamoDB's: the 1.5x is
 * what the service adds on top of them. Any other function found carrying the client's package
 * fails the run (the wiring issue 10 fixed).
 */
interface ClientBaseline {
  name: string;
  /** The functions held to it. */
  functions: readonly string[];
  /** The package whose presence marks a function as carrying the client. */
  marker: string;
  source: string;
  legend: string;
}

/**
 * The files function alone calls S3's multipart API, through @aws-sdk/client-s3 (the client the
 * stack is asked to use); importing that client costs 1.4x the DynamoDB baseline by itself. So
 * it is held to a baseline that also creates an S3 client and imports the commands and the
 * presigner it uses.
 */
const S3_BASELINE = 'baseline + S3';
/**
 * The billing functions call Stripe through its official SDK (the package the user named),
 * which is one module of every resource it knows (240 KiB minified, no deep imports): 1.4x the
 * DynamoDB baseline by itself. They read its secrets from Secrets Manager.
 */
const STRIPE_BASELINE = 'baseline + Stripe';
/**
 * The schedule alone serves workspaces' hostnames through CloudFront's SaaS Manager API, with
 * @aws-sdk/client-cloudfront (issue 17), and completes large uploads with S3's (issue 28).
 */
const CLOUDFRONT_BASELINE = 'baseline + CloudFront + S3';
/**
 * The functions that seal or open third parties' secrets (webhook signing secrets, chat bot
 * tokens, workspaces' SSO client secrets) carry KMS's client (the sealing key, ADR 0171).
 */
const KMS_BASELINE = 'baseline + KMS';
const dynamoLines = baselineSource.split('\n').slice(0, 3).join('\n');
const clientBaselines: readonly ClientBaseline[] = [
  {
    name: CLOUDFRONT_BASELINE,
    functions: ['schedule'],
    marker: '@aws-sdk/client-cloudfront',
    source: [
      dynamoLines,
      "import { CloudFrontClient, CreateDistributionTenantCommand, GetDistributionTenantCommand, UpdateDistributionTenantCommand, DeleteDistributionTenantCommand, GetManagedCertificateDetailsCommand } from '@aws-sdk/client-cloudfront';",
      "import { S3Client, ListPartsCommand, CompleteMultipartUploadCommand, AbortMultipartUploadCommand, HeadObjectCommand, GetObjectCommand, DeleteObjectCommand } from '@aws-sdk/client-s3';",
      'const cloudfront = new CloudFrontClient({});',
      'const s3 = new S3Client({});',
      'export const used = [cloudfront, CreateDistributionTenantCommand, GetDistributionTenantCommand, UpdateDistributionTenantCommand, DeleteDistributionTenantCommand, GetManagedCertificateDetailsCommand, s3, ListPartsCommand, CompleteMultipartUploadCommand, AbortMultipartUploadCommand, HeadObjectCommand, GetObjectCommand, DeleteObjectCommand, client];',
      'export const handler = async () => ({ statusCode: 200 });',
    ].join('\n'),
    legend: 'also creating a CloudFront client (distribution tenants) and an S3 client (large uploads completed in the background)',
  },
  {
    name: S3_BASELINE,
    functions: ['files', 'schedule'],
    marker: '@aws-sdk/client-s3',
    source: [
      dynamoLines,
      "import { S3Client, CreateMultipartUploadCommand, UploadPartCommand, ListPartsCommand, CompleteMultipartUploadCommand, AbortMultipartUploadCommand, HeadObjectCommand, GetObjectCommand, DeleteObjectCommand } from '@aws-sdk/client-s3';",
      "import { getSignedUrl } from '@aws-sdk/s3-request-presigner';",
      'const s3 = new S3Client({});',
      'export const commands = [CreateMultipartUploadCommand, UploadPartCommand, ListPartsCommand, CompleteMultipartUploadCommand, AbortMultipartUploadCommand, HeadObjectCommand, GetObjectCommand, DeleteObjectCommand, getSignedUrl, s3, client];',
      'export const handler = async () => ({ statusCode: 200 });',
    ].join('\n'),
    legend: 'also creating an S3 client and importing the S3 commands and presigner the files function uses',
  },
  {
    name: STRIPE_BASELINE,
    functions: ['billing', 'billingWebhook'],
    marker: 'stripe',
    source: [
      dynamoLines,
      "import Stripe from 'stripe';",
      "import { SecretsManagerClient, GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';",
      "const stripe = new Stripe('sk_bench');",
      'const secrets = new SecretsManagerClient({});',
      'export const used = [stripe, secrets, GetSecretValueCommand, client];',
      'export const handler = async () => ({ statusCode: 200 });',
    ].join('\n'),
    legend: 'also creating a Stripe client (the official SDK) and a Secrets Manager client for its keys',
  },
  {
    name: KMS_BASELINE,
    functions: ['account', 'workspaces', 'webhooks', 'chat', 'deliveries'],
    marker: '@aws-sdk/client-kms',
    source: [
      dynamoLines,
      "import { KMSClient, EncryptCommand, DecryptCommand } from '@aws-sdk/client-kms';",
      'const kms = new KMSClient({});',
      'export const used = [kms, EncryptCommand, DecryptCommand, client];',
      'export const handler = async () => ({ statusCode: 200 });',
    ].join('\n'),
    legend: "also creating a KMS client: the functions that seal or open third parties' secrets (webhooks, chat, SSO clients)",
  },
];
const isBaseline = (name: string) => name === BASELINE || clientBaselines.some((baseline) => baseline.name === name);
const baselineSourceOf = (name: string) =>
  name === BASELINE ? baselineSource : clientBaselines.find((baseline) => baseline.name === name)!.source;

// ---------------------------------------------------------------------------------------------
// Build

interface Bundle {
  name: string;
  file: string;
  minBytes: number;
  gzipBytes: number;
  mapBytes: number;
  metafile: esbuild.Metafile;
  importMs: number[];
}

async function build(name: string, outDir: string): Promise<Bundle> {
  const outfile = path.join(outDir, name.replace(/\W+/g, '-'), 'index.mjs');
  const entry: esbuild.BuildOptions = isBaseline(name)
    ? { stdin: { contents: baselineSourceOf(name), resolveDir: root, sourcefile: 'bench-baseline.ts', loader: 'ts' } }
    : { entryPoints: [path.join(root, 'functions', `${name}.ts`)] };
  // The baseline is the smallest handler as one writes it with the SDK's defaults: the same
  // build, but the SDK's own credential chain (our functions take the role's from the
  // environment, lib/lambdaCredentials). Its size is what issue 10's 1.5x target was set against.
  const { alias: _alias, ...naive } = lambdaBuildOptions;
  const result = await esbuild.build({
    ...(isBaseline(name) ? naive : lambdaBuildOptions),
    ...entry,
    outfile,
    metafile: true,
    logLevel: 'warning',
  });
  const code = readFileSync(outfile);
  return {
    name,
    file: outfile,
    minBytes: code.length,
    gzipBytes: gzipSync(code).length,
    mapBytes: statSync(`${outfile}.map`).size,
    metafile: result.metafile,
    importMs: [],
  };
}

// ---------------------------------------------------------------------------------------------
// Cold import in a fresh node process

const runner =
  'const t = performance.now(); const m = await import(process.argv[1]);' +
  " if (typeof m.handler !== 'function') throw new Error('no handler export');" +
  ' console.log(performance.now() - t);';

function coldImport(file: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', runner, pathToFileURL(file).href], {
      // A clean environment: nothing of tsx's or the caller's NODE_OPTIONS reaches the child.
      env: { PATH: process.env.PATH ?? '', HOME: tmpdir(), NODE_OPTIONS: LAMBDA_NODE_OPTIONS, ...functionEnv },
      cwd: path.dirname(file),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(out.trim());
      if (code !== 0 || !Number.isFinite(ms)) reject(new Error(`importing ${file} failed (exit ${code}):\n${err || out}`));
      else resolve(ms);
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Figures

const kib = (bytes: number) => (bytes / 1024).toFixed(1);

/** `node_modules/@scope/name/...` → `@scope/name`; project files → `(project) <dir>`. */
function packageOf(input: string): string {
  const parts = input.split('/');
  const at = parts.lastIndexOf('node_modules');
  if (at === -1) return `(project) ${parts.slice(0, -1).join('/') || '.'}`;
  const first = parts[at + 1]!;
  return first.startsWith('@') ? `${first}/${parts[at + 2]}` : first;
}

function bytesByInput(bundle: Bundle): Map<string, number> {
  const [, output] = Object.entries(bundle.metafile.outputs).find(([file]) => file.endsWith('.mjs'))!;
  return new Map(Object.entries(output.inputs).map(([input, { bytesInOutput }]) => [input, bytesInOutput]));
}

function bytesByPackage(bundle: Bundle): Map<string, number> {
  const totals = new Map<string, number>();
  for (const [input, bytes] of bytesByInput(bundle)) totals.set(packageOf(input), (totals.get(packageOf(input)) ?? 0) + bytes);
  return totals;
}

// ---------------------------------------------------------------------------------------------

async function main() {
  // Every function of the stack (lib/stack.ts FunctionName): the API groups and the three workers.
  const names = [...groups, 'schedule', 'relay', 'deliveries', BASELINE, ...clientBaselines.map((baseline) => baseline.name)];
  const outDir = mkdtempSync(path.join(tmpdir(), 'hushlink-bundles-'));
  console.log(
    `hushlink bench:bundles  esbuild ${esbuild.version}  node ${process.version} (Lambda runs node22)  ` +
      `${cpus().length} CPUs, load ${fmtLoad(loadavg())}`,
  );
  console.log(
    `esbuild options: lib/lambda.ts lambdaBundling as NodejsFunction passes them: ${JSON.stringify(lambdaBuildOptions, (key, value) => (key === 'absWorkingDir' ? undefined : value))}`,
  );
  console.log(`bundles in ${outDir}${KEEP ? ' (kept)' : ' (deleted at the end; BENCH_KEEP=1 keeps them)'}`);

  try {
    const started = performance.now();
    const bundles = await Promise.all(names.map((name) => build(name, outDir)));
    console.log(`built ${bundles.length} bundles in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    // One discarded import each (file cache, node's own start-up paths), then round-robin.
    for (const bundle of bundles) await coldImport(bundle.file);
    for (let rep = 0; rep < REPS; rep++) {
      const order = bundles.map((_, i) => bundles[(i + rep) % bundles.length]!);
      for (const bundle of order) bundle.importMs.push(await coldImport(bundle.file));
    }

    const base = bundles.find((b) => b.name === BASELINE)!;
    const overTarget: string[] = [];
    const ratios: { name: string; gzip: number; coldImport: number }[] = [];
    for (const b of bundles.filter((bundle) => !isBaseline(bundle.name))) {
      for (const { marker, functions } of clientBaselines) {
        const carries = bytesByPackage(b).has(marker);
        if (carries !== functions.includes(b.name))
          overTarget.push(
            `wiring: ${b.name} ${carries ? 'carries' : 'no longer carries'} ${marker} (its functions: ${functions.join(', ')})`,
          );
      }
    }
    /** The baseline a bundle is held to: that of the clients it must carry, else DynamoDB's. */
    const baselineOf = (b: Bundle) => {
      const clients = clientBaselines.find((baseline) => baseline.name === b.name || baseline.functions.includes(b.name));
      return clients ? bundles.find((bundle) => bundle.name === clients.name)! : base;
    };
    const rows = bundles.map((b) => {
      const own = baselineOf(b);
      const gzipRatio = b.gzipBytes / own.gzipBytes;
      const importRatio = median(b.importMs) / median(own.importMs);
      const over = [
        ...(gzipRatio > TARGET ? [`gzip size ${fmtRatio(gzipRatio, 2)}`] : []),
        ...(importRatio > TARGET ? [`cold import ${fmtRatio(importRatio, 2)}`] : []),
      ];
      if (!isBaseline(b.name)) ratios.push({ name: b.name, gzip: gzipRatio, coldImport: importRatio });
      if (!isBaseline(b.name) && over.length)
        overTarget.push(`over target: ${b.name}: ${over.join(', ')} of ${own.name} (target ${TARGET}x)`);
      return [
        isBaseline(b.name) ? `(${b.name})` : b.name,
        kib(b.minBytes),
        kib(b.gzipBytes),
        own === base ? '' : own.name,
        fmtRatio(gzipRatio, 2),
        fmtRatio(b.gzipBytes / base.gzipBytes, 2),
        `${median(b.importMs).toFixed(1)} / ${quantile(b.importMs, 0.9).toFixed(1)}`,
        fmtRatio(importRatio, 2),
        b.name === BASELINE ? '-' : isBaseline(b.name) ? '(its clients)' : over.length ? 'NO' : 'yes',
      ];
    });

    console.log('');
    console.log(
      formatTable(
        [
          'function',
          'minified KiB',
          'gzip KiB',
          'its baseline (if not DynamoDB)',
          'gzip vs its baseline',
          'gzip vs DynamoDB baseline',
          'cold import ms (median / p90)',
          'import vs its baseline',
          `within ${TARGET}x?`,
        ],
        rows,
        (col) => col >= 1 && col <= 7 && col !== 3,
        'markdown',
      ),
    );
    console.log('');
    console.log('Legend:');
    console.log('  minified KiB    size of index.mjs as built for Lambda (esbuild, options of lib/lambda.ts); the');
    console.log(
      `                  source map beside it (not counted) is ${bundles.map((b) => `${b.name} ${kib(b.mapBytes)}`).join(', ')} KiB`,
    );
    console.log('  gzip KiB        index.mjs through zlib gzip at its default level (what the transfer roughly costs)');
    console.log(`  cold import     ms from before to after \`await import(index.mjs)\` in a fresh node process with`);
    console.log(`                  NODE_OPTIONS=${LAMBDA_NODE_OPTIONS}; median / p90 of ${REPS} processes (node start-up excluded)`);
    console.log(`  baseline        a handler importing only @aws-sdk/client-dynamodb and @aws-sdk/lib-dynamodb and`);
    console.log('                  creating the document client at import; built and timed in this run');
    for (const { name, legend, functions, marker } of clientBaselines) {
      console.log(`  ${name.padEnd(15)} the same, ${legend}:`);
      console.log(`                  the baseline of ${functions.join(', ')}; any other function carrying ${marker} fails`);
    }
    console.log(`  within ${TARGET}x?    yes when both the gzip size and the median cold import are at most ${TARGET}x its baseline's`);
    console.log(`  load average at the end: ${fmtLoad(loadavg())} (import times are noisy under load; sizes are exact)`);
    console.log('');
    if (overTarget.length) for (const line of overTarget) console.log(line);
    else console.log(`all functions within ${TARGET}x of the baseline of the SDK clients they carry`);
    const worst = (key: 'gzip' | 'coldImport') => ratios.reduce((a, b) => (b[key] > a[key] ? b : a));
    const wiring = overTarget.filter((line) => line.startsWith('wiring:')).length;
    reportHeadlines('bundles', [
      ...(['gzip', 'coldImport'] as const).map((key) => {
        const { name, [key]: ratio } = worst(key);
        return {
          name: `largest ${key === 'gzip' ? 'gzip size' : 'median cold import'} / its baseline (${name})`,
          value: fmtRatio(ratio, 2),
          target: `≤ ${TARGET.toFixed(2)}x`,
          met: ratio <= TARGET,
        };
      }),
      { name: 'functions carrying a client they never call', value: String(wiring), target: '0', met: wiring === 0 },
    ]);

    // What dominates the largest bundle.
    const largest = bundles.filter((b) => !isBaseline(b.name)).reduce((a, b) => (b.minBytes > a.minBytes ? b : a));
    const total = largest.minBytes;
    const inputs = [...bytesByInput(largest)].sort((a, b) => b[1] - a[1]).slice(0, 10);
    console.log('');
    console.log(`Largest bundle: ${largest.name} (${kib(total)} KiB minified). Top 10 inputs by bytes in the output (esbuild metafile):`);
    console.log(
      formatTable(
        ['input', 'KiB', 'share'],
        inputs.map(([input, bytes]) => [input, kib(bytes), `${((100 * bytes) / total).toFixed(1)}%`]),
        (col) => col >= 1,
        'markdown',
      ),
    );
    const basePackages = bytesByPackage(base);
    const packages = [...bytesByPackage(largest)].sort((a, b) => b[1] - a[1]).slice(0, 12);
    console.log('');
    console.log(`${largest.name} by package (top 12), next to the baseline:`);
    console.log(
      formatTable(
        ['package', `${largest.name} KiB`, 'baseline KiB', 'share'],
        packages.map(([pkg, bytes]) => [pkg, kib(bytes), kib(basePackages.get(pkg) ?? 0), `${((100 * bytes) / total).toFixed(1)}%`]),
        (col) => col >= 1,
        'markdown',
      ),
    );
  } finally {
    if (!KEEP) rmSync(outDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
