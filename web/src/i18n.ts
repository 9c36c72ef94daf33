/**
 * The pages' language: chosen by `?lang=`, then the saved choice, then the browser's languages,
 * then English (ADR 0183). Its messages (ICU MessageFormat, compiled at build by web/i18n.ts so
 * no parser ships) are fetched before any page code runs: this module awaits them at its top
 * level, so every module that imports it may call `t()` as it loads. It then localizes the
 * page's markup (`data-i18n`, `data-i18n-<attribute>`), sets `<html lang dir>` and shows the page.
 */
import { IntlMessageFormat } from 'intl-messageformat';
import {
  isRightToLeft,
  type Language,
  languageNames,
  languages,
  matchLanguage,
  matchPageLanguage,
  type PageLanguage,
  pseudoLanguage,
} from '../../shared/languages.ts';

/** A compiled message: plain text, or the parser's AST for one with arguments. */
type CompiledMessage = string | ConstructorParameters<typeof IntlMessageFormat>[0];
export type MessageValues = Record<string, string | number | Date>;

const savedKey = 'hushlink.lang';

function chooseLanguage(): PageLanguage {
  const asked = new URLSearchParams(location.search).get('lang');
  const fromQuery = asked ? matchPageLanguage(asked) : undefined;
  if (fromQuery) {
    // Carried to the next page: a link followed from a German page stays German.
    if (fromQuery !== pseudoLanguage) saveLanguage(fromQuery);
    return fromQuery;
  }
  const saved = readSaved();
  if (saved) return saved;
  for (const tag of navigator.languages ?? [navigator.language]) {
    const match = matchLanguage(tag);
    if (match) return match;
  }
  return 'en';
}

