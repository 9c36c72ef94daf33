/**
 * What every mail Hushlink sends says, in the ten languages (issue 32): each template's subject
 * and text are ICU MessageFormat messages in `mailText/<language>.json` (flat keys
 * `mail.<template>.subject` and `mail.<template>.text`), rendered here with intl-messageformat.
 * Plurals follow the language's rules; dates are formatted by Intl in the language, in UTC, and
 * handed to the messages as text (English keeps the ISO forms its mails have always had).
 * Which language a mail goes out in is decided by the two rules at the end of this file.
 */
import { IntlMessageFormat } from 'intl-messageformat';
import type { Language } from '../languages.ts';
import ar from './mailText/ar.json' with { type: 'json' };
import de from './mailText/de.json' with { type: 'json' };
import en from './mailText/en.json' with { type: 'json' };
import es from './mailText/es.json' with { type: 'json' };
import fr from './mailText/fr.json' with { type: 'json' };
import it from './mailText/it.json' with { type: 'json' };
import ja from './mailText/ja.json' with { type: 'json' };
import nl from './mailText/nl.json' with { type: 'json' };
import ptBR from './mailText/pt-BR.json' with { type: 'json' };
import zhHans from './mailText/zh-Hans.json' with { type: 'json' };

/** Every language's messages, by key; English's keys are every catalogue's (test/unit/mail-text.test.ts). */
export const mailCatalogues: Record<Language, Readonly<Record<string, string>>> = {
  en,
  de,
  fr,
  es,
  'pt-BR': ptBR,
  it,
  nl,
  ja,
  'zh-Hans': zhHans,
  ar,
};

/** A moment a mail names: an instant (an invitation's end), or a day (the end of a billing period). */
export interface MailDate {
  at: number;
  show: 'instant' | 'day';
}

/** Every mail and the arguments its subject and text take. */
export interface MailArguments {
  /** The sign-in code and its one-click link (accounts/signIn.ts). */
  signInCode: { code: string; link: string; minutes: number };
  /** Instead of a code, under a workspace's enforced single sign-on. */
  ssoSignIn: { link: string };
  /** A restricted link's code (secrets/gate.ts). */
  gateCode: { code: string; minutes: number };
  /** workspaces/members.ts */
  invitation: { workspace: string; inviter: string; email: string; role: 'admin' | 'member'; link: string; until: MailDate };
  memberLeft: { workspace: string };
  memberRemoved: { workspace: string; remover: string };
  ownershipReceived: { workspace: string; previousOwner: string };
  ownershipHandedOver: { workspace: string; newOwner: string };
  /** billing/notices.ts: `plan` is the subscription's (anything but team reads as Pro). */
  paymentFailed: { plan: string; until: MailDate; link: string };
  subscriptionEnded: { plan: string; link: string };
  /** billing/enterprise.ts: to the enquirer (the enquiry itself goes to sales in English). */
  enterpriseAcknowledgement: Record<string, never>;
  /** webhooks/deliver.ts */
  webhookDisabled: { url: string; id: string; failures: number };
}
export type MailTemplate = keyof MailArguments;

export const mailTemplates = [
  'signInCode',
  'ssoSignIn',
  'gateCode',
  'invitation',
  'memberLeft',
  'memberRemoved',
  'ownershipReceived',
  'ownershipHandedOver',
  'paymentFailed',
  'subscriptionEnded',
  'enterpriseAcknowledgement',
  'webhookDisabled',
] as const satisfies readonly MailTemplate[];

export interface RenderedMail {
  subject: string;
  text: string;
}

const formats = new Map<string, IntlMessageFormat>();

function formatOf(language: Language, key: string): IntlMessageFormat {
  const id = `${language}\n${key}`;
  let format = formats.get(id);
  if (!format) {
    // A key a translation lacks (the unit test fails on one) reads in English.
    const message = mailCatalogues[language][key] ?? mailCatalogues.en[key];
    if (message === undefined) throw new Error(`no mail message ${key}`);
    format = new IntlMessageFormat(message, language, undefined, { ignoreTag: true });
    formats.set(id, format);
  }
  return format;
}

const instants = new Map<Language, Intl.DateTimeFormat>();
const days = new Map<Language, Intl.DateTimeFormat>();

/** A date as the language writes it, in UTC (a mail cannot know its reader's zone); English keeps ISO 8601. */
export function mailDate(language: Language, date: MailDate): string {
  if (language === 'en') return date.show === 'instant' ? new Date(date.at).toISOString() : new Date(date.at).toISOString().slice(0, 10);
  const cache = date.show === 'instant' ? instants : days;
  let format = cache.get(language);
  if (!format) {
    format =
      date.show === 'instant'
        ? new Intl.DateTimeFormat(language, {
            year: 'numeric',
            month: 'long',
            day: 'numeric',
            hour: '2-digit',
            minute: '2-digit',
            timeZone: 'UTC',
            timeZoneName: 'short',
          })
        : new Intl.DateTimeFormat(language, { dateStyle: 'long', timeZone: 'UTC' });
    cache.set(language, format);
  }
  return format.format(date.at);
}

const isMailDate = (value: unknown): value is MailDate => typeof value === 'object' && value !== null && 'at' in value && 'show' in value;

/** A mail's subject and text in `language`. */
export function renderMail<T extends MailTemplate>(template: T, language: Language, args: MailArguments[T]): RenderedMail {
  const values = Object.fromEntries(
    Object.entries(args).map(([name, value]) => [name, isMailDate(value) ? mailDate(language, value) : value]),
  ) as Record<string, string | number>;
  return {
    subject: String(formatOf(language, `mail.${template}.subject`).format(values)),
    text: String(formatOf(language, `mail.${template}.text`).format(values)),
  };
}

/** What a mail's language is chosen from: the request's language, and the recipient's account (its saved `locale`). */
export interface MailReader {
  locale?: Language | undefined;
}

/**
 * A mail its reader asked for (a sign-in code, an SSO sign-in mail, a gate code, an enquiry's
 * acknowledgement): the language the request asked in (its `Accept-Language`, which the pages
 * and the CLI send), else English. The address's account is never read for it: whether that
 * read happened, and what it cost, would tell a caller who leaves the header out whether the
 * address has an account.
 */
export const askedMailLanguage = (asked: Language | undefined): Language => asked ?? 'en';

/**
 * A mail its reader did not ask for (an invitation, a billing notice, a webhook switched off, a
 * workspace handed over or left): the saved language of the recipient's account, else the
 * language of the request that caused it (the inviter's, say), else English.
 */
export const noticeMailLanguage = (reader: MailReader | null | undefined, asked: Language | undefined): Language =>
  reader?.locale ?? asked ?? 'en';
