// The packed CLI is one file: shared/envelope, the transfer code and the progress bar are
// bundled in (a package's `files` cannot reach ../shared), so it installs with no dependencies.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const outfile = process.argv[2] ?? here('./dist/hushlink.mjs');

await build({
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
