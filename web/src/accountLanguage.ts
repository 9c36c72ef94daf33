/**
 * The account page's "Language for emails" (issue 32): the language the mails Hushlink sends the
 * account go out in, read with `GET /v1/auth/account` and saved with `PATCH /v1/auth/account`
 * (`{locale}`, one of the ten or null). Each language is listed by its own name; "Same as this
 * page" saves null, so each mail follows the language of the page it was asked from, else English.
 * Mounted by the account page: `mountAccountLanguage(section, token)`.
 */
import type * as z from 'zod/mini';
import type { accountReplies } from '../../shared/api/accountReplies.ts';
import { type Language, languageNames, languages, matchLanguage } from '../../shared/languages.ts';
import { t } from './i18n.ts';

type Account = z.output<(typeof accountReplies)['Account']>;

const accountPath = '/v1/auth/account';

async function call(token: () => Promise<string>, init: RequestInit = {}): Promise<Account> {
  const response = await fetch(accountPath, {
    ...init,
    credentials: 'same-origin',
    headers: {
      authorization: `Bearer ${await token()}`,
      accept: 'application/json',
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
  });
  if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${accountPath} answered ${response.status}`);
  return (await response.json()) as Account;
}

const chosen = (select: HTMLSelectElement): Language | null => matchLanguage(select.value) ?? null;

/**
 * Renders the setting into `section` (its heading, one sentence, the list, Save and a status
 * line) and reads the saved language. `token` answers a current access token (the page's
 * session refreshes it); a call it cannot make shows as a failure in the status line.
 */
export function mountAccountLanguage(section: HTMLElement, token: () => Promise<string>): void {
  const heading = document.createElement('h2');
  heading.id = 'account-language-title';
  heading.className = 'section-title';
  heading.textContent = t('accountLanguage.title');

  const lede = document.createElement('p');
  lede.textContent = t('accountLanguage.lede');

  const field = document.createElement('div');
  field.className = 'field';
  const label = document.createElement('label');
  label.htmlFor = 'account-language-select';
  label.textContent = t('accountLanguage.label');
  const select = document.createElement('select');
  select.id = 'account-language-select';
  select.setAttribute('aria-describedby', 'account-language-hint');
  const none = new Option(t('accountLanguage.none'), '');
  select.append(
    none,
    ...languages.map((code) => {
      const option = new Option(languageNames[code], code);
      // Each name in its own language, so a screen reader says it as its readers do.
      option.lang = code;
      return option;
    }),
  );
  const hint = document.createElement('p');
  hint.id = 'account-language-hint';
  hint.className = 'hint';
  hint.textContent = t('accountLanguage.hint');
  field.append(label, select, hint);

  const actions = document.createElement('div');
  actions.className = 'actions';
  const save = document.createElement('button');
  save.type = 'button';
  save.className = 'primary';
  save.id = 'account-language-save';
  save.textContent = t('accountLanguage.save');
  actions.append(save);

  const status = document.createElement('p');
  status.id = 'account-language-status';
  status.setAttribute('role', 'status');
  status.setAttribute('aria-live', 'polite');

  section.setAttribute('aria-labelledby', heading.id);
  section.replaceChildren(heading, lede, field, actions, status);

  // Save is marked, not disabled, while a call is out: a disabled button would drop the focus.
  let working = false;
  const busy = (on: boolean) => {
    working = on;
    section.setAttribute('aria-busy', String(on));
    save.setAttribute('aria-disabled', String(on));
  };
  const show = (account: Account) => {
    select.value = account.locale ?? '';
  };

  busy(true);
  select.disabled = true;
  status.textContent = t('accountLanguage.loading');
  call(token)
    .then((account) => {
      show(account);
      status.textContent = '';
    })
    .catch(() => {
      status.textContent = t('accountLanguage.loadFailed');
    })
    .finally(() => {
      select.disabled = false;
      busy(false);
    });

  save.addEventListener('click', async () => {
    if (working) return;
    busy(true);
    status.textContent = t('accountLanguage.saving');
    try {
      const account = await call(token, { method: 'PATCH', body: JSON.stringify({ locale: chosen(select) }) });
      show(account);
      status.textContent = account.locale
        ? t('accountLanguage.saved', { language: languageNames[account.locale] })
        : t('accountLanguage.savedNone');
    } catch {
      status.textContent = t('accountLanguage.saveFailed');
    } finally {
      busy(false);
    }
  });
}
