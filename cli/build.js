// The packed CLI is one file: shared/envelope, the transfer code and the progress bar are
// bundled in (a package's `files` cannot reach ../shared), so it installs with no dependencies.
// Its messages are the catalogues in i18n/, beside dist/ in the package (`files`), of which a
// process reads only its own language's (src/i18n.ts).
// `node build.js [OUTFILE]` (prepack) writes it; the tests and the bench build the same way.
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));

/**
 * Where a bundle finds the catalogues: `../i18n/` from itself, as in the package and in this
 * folder's dist/. A bundle written anywhere else (the tests' and the bench's, in a temporary
 * folder) is given this checkout's folder instead.
 */
const catalogues = (outfile) =>
  resolve(dirname(outfile), '../i18n') === resolve(here('./i18n'))
    ? {}
    : { HUSHLINK_CATALOGUES: JSON.stringify(pathToFileURL(here('./i18n/')).href) };

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
  define: catalogues(outfile),
  // cli-progress is CommonJS: give its require() calls one to use.
  banner: { js: "import { createRequire as __hushlinkRequire } from 'node:module'; const require = __hushlinkRequire(import.meta.url);" },
  logLevel: 'warning',
});

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { build } = await import('esbuild');
  await build(bundleOptions(process.argv[2] ?? here('./dist/hushlink.mjs')));
}
