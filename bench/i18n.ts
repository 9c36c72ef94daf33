/**
 * What the pages' languages cost (issue 32, ADR 0183): per page, the gzip bytes the translation
 * machinery adds to its script, against the same page built in the same run with
 * `web/src/i18n.ts` replaced by a module that answers each key with itself (the baseline), and the gzip bytes of
 * the one messages file it fetches, in four languages. Target: the machinery at most 8 KB gzip
 * on every page.
 *
 *   npx tsx bench/i18n.ts          (or: npm run bench:i18n)
 *
 * Built with web/build.ts's own esbuild options; the messages files are buildWeb's output.
 */
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Plugin } from 'esbuild';
import { buildWeb, pageEntries } from '../web/build.ts';
import { formatTable, reportHeadlines } from './support.ts';

const webSource = resolve(fileURLToPath(new URL('../web/src', import.meta.url)));
const TARGET_BYTES = 8 * 1024;

/** The baseline: the page with no machinery, its i18n module answering every key with itself. */
const keysOnlyI18n: Plugin = {
  name: 'keys-only-i18n',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /(^|\/)i18n\.ts$/ }, (args) =>
      args.resolveDir === webSource ? { path: 'i18n-keys-only', namespace: 'keys-only' } : undefined,
    );
    pluginBuild.onLoad({ filter: /.*/, namespace: 'keys-only' }, () => ({
      contents: `export const language = 'en'; export const locale = 'en';
        export const t = (key) => key; export const tNodes = (key) => [key];
        export const localize = () => {}; export const hasMessage = () => false;
        export const holdLanguageSwitch = () => {};`,
      loader: 'js',
    }));
  },
};

async function gzipOfPage(page: string, plugins: Plugin[]): Promise<number> {
  const result = await build({
    entryPoints: [join(webSource, `${page}.ts`)],
    bundle: true,
    format: 'esm',
    target: 'es2022',
    platform: 'browser',
    minify: true,
    write: false,
    logLevel: 'silent',
    alias: { '@formatjs/icu-messageformat-parser': '@formatjs/icu-messageformat-parser/no-parser.js' },
    plugins,
  });
  return gzipSync(result.outputFiles[0]!.contents).length;
}

const assets = await buildWeb();
const rows: string[][] = [];
let worst = 0;
for (const page of pageEntries) {
  const [withMachinery, baseline] = await Promise.all([gzipOfPage(page, []), gzipOfPage(page, [keysOnlyI18n])]);
  const machinery = withMachinery - baseline;
  worst = Math.max(worst, machinery);
  const messages = (language: string) => gzipSync(assets.get(`/assets/i18n/${page}.${language}.json`)!.body).length;
  rows.push([
    page,
    String(baseline),
    String(withMachinery),
    String(machinery),
    machinery <= TARGET_BYTES ? 'met' : 'MISSED',
    ...['en', 'de', 'ja', 'ar'].map((language) => String(messages(language))),
  ]);
}
console.log('Page scripts, gzip bytes: the baseline’s web/src/i18n.ts answers keys; machinery = with - baseline (target ≤ 8192)');
console.log(
  formatTable(
    ['page', 'baseline', 'with i18n', 'machinery', 'target', 'msgs en', 'msgs de', 'msgs ja', 'msgs ar'],
    rows,
    (column) => column > 0 && column !== 4,
  ),
);
console.log(
  `largest machinery: ${worst} bytes gzip (${(worst / 1024).toFixed(2)} KB), target ${TARGET_BYTES}: ${worst <= TARGET_BYTES ? 'met' : 'missed'}`,
);
reportHeadlines('i18n', [
  { name: 'largest i18n machinery in a page script, gzip', value: `${worst} B`, target: `≤ ${TARGET_BYTES} B`, met: worst <= TARGET_BYTES },
]);
