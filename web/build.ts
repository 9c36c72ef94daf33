import { readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { areasOf, checkMarkup, pageMessages, readAllCatalogues } from './catalogues.ts';
import { expandIncludes } from './partials.ts';
import { languages, type PageLanguage, pseudoLanguage } from '../shared/languages.ts';

export interface WebAsset {
  body: Buffer;
  contentType: string;
}

const webRoot = resolve(fileURLToPath(new URL('.', import.meta.url)));

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.txt': 'text/plain; charset=utf-8',
};

/** Every page script under web/src that is an entry point (one per page). */
export const pageEntries = [
  'compose',
  'reveal',
  'signin',
  'account',
  'keys',
  'sessions',
  'webhooks',
  'requests',
  'respond',
  'workspaces',
  'workspace',
  'join',
  'plans',
  'billing',
  'signinSso',
  'chatInstalled',
  'notFound',
];

/**
 * The reveal page's download worker (`web/src/downloadWorker.ts`): served beside the scope it
 * registers for, `/download/`, which no page is under. A classic script, as every browser with
 * service workers runs one.
 */
export const downloadWorkerPath = '/download/worker.js';

/**
 * Pages served at a path of their own (`/signin` → `/signin.html`; `/signin/sso` →
 * `/signin/sso.html`, from `web/public/signin/sso.html`, so that lib/web.ts finds its rewrite from
 * the file as it finds the others').
 */
const namedPages = [
  '/signin',
  '/signin/sso',
  '/account',
  '/keys',
  '/sessions',
  '/webhooks',
  '/requests',
  '/workspaces',
  '/workspace',
  '/join',
  '/plans',
  '/billing',
  '/chat/installed',
];

/**
 * The one stylesheet as served (the CSP allows only it): `public/styles.css`, the base every page
 * uses, then each area's own file under `web/styles/` in name order, so that an area's rules live
 * beside each other and after the base ones they refine.
 */
function withStyleParts(base: Buffer): Buffer {
  const partsRoot = join(webRoot, 'styles');
  const parts = readdirSync(partsRoot)
    .filter((name) => name.endsWith('.css'))
    .sort();
  return Buffer.concat([
    base,
    ...parts.map((name) => Buffer.concat([Buffer.from(`\n/* ${name} */\n`), readFileSync(join(partsRoot, name))])),
  ]);
}

/**
 * The web client as served: `web/public/*` as they are, each page script bundled by esbuild
 * into `/assets/<page>.js`, and the download worker. Built in memory at start; nothing
 * generated is written.
 */
export async function buildWeb(): Promise<Map<string, WebAsset>> {
  const assets = new Map<string, WebAsset>();
  const catalogues = readAllCatalogues();
  const english = new Map([...catalogues.get('en')!.values()].flatMap((area) => [...area]));
  const publicRoot = join(webRoot, 'public');
  // Served as they sit under public/, folders included (`signin/sso.html` is `/signin/sso.html`).
  for (const entry of readdirSync(publicRoot, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const name = relative(publicRoot, join(entry.parentPath, entry.name)).split(sep).join('/');
    const raw = readFileSync(join(publicRoot, name));
    // Pages share their head, header and footer through includes (web/partials.ts).
    const body =
      extname(name) === '.html'
        ? Buffer.from(checkedPage(expandIncludes(raw.toString('utf8'), name), name, english))
        : name === 'styles.css'
          ? withStyleParts(raw)
          : raw;
    assets.set(`/${name}`, { body, contentType: contentTypes[extname(name)] ?? 'application/octet-stream' });
  }
  const result = await build({
    entryPoints: Object.fromEntries(pageEntries.map((page) => [page, join(webRoot, 'src', `${page}.ts`)])),
    bundle: true,
    format: 'esm',
    target: 'es2022',
    platform: 'browser',
    minify: true,
    outdir: '/assets',
    // The messages arrive compiled (web/catalogues.ts), so the browser needs no ICU parser.
    alias: { '@formatjs/icu-messageformat-parser': '@formatjs/icu-messageformat-parser/no-parser.js' },
    write: false,
    logLevel: 'silent',
  });
  const worker = await build({
    entryPoints: [join(webRoot, 'src', 'downloadWorker.ts')],
    bundle: true,
    format: 'iife',
    target: 'es2022',
    platform: 'browser',
    minify: true,
    outfile: downloadWorkerPath,
    write: false,
    logLevel: 'silent',
  });
  for (const file of [...result.outputFiles, ...worker.outputFiles]) {
    assets.set(file.path, {
      body: Buffer.from(file.contents),
      contentType: contentTypes[extname(file.path)] ?? 'application/octet-stream',
    });
  }
  addPageMessages(assets, catalogues);
  return assets;
}

function checkedPage(html: string, name: string, english: Map<string, string>): string {
  checkMarkup(html, `web/public/${name}`, english);
  return html;
}

/**
 * Each page's messages in each language, `/assets/i18n/<page>.<language>.json` (web/src/i18n.ts
 * fetches its own): the areas named by the pages that load the page's script and by its bundle.
 */
function addPageMessages(assets: Map<string, WebAsset>, catalogues: ReturnType<typeof readAllCatalogues>): void {
  const areas = [...catalogues.get('en')!.keys()];
  for (const page of pageEntries) {
    const script = `/assets/${page}.js`;
    const bundle = assets.get(script)!.body.toString('utf8');
    const html = [...assets.entries()]
      .filter(([path, asset]) => path.endsWith('.html') && asset.body.includes(`src="${script}"`))
      .map(([, asset]) => asset.body.toString('utf8'))
      .join('\n');
    const used = areasOf(html, bundle, areas);
    for (const language of [...languages, pseudoLanguage] as PageLanguage[]) {
      assets.set(`/assets/i18n/${page}.${language}.json`, {
        body: Buffer.from(pageMessages(catalogues, used, language)),
        contentType: contentTypes['.json']!,
      });
    }
  }
}

/**
 * The page every path no asset answers gets, with status 404 (`local/web.ts`; in AWS the web
 * behaviours' functions, lib/web.ts). The API's paths keep their own answers.
 */
export const notFoundPage = '/404.html';

/** A secret's link: `/s/<id>`, or a per-recipient link `/s/<id>/r/<recipientId>` (one segment each). */
export const secretPagePath = /^\/s\/[^/]+(?:\/r\/[^/]+)?$/;

/** A request link: `/q/<id>` (one segment), which a responder opens. */
export const requestPagePath = /^\/q\/[^/]+$/;

/**
 * The file that serves a path: `/` is the compose page, `/s/<id>` and `/s/<id>/r/<recipientId>`
 * the reveal page, `/q/<id>` the responder's page of a request link, `/signin` (and
 * `/signin/sso`, where a single sign-on comes back with its one-time code), `/account`,
 * `/keys`, `/sessions`, `/webhooks`, `/requests`, `/workspaces`, `/workspace` (`?id=`) and
 * `/billing` the account pages, `/plans` the plans (signed in or not), and `/join` an
 * invitation's link (`/join#<token>`).
 */
export function assetPathFor(pathname: string): string {
  if (pathname === '/') return '/index.html';
  if (secretPagePath.test(pathname)) return '/reveal.html';
  if (requestPagePath.test(pathname)) return '/respond.html';
  if (namedPages.includes(pathname)) return `${pathname}.html`;
  return pathname;
}
