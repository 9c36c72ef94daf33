/**
 * The catalogue checks (issue 32, run by `npm run i18n:check` in .ci/run and by
 * test/unit/catalogues.test.ts): for each set of catalogues (the pages', the emails', the CLI's),
 * every English key in every language and no other; every message valid ICU MessageFormat; the
 * same arguments of the same kinds as English, the same `select` options, and every plural
 * category the language's own rules have; no English key unused by the sources, and no key the
 * sources name missing from English.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { type MessageFormatElement, parse, TYPE } from '@formatjs/icu-messageformat-parser';
import { languages } from '../shared/languages.ts';

export interface CatalogueSet {
  name: string;
  /** language → key → message */
  read(language: string): Map<string, string> | undefined;
  /** The source files whose string literals name keys. */
  sources: string[];
  /** The key prefixes this set owns (a literal starting with one is a key of this set). */
  prefixes: string[];
}

const root = join(import.meta.dirname, '..');

function filesUnder(folder: string, extensions: string[]): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && extensions.some((extension) => entry.name.endsWith(extension)))
    .map((entry) => join(entry.parentPath, entry.name));
}

function readFlat(file: string): Map<string, string> {
  return new Map(Object.entries(JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>));
}

/** The pages' catalogues: one file per area and language (web/catalogues.ts). */
function webSet(): CatalogueSet {
  const folder = join(root, 'web', 'i18n');
  const areas = filesUnder(join(folder, 'en'), ['.json']).map((file) => file.slice(file.lastIndexOf('/') + 1, -5));
  return {
    name: 'web/i18n',
    read: (language) => {
      const dir = join(folder, language);
      if (!existsSync(dir)) return undefined;
      return new Map(filesUnder(dir, ['.json']).flatMap((file) => [...readFlat(file)]));
    },
    sources: [
      ...filesUnder(join(root, 'web', 'src'), ['.ts']),
      ...filesUnder(join(root, 'web', 'public'), ['.html']),
      join(root, 'web', 'partials.ts'),
    ],
    prefixes: areas.map((area) => `${area}.`),
  };
}

/** One file per language (the emails' and the CLI's catalogues). */
function flatSet(name: string, folder: string, sourceFolders: string[], prefix: string): CatalogueSet {
  return {
    name,
    read: (language) => {
      const file = join(root, folder, `${language}.json`);
      return existsSync(file) ? readFlat(file) : undefined;
    },
    sources: sourceFolders.flatMap((source) => filesUnder(join(root, source), ['.ts', '.js'])),
    prefixes: [prefix],
  };
}

export function catalogueSets(): CatalogueSet[] {
  const sets = [webSet()];
  if (existsSync(join(root, 'shared', 'domain', 'mailText')))
    sets.push(flatSet('shared/domain/mailText', 'shared/domain/mailText', ['shared/domain'], 'mail.'));
  if (existsSync(join(root, 'cli', 'i18n'))) sets.push(flatSet('cli/i18n', 'cli/i18n', ['cli/src', 'cli/transfer'], 'cli.'));
  return sets;
}

interface Shape {
  /** argument → its kind (string, number, date, time, plural, select, selectordinal) */
  arguments: Map<string, string>;
  /** select argument → its options */
  selects: Map<string, string[]>;
  /** plural argument → its categories (without exact `=n` ones) */
  plurals: Map<string, { categories: string[]; ordinal: boolean }>;
}

function shapeOf(elements: MessageFormatElement[], shape: Shape = { arguments: new Map(), selects: new Map(), plurals: new Map() }): Shape {
  for (const element of elements) {
    switch (element.type) {
      case TYPE.argument:
        shape.arguments.set(element.value, shape.arguments.get(element.value) ?? 'string');
        break;
      case TYPE.number:
        shape.arguments.set(element.value, 'number');
        break;
      case TYPE.date:
        shape.arguments.set(element.value, 'date');
        break;
      case TYPE.time:
        shape.arguments.set(element.value, 'time');
        break;
      case TYPE.select:
        shape.arguments.set(element.value, 'select');
        shape.selects.set(element.value, Object.keys(element.options).sort());
        for (const option of Object.values(element.options)) shapeOf(option.value, shape);
        break;
      case TYPE.plural:
        shape.arguments.set(element.value, element.pluralType === 'ordinal' ? 'selectordinal' : 'plural');
        shape.plurals.set(element.value, {
          categories: Object.keys(element.options).filter((key) => !key.startsWith('=')),
          ordinal: element.pluralType === 'ordinal',
        });
        for (const option of Object.values(element.options)) shapeOf(option.value, shape);
        break;
      case TYPE.tag:
        shapeOf(element.children, shape);
        break;
      default:
        break;
    }
  }
  return shape;
}

