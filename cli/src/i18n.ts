/**
 * The CLI's language (issue 32): chosen once per process from LC_ALL, then LC_MESSAGES, then LANG
 * (shared/languages.ts; `C`, `POSIX` or none is English), English under `--json`, and only that
 * language's catalogue is read: `i18n/<language>.json` beside `src/` in a checkout and beside `dist/` in the package
 * (cli/package.json `files`). Flat keys `cli.<area>.<name>`, ICU MessageFormat rendered with
 * intl-messageformat. What scripts read is never translated: `--json`, links, ids, option and
 * command names, problem codes and exit codes stay as they are in every language.
 *
 * Start-up stays that of a bare `node` (`hushlink --help` is measured against `node -e ''`):
 * - the catalogue is one small file, read synchronously the first time a message is needed;
 * - a message without arguments is printed as it is, and one with only `{name}` arguments by
 *   substitution: only plurals, selects and quoting go through the parser;
 * - numbers are arguments (`{count}`), never `#`: a `#` formats through Intl.NumberFormat, whose
 *   first use loads ICU's number data (some 12 ms), and whose grouping would change the English
 *   ("1,000" where the CLI has always printed "1000");
 * - intl-messageformat resolves a locale by asking Intl.NumberFormat which ones it supports, which
 *   costs the same 12 ms: the language is one of ours, so it is given as it is (see compile).
 */
import { readFileSync } from 'node:fs';
import { IntlMessageFormat } from 'intl-messageformat';
import { isRightToLeft, type Language, languageFromPosixLocale } from '../../shared/languages.ts';

/** Every key of the English catalogue, which every other one is checked against. */
export type MessageKey = keyof typeof import('../i18n/en.json', { with: { type: 'json' }});
export type MessageValues = Record<string, string | number>;

/**
 * Set by cli/build.js (esbuild `define`) in a bundle written outside `dist/` (the tests' and the
 * bench's, in a temporary folder): the checkout's catalogue folder, as a file URL. Undefined in
 * the package and in a checkout, where the folder is found beside the code.
 */
declare const HUSHLINK_CATALOGUES: string | undefined;

const catalogueFolder = (): URL =>
  typeof HUSHLINK_CATALOGUES === 'string' ? new URL(HUSHLINK_CATALOGUES) : new URL('../i18n/', import.meta.url);

/** One language's catalogue as it is on disk: key → ICU message. */
export function readCatalogue(language: Language): Record<string, string> {
  return JSON.parse(readFileSync(new URL(`${language}.json`, catalogueFolder()), 'utf8')) as Record<string, string>;
}

export interface Messages {
  readonly language: Language;
  format(key: MessageKey, values?: MessageValues): string;
}

/** An apostrophe that starts quoted text (ICU's "only where needed"): `''`, and before `{ } < > #`. */
const quoting = /'['{}<>#]/;
/** Only `{name}` arguments: intl-messageformat prints each value as String(value), so a replace says the same. */
const simpleArguments = /^[^{}]*(?:\{[A-Za-z_]\w*\}[^{}]*)*$/;

/** A message with only `{name}` arguments, said without the parser (the same text: test/unit/cli-i18n.test.ts). */
function substitute(message: string, key: string): (values?: MessageValues) => string {
  return (values) =>
    message.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = values?.[name];
      if (value === undefined) throw new Error(`${key}: no value for {${name}}`);
      return String(value);
    });
}

function compile(message: string, language: Language): IntlMessageFormat {
  const resolveLocale = IntlMessageFormat.resolveLocale;
  // Its own resolution asks Intl.NumberFormat.supportedLocalesOf, a cold start of ICU's number
  // data: restored at once, so nothing else in the process sees the difference.
  IntlMessageFormat.resolveLocale = () => new Intl.Locale(language);
  try {
    // ignoreTag: `<command>`, `<address>` are text here, not markup.
    return new IntlMessageFormat(message, language, undefined, { ignoreTag: true });
  } finally {
    IntlMessageFormat.resolveLocale = resolveLocale;
  }
}

/**
 * The messages of one catalogue, each made ready on first use: a plain text as it is, `{name}`
 * arguments by substitution, anything more (plural, select, quoting) parsed by intl-messageformat.
 * A key the catalogue lacks comes from `fallback`.
 */
export function messagesOf(language: Language, catalogue: Record<string, string>, fallback?: () => Messages): Messages {
  const ready = new Map<string, (values?: MessageValues) => string>();
  return {
    language,
    format(key, values) {
      let entry = ready.get(key);
      if (entry === undefined) {
        const message = catalogue[key];
        if (message === undefined) return fallback ? fallback().format(key, values) : key;
        if (quoting.test(message) || !simpleArguments.test(message)) {
          const parsed = compile(message, language);
          entry = (given) => String(parsed.format(given));
        } else entry = message.includes('{') ? substitute(message, key) : () => message;
        ready.set(key, entry);
      }
      return entry(values);
    },
  };
}

let english: Messages | undefined;
const englishMessages = (): Messages => (english ??= messagesOf('en', readCatalogue('en')));

/** A language's messages; English, whose catalogue is complete, stands in for a catalogue that cannot be read. */
export function messagesFor(language: Language): Messages {
  if (language === 'en') return englishMessages();
  let catalogue: Record<string, string>;
  try {
    catalogue = readCatalogue(language);
  } catch {
    return englishMessages();
  }
  return messagesOf(language, catalogue, englishMessages);
}

let chosen: Language | undefined;
let current: Messages | undefined;

/** This process's language: from the environment it was started with, unless useLanguage said otherwise. */
export const currentLanguage = (): Language => (chosen ??= languageFromPosixLocale(process.env));
export const currentDirection = (): 'ltr' | 'rtl' => (isRightToLeft(currentLanguage()) ? 'rtl' : 'ltr');

/**
 * Speaks `language` from now on. `--json` is the machine interface: main.ts switches to English
 * for it, so what a script reads (the JSON on stdout, whose inbox errors carry sentences, and the
 * error object on stderr) is the same in every locale.
 */
export function useLanguage(language: Language): void {
  if (language === chosen) return;
  chosen = language;
  current = undefined;
}

/** A message of this process's language. */
export const t = (key: MessageKey, values?: MessageValues): string => (current ??= messagesFor(currentLanguage())).format(key, values);

/** Two sentences as one text: a space between them in most languages, none in Japanese or Chinese. */
export const sentences = (first: string, second: string): string => t('cli.common.sentences', { first, second });

/**
 * The columns a text takes on a terminal: East Asian wide characters (the Japanese and Chinese
 * catalogues' kana, ideographs and full-width punctuation) take two. Combining marks are rare
 * enough in these catalogues to be counted as one.
 */
export function columns(text: string): number {
  let width = 0;
  for (const char of text) {
    const code = char.codePointAt(0)!;
    const wide =
      (code >= 0x1100 && code <= 0x115f) ||
      (code >= 0x2e80 && code <= 0xa4cf && code !== 0x303f) ||
      (code >= 0xac00 && code <= 0xd7a3) ||
      (code >= 0xf900 && code <= 0xfaff) ||
      (code >= 0xfe30 && code <= 0xfe4f) ||
      (code >= 0xff00 && code <= 0xff60) ||
      (code >= 0xffe0 && code <= 0xffe6) ||
      (code >= 0x20000 && code <= 0x3fffd);
    width += wide ? 2 : 1;
  }
  return width;
}

/** `text` followed by spaces up to `width` columns (as String#padEnd, counting columns). */
export const padColumns = (text: string, width: number): string => text + ' '.repeat(Math.max(0, width - columns(text)));
