// The packed CLI is one file: shared/envelope, the transfer code and the progress bar are
// bundled in (a package's `files` cannot reach ../shared), so it installs with no dependencies.
// `node build.js [OUTFILE]` (prepack) writes it; the tests and the bench build the same way.
import { fileURLToPath } from 'node:url';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));

/** esbuild's options for the bundle written to `outfile`. */
export const bundleOptions = (outfile) => ({
  entryPoints: [here('./src/cli.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  minify: true,
  legalComments: 'none',
  // cli-progress is CommonJS: give its require() calls one to use.
  banner: { js: "import { createRequire as __hushlinkRequire } from 'node:module'; const require = __hushlinkRequire(import.meta.url);" },
  logLevel: 'warning',
});

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { build } = await import('esbuild');
  await build(bundleOptions(process.argv[2] ?? here('./dist/hushlink.mjs')));
}