function readSaved(): Language | undefined {
  try {
    const value = localStorage.getItem(savedKey);
    return value ? matchLanguage(value) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the choice was kept (storage can be refused: a private window's quota). */
function saveLanguage(language: Language): boolean {
  try {
    localStorage.setItem(savedKey, language);
    return true;
  } catch {
    return false;
  }
}

/** The page's name: its bundle is `/assets/<page>.js`, its messages `/assets/i18n/<page>.<lang>.json`. */
function pageName(): string {
  const path = new URL(import.meta.url).pathname;
  return path.slice(path.lastIndexOf('/') + 1).replace(/\.js$/, '');
}

async function fetchMessages(page: string, language: PageLanguage): Promise<Record<string, CompiledMessage>> {
  try {
    // A stalled read must not keep the page hidden: after 10 s the markup's English shows.
    const response = await fetch(`/assets/i18n/${page}.${language}.json`, { credentials: 'omit', signal: AbortSignal.timeout(10_000) });
    const body: unknown = response.ok ? await response.json() : null;
    if (typeof body === 'object' && body !== null && !Array.isArray(body)) return body as Record<string, CompiledMessage>;
  } catch {
    // Unreachable: the markup's own English stays, and t() answers keys with their English below.
  }
  return {};
}

export const language: PageLanguage = chooseLanguage();
/**
 * The locale Intl formats dates, numbers and prices in: the browser's own tag for the page's
 * language where it has one (`en-GB` writes dates day first and a dollar price `US$`, `de-AT`
 * its own month names), else the language itself. The pseudo-locale formats as English.
 */
export const locale: string = regionalLocale(language === pseudoLanguage ? 'en' : language);

function regionalLocale(chosen: Language): string {
  for (const tag of navigator.languages ?? [navigator.language]) {
    if (matchLanguage(tag) !== chosen) continue;
    try {
      return Intl.getCanonicalLocales(tag)[0] ?? chosen;
    } catch {
      return chosen;
    }
  }
  return chosen;
}
const messages = await fetchMessages(pageName(), language);
const formats = new Map<string, IntlMessageFormat>();

/**
 * The message `key` in the page's language, with its arguments. A key the catalogue lacks (only
 * when the catalogue could not be fetched; CI checks every key exists) answers the key itself.
 */
export function t(key: string, values?: MessageValues): string {
  const message = messages[key];
  if (message === undefined) return key;
  if (typeof message === 'string') return message;
  return String(formatOf(key, message).format(values));
}

function formatOf(key: string, message: Exclude<CompiledMessage, string>): IntlMessageFormat {
  let format = formats.get(key);
  if (!format) {
    format = new IntlMessageFormat(message, locale);
    formats.set(key, format);
  }
  return format;
}

/**
 * The message `key` as nodes, for a message with an element in it ("Signed in as {email}", the
 * address in its own span): the words around it stay in the language's order.
 */
export function tNodes(key: string, values: Record<string, string | number | Date | Node>): (string | Node)[] {
  const message = messages[key];
  if (message === undefined) return [key];
  if (typeof message === 'string') return [message];
  const formatted = formatOf(key, message).format<Node>(values as Record<string, Node>);
  return (Array.isArray(formatted) ? formatted : [formatted]).map((part) => (part instanceof Node ? part : String(part)));
}

/** Whether the catalogue has `key` (for messages chosen by a problem's `code`, with a fallback). */
export const hasMessage = (key: string): boolean => key in messages;

/**
 * Localizes markup: an element with `data-i18n="key"` gets the message as its text, and
 * `data-i18n-<attribute>="key"` sets that attribute (`aria-label`, `title`, `placeholder`, `alt`,
 * `content`). Run on the page at load, and by code on markup it clones from a `<template>`.
 */
export function localize(root: ParentNode): void {
  if (Object.keys(messages).length === 0) return;
  for (const element of root.querySelectorAll<HTMLElement>('*')) {
    for (const attribute of element.getAttributeNames()) {
      if (!attribute.startsWith('data-i18n')) continue;
      const key = element.getAttribute(attribute)!;
      if (!(key in messages)) continue;
      if (attribute === 'data-i18n') element.textContent = t(key);
      else {
        // Words only: a catalogue never writes an address or a handler (href, src, on…).
        const target = attribute.slice('data-i18n-'.length);
        if (localizedAttributes.has(target)) element.setAttribute(target, t(key));
      }
    }
  }
}

const localizedAttributes = new Set(['aria-label', 'aria-description', 'title', 'placeholder', 'alt', 'content']);

const holds: (() => boolean)[] = [];

/**
 * A page whose state a reload would lose (a revealed secret, a key read from the address bar,
 * a draft or a new link) holds the switcher while `busy()` answers true: the choice is saved for
 * the next page, and this one stays as it is and says so.
 */
export function holdLanguageSwitch(busy: () => boolean): void {
  holds.push(busy);
}

/** The footer's switcher: the languages by their own names; a choice is saved and the page reloaded. */
function wireSwitcher(): void {
  const select = document.querySelector<HTMLSelectElement>('select[data-language-switcher]');
  if (!select) return;
  select.replaceChildren(
    ...languages.map((code) => {
      const option = new Option(languageNames[code], code, false, code === language);
      option.lang = code;
      return option;
    }),
  );
  select.addEventListener('change', () => {
    const chosen = matchLanguage(select.value);
    if (!chosen) return;
    const saved = saveLanguage(chosen);
    if (holds.some((busy) => busy())) {
      const note = select.parentElement?.querySelector<HTMLElement>('[data-language-note]');
      if (note) {
        note.textContent = t('common.footer.languageNextPage');
        note.hidden = false;
      }
      return;
    }
    const url = new URL(location.href);
    // Storage refused: the address carries the choice instead.
    if (saved) url.searchParams.delete('lang');
    else url.searchParams.set('lang', chosen);
    location.replace(url.href);
  });
}

try {
  document.documentElement.lang = language;
  document.documentElement.dir = isRightToLeft(language) ? 'rtl' : 'ltr';
  localize(document);
  wireSwitcher();
} finally {
  // The markup starts hidden (web/styles/language.css) so no English flashes first; whatever
  // happened above, the page shows.
  document.documentElement.dataset.localized = '';
}
