/**
 * The pages' message catalogues (ADR 0183): `web/i18n/<language>/<area>.json`, each a flat object
 * of `"<area>.<name>": "ICU MessageFormat"`. At build, a page gets one file per language,
 * `/assets/i18n/<page>.<language>.json`, holding only the areas its markup and bundle name, with
 * every message compiled to the parser's AST (a plain string when it has no argument), so the
 * browser runs intl-messageformat without its parser. The pseudo-locale is made here from English.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type MessageFormatElement, parse, TYPE } from '@formatjs/icu-messageformat-parser';
import { languages, type PageLanguage, pseudoLanguage } from '../shared/languages.ts';

export const cataloguesRoot = resolve(fileURLToPath(new URL('i18n', import.meta.url)));

/** Every area's messages in one language: area → key → source message. */
export type Catalogue = Map<string, Map<string, string>>;

export function readCatalogue(language: string, root = cataloguesRoot): Catalogue {
  const catalogue: Catalogue = new Map();
  const folder = join(root, language);
  // A language with no folder yet has no messages; the catalogue check (scripts/check-catalogues.ts) fails on it.
  if (!existsSync(folder)) return catalogue;
  for (const file of readdirSync(folder).filter((name) => name.endsWith('.json'))) {
    const area = file.slice(0, -'.json'.length);
    const raw = JSON.parse(readFileSync(join(folder, file), 'utf8')) as Record<string, unknown>;
    const messages = new Map<string, string>();
    for (const [key, value] of Object.entries(raw)) {
      if (typeof value !== 'string') throw new Error(`web/i18n/${language}/${file}: ${key} is not a string`);
      if (!key.startsWith(`${area}.`)) throw new Error(`web/i18n/${language}/${file}: ${key} is not in area ${area}`);
      messages.set(key, value);
    }
    catalogue.set(area, messages);
  }
  return catalogue;
}

/** ICU MessageFormat with apostrophe quoting; `<` is plain text (no rich-text tags). */
export const parseMessage = (message: string): MessageFormatElement[] => parse(message, { ignoreTag: true });

/** What the browser gets for one message: its text when it has no argument, else its AST. */
export function compileMessage(message: string): string | MessageFormatElement[] {
  const ast = parseMessage(message);
  if (ast.length === 0) return '';
  if (ast.length === 1 && ast[0]!.type === TYPE.literal) return ast[0]!.value;
  return stripLocations(ast);
}

function stripLocations(ast: MessageFormatElement[]): MessageFormatElement[] {
  return JSON.parse(JSON.stringify(ast, (key, value) => (key === 'location' ? undefined : value)));
}

const accents: Record<string, string> = Object.fromEntries(
  [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'].map((letter, index) => [
    letter,
    [...'àƀçđéƒĝĥîĵķĺɱñöþǫŕšţûṽŵẋýžÀƁÇĐÉƑĜĤÎĴĶĹṀÑÖÞǪŔŠŢÛṼŴẊÝŽ'][index]!,
  ]),
);

/** The pseudo-locale's markers: every message starts with ⟦ and ends with ⟧. */
export const pseudoMarks = { open: '⟦', close: '⟧' } as const;

/** English accented, 40 % longer, between the marks; arguments and plural forms keep their shape. */
export function pseudoMessage(english: string): MessageFormatElement[] {
  const ast = stripLocations(parseMessage(english));
  const letters = english.replace(/\{[^}]*\}/g, '').length;
  const padding = '·'.repeat(Math.ceil(letters * 0.4));
  const accent = (elements: MessageFormatElement[]): void => {
    for (const element of elements) {
      if (element.type === TYPE.literal) element.value = [...element.value].map((c) => accents[c] ?? c).join('');
      if (element.type === TYPE.plural || element.type === TYPE.select) {
        for (const option of Object.values(element.options)) accent(option.value);
      }
    }
  };
  accent(ast);
  return [{ type: TYPE.literal, value: pseudoMarks.open }, ...ast, { type: TYPE.literal, value: `${padding}${pseudoMarks.close}` }];
}

/**
 * The areas a page uses: those its markup names in a `data-i18n*` attribute, and those whose
 * keys its bundle holds as string literals (`"keys.title"`, or a template's `` `problem.${code}` ``).
 */
export function areasOf(html: string, bundle: string, areas: Iterable<string>): string[] {
  const used: string[] = [];
  for (const area of areas) {
    const named = new RegExp(`data-i18n[\\w-]*="${area}\\.`).test(html);
    const coded = new RegExp(`["'\`]${area}\\.`).test(bundle);
    if (named || coded) used.push(area);
  }
  return used.sort();
}

/** Each language's catalogue once per build (the pseudo-locale is English's). */
export function readAllCatalogues(root = cataloguesRoot): Map<string, Catalogue> {
  return new Map(languages.map((language) => [language, readCatalogue(language, root)]));
}

/** The JSON one page fetches for one language: its areas' messages, compiled. */
export function pageMessages(catalogues: Map<string, Catalogue>, areas: string[], language: PageLanguage): string {
  const english = catalogues.get('en')!;
  const translated = language === pseudoLanguage ? undefined : catalogues.get(language);
  const out: Record<string, unknown> = {};
  for (const area of areas) {
    // English's keys, so a key a translation lacks (the catalogue check fails CI on one) reads in English.
    for (const [key, message] of english.get(area) ?? []) {
      out[key] = translated ? compileMessage(translated.get(area)?.get(key) ?? message) : pseudoMessage(message);
    }
  }
  return JSON.stringify(out);
}

const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'", nbsp: '\u00a0' };
const decode = (html: string) => html.replace(/&(#?\w+);/g, (whole, name: string) => entities[name] ?? whole);
const collapse = (text: string) => decode(text).replace(/\s+/g, ' ').trim();

/**
 * The markup's English is the catalogue's: an element with `data-i18n="key"` holds text only
 * (the script replaces all of it), equal to the English message, and a `data-i18n-<attribute>`
 * sits beside that attribute with the English message as its value. A served page that drifted
 * from its catalogue fails the build.
 */
export function checkMarkup(html: string, file: string, english: Map<string, string>): void {
  const problems: string[] = [];
  for (const tag of html.matchAll(/<([a-z][a-z0-9-]*)\b([^>]*)>/g)) {
    const [whole, name, attributes = ''] = tag;
    for (const [, attribute, key] of attributes.matchAll(/\sdata-i18n(-[a-z-]+)?="([^"]*)"/g)) {
      const message = english.get(key!);
      if (message === undefined) {
        problems.push(`${key}: no such English message`);
        continue;
      }
      if (!attribute) {
        const rest = html.slice(tag.index! + whole.length);
        const content = /^([^<]*)<\/([a-z][a-z0-9-]*)>/.exec(rest);
        if (!content || content[2] !== name) problems.push(`${key}: a <${name}> with data-i18n holds text only`);
        else if (content[1]!.trim() && collapse(content[1]!) !== collapse(message))
          problems.push(`${key}: the markup says "${collapse(content[1]!)}", the catalogue "${message}"`);
        continue;
      }
      const target = attribute.slice(1);
      const value = new RegExp(`\\s${target}="([^"]*)"`).exec(attributes);
      if (!value || collapse(value[1]!) !== collapse(message))
        problems.push(`${key}: ${target}="${value?.[1] ?? ''}" is not the catalogue's "${message}"`);
    }
  }
  if (problems.length > 0) throw new Error(`${file}:\n  ${problems.join('\n  ')}`);
}