/** Every problem of one set, as lines; empty when the set is sound. */
export function checkSet(set: CatalogueSet): string[] {
  const problems: string[] = [];
  const english = set.read('en');
  if (!english) return [`${set.name}: no English catalogue`];
  const englishShapes = new Map<string, Shape>();
  for (const [key, message] of english) {
    try {
      englishShapes.set(key, shapeOf(parse(message, { ignoreTag: true })));
    } catch (error) {
      problems.push(`${set.name} en ${key}: not MessageFormat (${(error as Error).message})`);
    }
  }
  for (const language of languages.filter((code) => code !== 'en')) {
    const translated = set.read(language);
    if (!translated) {
      problems.push(`${set.name}: no ${language} catalogue`);
      continue;
    }
    const categories = {
      cardinal: new Intl.PluralRules(language).resolvedOptions().pluralCategories as string[],
      ordinal: new Intl.PluralRules(language, { type: 'ordinal' }).resolvedOptions().pluralCategories as string[],
    };
    for (const key of english.keys()) if (!translated.has(key)) problems.push(`${set.name} ${language}: missing ${key}`);
    for (const [key, message] of translated) {
      const expected = englishShapes.get(key);
      if (!english.has(key)) {
        problems.push(`${set.name} ${language}: ${key} is not an English key`);
        continue;
      }
      if (!expected) continue;
      let shape: Shape;
      try {
        shape = shapeOf(parse(message, { ignoreTag: true }));
      } catch (error) {
        problems.push(`${set.name} ${language} ${key}: not MessageFormat (${(error as Error).message})`);
        continue;
      }
      const describe = (s: Shape) =>
        [...s.arguments]
          .map(([name, kind]) => `${name}:${kind}`)
          .sort()
          .join(',');
      if (describe(shape) !== describe(expected))
        problems.push(`${set.name} ${language} ${key}: arguments {${describe(shape)}}, English has {${describe(expected)}}`);
      for (const [name, options] of expected.selects) {
        if ((shape.selects.get(name) ?? []).join(',') !== options.join(','))
          problems.push(`${set.name} ${language} ${key}: select ${name} options differ from English`);
      }
      for (const [name, plural] of shape.plurals) {
        const needed = plural.ordinal ? categories.ordinal : categories.cardinal;
        const missing = needed.filter((category) => !plural.categories.includes(category));
        const foreign = plural.categories.filter((category) => !needed.includes(category));
        if (missing.length) problems.push(`${set.name} ${language} ${key}: plural ${name} lacks ${missing.join(', ')}`);
        if (foreign.length)
          problems.push(`${set.name} ${language} ${key}: plural ${name} has ${foreign.join(', ')}, which ${language} never uses`);
      }
    }
  }
  problems.push(...checkUse(set, english));
  return problems;
}

/**
 * Keys the sources name: string literals that start with one of the set's prefixes, and the
 * fixed heads of templates (`` `problem.${code}` `` makes every `problem.` key used).
 */
function checkUse(set: CatalogueSet, english: Map<string, string>): string[] {
  const named = new Set<string>();
  const called = new Set<string>();
  const heads: string[] = [];
  const call = /(?:\b(?:t|tNodes|hasMessage|text|mailText|message)\(\s*|data-i18n[\w-]*=)["'`]([\w.-]+)["'`]/g;
  const prefixes = set.prefixes.map((prefix) => prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  const literal = new RegExp(`["'\`]((?:${prefixes})[\\w.-]*)(["'\`]|\\$\\{)`, 'g');
  for (const file of set.sources) {
    const text = readFileSync(file, 'utf8');
    for (const [, key, end] of text.matchAll(literal)) {
      if (end === '${') heads.push(key!);
      else named.add(key!);
    }
    for (const [, key] of text.matchAll(call)) if (set.prefixes.some((prefix) => key!.startsWith(prefix))) called.add(key!);
    // A page's title key is a bare argument of its head include (`<!-- include head keys.documentTitle keys -->`).
    if (file.endsWith('.html')) for (const [, key] of text.matchAll(/<!--\s*include\s+head\s+([\w.]+)/g)) named.add(key!);
  }
  const problems: string[] = [];
  for (const key of english.keys()) {
    if (!named.has(key) && !heads.some((head) => key.startsWith(head))) problems.push(`${set.name}: ${key} is never used`);
  }
  // Only keys handed to a message function or a data-i18n attribute must exist: a bare literal
  // with an area's prefix may be something else (the audit event `workspace.created`).
  for (const key of called) {
    if (english.has(key)) continue;
    problems.push(
      `${set.name}: ${key} is used but not in English (${relative(root, set.sources.find((file) => readFileSync(file, 'utf8').includes(key)) ?? '')})`,
    );
  }
  return problems;
}
