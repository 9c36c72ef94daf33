/**
 * The languages the pages, the emails and the CLI speak, and how one is chosen from what a
 * visitor asks for. No DOM and no catalogue here: web/src/i18n.ts, the email templates
 * (shared/domain/mailText.ts) and the CLI (cli/src/i18n.ts) share this one list and its matching rules.
 */

/** English first: the language every catalogue is checked against, and the last resort. */
export const languages = ['en', 'de', 'fr', 'es', 'pt-BR', 'it', 'nl', 'ja', 'zh-Hans', 'ar'] as const;
export type Language = (typeof languages)[number];

/**
 * The pseudo-locale: English accented and made 40 % longer between ⟦ ⟧ marks, built from the
 * English catalogue (web/i18n/pseudo.ts). Only `?lang=en-XA` picks it; the e2e suite uses it to
 * find text that did not come from a catalogue.
 */
export const pseudoLanguage = 'en-XA';
export type PageLanguage = Language | typeof pseudoLanguage;

/** Each language's own name, as the switcher lists it (never translated: a reader finds their own). */
export const languageNames: Record<Language, string> = {
  en: 'English',
  de: 'Deutsch',
  fr: 'Français',
  es: 'Español',
  'pt-BR': 'Português (Brasil)',
  it: 'Italiano',
  nl: 'Nederlands',
  ja: '日本語',
  'zh-Hans': '简体中文',
  ar: 'العربية',
};

export const isRightToLeft = (language: PageLanguage): boolean => language === 'ar';

/**
 * The language a tag asks for, if Hushlink speaks it: exact first (case-insensitive), then by
 * its primary subtag. Chinese is the one language whose primary subtag is not enough: zh-TW,
 * zh-HK and zh-Hant ask for Traditional script, which Simplified Chinese does not serve.
 */
export function matchLanguage(tag: string): Language | undefined {
  const wanted = tag.trim().replace(/_/g, '-').toLowerCase();
  if (!wanted || wanted === '*') return undefined;
  const exact = languages.find((language) => language.toLowerCase() === wanted);
  if (exact) return exact;
  const [primary, ...rest] = wanted.split('-');
  if (primary === 'zh') {
    const traditional = rest.some((part) => part === 'hant' || part === 'tw' || part === 'hk' || part === 'mo');
    return traditional ? undefined : 'zh-Hans';
  }
  return languages.find((language) => language.split('-')[0]!.toLowerCase() === primary);
}

/** `?lang=` on a page: a supported language or the pseudo-locale. */
export function matchPageLanguage(tag: string): PageLanguage | undefined {
  return tag.trim().toLowerCase() === pseudoLanguage.toLowerCase() ? pseudoLanguage : matchLanguage(tag);
}

/**
 * The first language of an `Accept-Language` header Hushlink speaks, by the header's q-values
 * (RFC 9110 §12.5.4), ties in the header's order; q=0 means "not this one".
 */
export function languageFromAcceptLanguage(header: string | undefined): Language | undefined {
  if (!header) return undefined;
  const ranked = header
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.split(';').map((piece) => piece.trim());
      const q = params.find((param) => param.toLowerCase().startsWith('q='));
      const weight = q ? Number(q.slice(2)) : 1;
      return { tag, weight: Number.isFinite(weight) ? weight : 0, index };
    })
    .filter(({ weight }) => weight > 0)
    .sort((a, b) => b.weight - a.weight || a.index - b.index);
  for (const { tag } of ranked) {
    const match = matchLanguage(tag);
    if (match) return match;
  }
  return undefined;
}

/**
 * The CLI's language from the POSIX locale variables, in their order of precedence: LC_ALL, then
 * LC_MESSAGES, then LANG (`de_DE.UTF-8`, `pt_BR`, `zh_CN.UTF-8`). `C` and `POSIX` are English.
 */
export function languageFromPosixLocale(env: Record<string, string | undefined>): Language {
  const value = env.LC_ALL || env.LC_MESSAGES || env.LANG || '';
  const tag = value.split(/[.@]/)[0] ?? '';
  if (tag === 'C' || tag === 'POSIX') return 'en';
  return matchLanguage(tag) ?? 'en';
}
