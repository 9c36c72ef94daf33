/**
 * What the compose page reads from a workspace's policy (`GET /v1/workspaces` answers it with
 * each workspace): the limits with every rule resolved, and the rules in plain words. Pure, so a
 * unit test holds `composeLimits` equal to the server's `policyLimitsForCompose`, which the page
 * does not import: shared/domain/workspaces/policy.ts brings zod's error module into a bundle.
 */
import type { ComposeLimits, PolicyReply } from '../../shared/domain/workspaces/policy.ts';
import { secretLimits } from '../../shared/limits.ts';

export type { ComposeLimits };

/** A message of the page's catalogue with its arguments (`t` of i18n.ts). */
export type Say = (key: string, values?: Record<string, string | number>) => string;

/**
 * English, where no page hands its language over (the unit tests, which run without a page and
 * so without i18n.ts, which progress.ts needs too): the compose catalogue's English for the
 * rules' sentences, and sizes as progress.ts's `formatBytes` writes them in English.
 */
const english: Say = (key, values = {}) => {
  const views = Number(values.count) === 1 ? '1 view' : `${values.count} views`;
  const sentences: Record<string, string> = {
    'compose.policy.maxExpiresIn': `Expires within ${values.duration} at most`,
    'compose.policy.maxViews': `At most ${views}`,
    'compose.policy.requirePassphrase': 'A passphrase is required',
    'compose.policy.recipientDomains': `Recipients must be restricted to addresses at ${values.domains}`,
    'compose.policy.noFiles': 'Files are not allowed',
    'compose.policy.maxFileBytes': `Files up to ${values.size}`,
  };
  return sentences[key] ?? key;
};

function englishBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = unit === 0 || value >= 100 || Number.isInteger(value) ? 0 : 1;
  return `${value.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits })} ${units[unit]}`;
}

interface Words {
  locale: string;
  say: Say;
  /** A size as the pages write it (progress.ts's `formatBytes`). */
  size: (bytes: number) => string;
}

let words: Words = { locale: 'en', say: english, size: englishBytes };

/**
 * The page's language (i18n.ts's `locale` and `t`, progress.ts's `formatBytes`), for durations,
 * lists and the rules' sentences: handed over by the page, as this module imports neither.
 */
export function speakIn(locale: string, say: Say, size: (bytes: number) => string): void {
  words = { locale, say, size };
}

/** The service's longest expiry and most views where the policy sets none, as the server resolves them. */
export const composeLimits = (policy: PolicyReply): ComposeLimits => ({
  max_expires_in: policy.max_expires_in ?? secretLimits.expiresInSeconds.max,
  max_views: policy.max_views ?? secretLimits.maxViews.max,
  require_passphrase: policy.require_passphrase ?? false,
  allowed_recipient_domains: policy.allowed_recipient_domains ? [...policy.allowed_recipient_domains] : null,
  allow_files: policy.allow_files ?? true,
  max_file_bytes: policy.max_file_bytes ?? null,
  allow_requests: policy.allow_requests ?? true,
});

/**
 * "1 day", "36 hours", "90 minutes": the largest whole unit (a policy's expiry is any number of
 * seconds from 60), in the page's language (Intl's unit names and plurals).
 */
export function durationWords(seconds: number): string {
  for (const [unit, size] of [
    ['day', 86_400],
    ['hour', 3600],
    ['minute', 60],
    ['second', 1],
  ] as const) {
    if (seconds % size === 0)
      return new Intl.NumberFormat(words.locale, { style: 'unit', unit, unitDisplay: 'long' }).format(seconds / size);
  }
  return String(seconds);
}

/**
 * "a.example", "a.example or b.example", "a.example, b.example or c.example": Intl's list in the
 * page's language; English as the pages write it, without a serial comma (en-GB's list).
 */
export function orList(items: readonly string[]): string {
  const listLocale = words.locale === 'en' ? 'en-GB' : words.locale;
  return new Intl.ListFormat(listLocale, { type: 'disjunction' }).format(items);
}

/**
 * The rules a policy sets that bear on a secret or a file, in plain words, in the form's order
 * (request links' rule is the requests page's). Empty when it sets none.
 */
export function policySentences(policy: PolicyReply): string[] {
  const { say } = words;
  const sentences: string[] = [];
  if (policy.max_expires_in !== null)
    sentences.push(say('compose.policy.maxExpiresIn', { duration: durationWords(policy.max_expires_in) }));
  if (policy.max_views !== null) sentences.push(say('compose.policy.maxViews', { count: policy.max_views }));
  if (policy.require_passphrase === true) sentences.push(say('compose.policy.requirePassphrase'));
  if (policy.allowed_recipient_domains !== null)
    sentences.push(say('compose.policy.recipientDomains', { domains: orList(policy.allowed_recipient_domains) }));
  if (policy.allow_files === false) sentences.push(say('compose.policy.noFiles'));
  else if (policy.max_file_bytes !== null) sentences.push(say('compose.policy.maxFileBytes', { size: words.size(policy.max_file_bytes) }));
  return sentences;
}

/**
 * An address's domain as a policy names it: lower case, ASCII (IDNA) by the URL parser's host
 * processing, without a trailing dot, as the server compares them (`recipientDomain`); null
 * when it has none. Enough for the page's check: the server checks the address properly.
 */
export function emailDomain(email: string): string | null {
  const at = email.lastIndexOf('@');
  const host = at < 0 ? '' : email.slice(at + 1).trim();
  if (host === '' || /[\s/\\?#@:%[\]*]/.test(host)) return null;
  try {
    const hostname = new URL(`http://${host}/`).hostname;
    return hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  } catch {
    return null;
  }
}
