/**
 * The compose page's "Send in": for a signed-in person with workspaces, Personal or one of them
 * (the current workspace, `hushlink.workspace`, chosen first when it is one of theirs). A
 * workspace's policy is said in plain words before anything is sent; the form's choices are
 * held to it (longer expiries disabled, the most views, the passphrase required, the file input
 * disabled when files are not allowed); the form is checked against it in the page; the body
 * carries `workspace_id`; and the server's 403 `policy_violation` is shown field by field,
 * `not_a_member` on the select. The policy comes with the workspace list (`GET /v1/workspaces`).
 */
import { planIncludes } from '../../shared/domain/plans.ts';
import { secretLimits } from '../../shared/limits.ts';
import { ApiError, problemMessages, type RecipientRequest } from './api.ts';
import { besideField } from './composeErrors.ts';
import { recheckFile, useFileRule } from './composeFile.ts';
import { recipientFields, type FieldError } from './composeLinks.ts';
import { composeLimits, durationWords, emailDomain, orList, policySentences, type ComposeLimits } from './composePolicy.ts';
import { currentWorkspaceId } from './currentWorkspace.ts';
import { announce, byId, element, setVisible } from './dom.ts';
import { t, tNodes } from './i18n.ts';
import { formatBytes } from './progress.ts';
import { withAccess } from './session.ts';
import { workspacesApi, type WorkspaceSummary } from './workspacesApi.ts';

const sendInField = byId('send-in-field');
const sendIn = byId<HTMLSelectElement>('send-in');
const limitsBox = byId('send-in-limits');
const limitList = byId<HTMLUListElement>('send-in-limit-list');
const brandingNote = byId('send-in-branding');
const brandingName = byId('send-in-branding-name');
const expiry = byId<HTMLSelectElement>('expiry');
const customExpiry = byId('custom-expiry');
const customAmount = byId<HTMLInputElement>('custom-expiry-amount');
const customUnit = byId<HTMLSelectElement>('custom-expiry-unit');
const customHint = byId('custom-expiry-hint');
const maxViews = byId<HTMLInputElement>('max-views');
const maxViewsHint = byId('max-views-hint');
const passphrase = byId<HTMLInputElement>('passphrase');
const passphraseLabel = document.querySelector<HTMLLabelElement>('label[for="passphrase"]')!;
const moreOptions = byId<HTMLDetailsElement>('more-options');
const fileInput = byId<HTMLInputElement>('secret-file');
const addRecipient = byId<HTMLButtonElement>('add-recipient');

/** What the form says outside a workspace, put back on Personal. */
const personal = {
  customHint: t('compose.expiry.customHint'),
  viewsHint: t('compose.views.hint'),
  passphraseLabel: t('compose.passphrase.label'),
};

// “Sent from <name> on Hushlink”: the words around the workspace's name in the page's language.
brandingNote.replaceChildren(...tNodes('compose.sendIn.branding', { name: brandingName }));

let workspaces: WorkspaceSummary[] = [];
let chosen: WorkspaceSummary | null = null;

const limits = (): ComposeLimits | null => (chosen ? composeLimits(chosen.policy) : null);

useFileRule(() => {
  const rules = limits();
  return rules && { allowed: rules.allow_files, maxBytes: rules.max_file_bytes };
});

/** The body's `workspace_id`, when the secret is to be sent in a workspace. */
export const workspaceField = (): { workspace_id?: string } => (chosen ? { workspace_id: chosen.id } : {});

/**
 * Reads the caller's workspaces and offers them; keeps the choice made (or the current
 * workspace) when it is still one of them. Unreadable, the page sends as Personal: nothing is
 * lost, and the select stays hidden.
 */
export async function loadWorkspaces(): Promise<void> {
  let items: WorkspaceSummary[];
  try {
    items = (await withAccess((token) => workspacesApi.list(token))).items;
  } catch {
    return;
  }
  const preferred = chosen?.id ?? currentWorkspaceId();
  workspaces = items;
  sendIn.replaceChildren(
    new Option(t('compose.sendIn.personal'), ''),
    ...items.map((workspace) => {
      const option = new Option(workspace.name, workspace.id);
      // A name in a right-to-left script reads in its own direction; a name is never translated.
      option.dir = 'auto';
      option.translate = false;
      return option;
    }),
  );
  setVisible(sendInField, items.length > 0);
  choose(items.find((workspace) => workspace.id === preferred) ?? null);
}

/** Signed out: only Personal is left (a workspace needs the session). */
export function forgetWorkspaces(): void {
  workspaces = [];
  sendIn.replaceChildren(new Option(t('compose.sendIn.personal'), ''));
  setVisible(sendInField, false);
  choose(null);
}

function choose(workspace: WorkspaceSummary | null): void {
  chosen = workspace;
  sendIn.value = workspace?.id ?? '';
  applyLimits();
}

/** Holds the form to the chosen workspace's policy (and lets it go on Personal); again after the form is reset. */
export function applyLimits(): void {
  sendIn.value = chosen?.id ?? '';
  const rules = limits();
  const longest = rules?.max_expires_in ?? secretLimits.expiresInSeconds.max;
  for (const option of expiry.options) if (option.value !== 'custom') option.disabled = Number(option.value) > longest;
  if (expiry.selectedOptions[0]?.disabled) {
    const longestPreset = [...expiry.options].filter((option) => !option.disabled && option.value !== 'custom').at(-1);
    if (longestPreset) {
      expiry.value = longestPreset.value;
    } else {
      expiry.value = 'custom';
      customUnit.value = '60';
      customAmount.value = String(Math.floor(longest / 60));
    }
    setVisible(customExpiry, expiry.value === 'custom');
  }
  customHint.textContent = rules ? t('compose.workspace.customHint', { duration: durationWords(longest) }) : personal.customHint;

  const most = rules?.max_views ?? secretLimits.maxViews.max;
  maxViews.max = String(most);
  if (Number(maxViews.value) > most) maxViews.value = String(most);
  maxViewsHint.textContent = !rules
    ? personal.viewsHint
    : most === 1
      ? t('compose.workspace.viewsOnlyOne')
      : t('compose.workspace.viewsHint', { max: most });

  const needsPassphrase = rules?.require_passphrase === true;
  passphrase.required = needsPassphrase;
  passphraseLabel.textContent = needsPassphrase ? t('compose.workspace.passphraseRequired') : personal.passphraseLabel;
  if (needsPassphrase) moreOptions.open = true;

  fileInput.disabled = rules?.allow_files === false;
  void recheckFile();
  showLimits();
}

function showLimits(): void {
  setVisible(limitsBox, chosen !== null);
  // A hidden box would still be read out as the select's description.
  sendIn.setAttribute('aria-describedby', chosen ? 'send-in-hint send-in-limits send-in-error' : 'send-in-hint send-in-error');
  if (!chosen) return limitList.replaceChildren();
  const sentences = policySentences(chosen.policy);
  limitList.replaceChildren(
    ...(sentences.length > 0 ? sentences : [t('compose.workspace.noRules')]).map((sentence) => element('li', '', sentence)),
  );
  // Shown to recipients only while the workspace's plan includes branding (as the server decides).
  const branding = planIncludes(chosen.plan, 'branding') ? chosen.branding : null;
  brandingName.textContent = branding?.display_name ?? '';
  setVisible(brandingNote, branding !== null);
}

sendIn.addEventListener('change', () => {
  sendIn.removeAttribute('aria-invalid');
  choose(workspaces.find((workspace) => workspace.id === sendIn.value) ?? null);
  announce(chosen ? sendingIn(chosen) : t('compose.workspace.sendingPersonal'));
});

/** "Sending in Acme. Expires within 1 day at most. At most 3 views.": said when a workspace is chosen. */
function sendingIn(workspace: WorkspaceSummary): string {
  const rules = policySentences(workspace.policy).map((rule) => t('compose.workspace.rule', { rule }));
  return [
    t('compose.workspace.sendingIn', { name: workspace.name }),
    ...(rules.length > 0 ? rules : [t('compose.workspace.noRulesAnnounce')]),
  ].reduce((first, second) => t('compose.sentences', { first, second }));
}

/** The form's values a workspace's rules bear on (a file's are `composeFile.ts`'s). */
export interface Settings {
  expiresIn: number;
  custom: boolean;
  views: number;
  withPassphrase: boolean;
  recipients: RecipientRequest[];
}

/** What the chosen workspace's policy refuses in the form, field by field; empty on Personal. */
export function workspaceProblems(settings: Settings): FieldError[] {
  const rules = limits();
  if (!rules) return [];
  const found: FieldError[] = [];
  if (settings.expiresIn > rules.max_expires_in) {
    found.push({
      field: settings.custom ? customAmount : expiry,
      message: t('compose.workspace.tooLong', { duration: durationWords(rules.max_expires_in) }),
    });
  }
  if (settings.views > rules.max_views)
    found.push({ field: maxViews, message: t('compose.workspace.tooManyViews', { max: rules.max_views }) });
  if (rules.require_passphrase && !settings.withPassphrase) {
    found.push({ field: passphrase, message: t('compose.workspace.passphraseMissing') });
  }
  const domains = rules.allowed_recipient_domains;
  if (domains) {
    const at = orList(domains);
    if (settings.recipients.length === 0) {
      found.push({ field: addRecipient, message: t('compose.workspace.recipientsNeeded', { domains: at }) });
    }
    const inputs = recipientFields();
    settings.recipients.forEach((recipient, index) => {
      const row = inputs[index]!;
      if (!recipient.restricted) found.push({ field: row.restricted, message: t('compose.workspace.mustRestrict', { number: index + 1 }) });
      const domain = recipient.email ? emailDomain(recipient.email) : null;
      if (domain === null || !domains.includes(domain))
        found.push({ field: row.email, message: t('compose.workspace.wrongDomain', { number: index + 1, domains: at }) });
    });
  }
  return found;
}

/** A 403 that names the workspace, not a stale token: sending it again could not change the answer. */
const isWorkspaceRefusal = (error: unknown): error is ApiError =>
  error instanceof ApiError && error.status === 403 && (error.code === 'policy_violation' || error.problem.reason === 'not_a_member');

class FinalRefusal extends Error {
  constructor(readonly refusal: ApiError) {
    super(refusal.message);
  }
}

/**
 * `withAccess` for the creating routes, which answer a stale token 403 (they are open to
 * anonymous callers): a workspace's own 403 is passed through without a refresh and a second send.
 */
export async function sendWithAccess<T>(run: (token: string) => Promise<T>): Promise<T> {
  try {
    return await withAccess(
      async (token) => {
        try {
          return await run(token);
        } catch (error) {
          throw isWorkspaceRefusal(error) ? new FinalRefusal(error) : error;
        }
      },
      [401, 403],
    );
  } catch (error) {
    throw error instanceof FinalRefusal ? error.refusal : error;
  }
}

/** The form's input a path of the body names (`body.recipients.1.email`), or null for none of the form's. */
function fieldFor(path: string): HTMLElement | null {
  const recipient = /^body\.recipients\.(\d+)\.(email|restricted)$/.exec(path);
  if (recipient) {
    const row = recipientFields()[Number(recipient[1])];
    return row ? (recipient[2] === 'email' ? row.email : row.restricted) : addRecipient;
  }
  switch (path) {
    case 'body.expires_in':
      return expiry.value === 'custom' ? customAmount : expiry;
    case 'body.max_views':
      return maxViews;
    case 'body.envelope':
    case 'body.passphrase':
      return passphrase;
    case 'body.size_bytes':
      return fileInput;
    case 'body.recipients':
      return addRecipient;
    case 'body.workspace_id':
      return sendIn;
    default:
      return null;
  }
}

/** A refusal and the input it is about (null: none of the form's). */
interface FieldProblem {
  field: HTMLElement | null;
  message: string;
}

/** Inputs the box names ("Recipient 1, …"); every other input of `fieldFor` is a named field, said beside it. */
const isNamedField = (input: HTMLElement | null): boolean => input !== null && input !== addRecipient && !input.closest('#recipient-list');

/**
 * One entry of a 403 `policy_violation`, in the page's words, by the rule it breaks (the
 * problem's `rules`, in the entries' order). The limit is the number the entry names, as the
 * server compared it (seconds, views or bytes): the policy may have changed since the page read it.
 * A rule the page does not know is said as `problemMessages` says it.
 */
function violationMessage(rule: unknown, path: string, serverMessage: string, fallback: string | undefined): string | null {
  const number = /\d+/.exec(serverMessage)?.[0];
  const limit = number === undefined ? null : Number(number);
  const recipient = /^body\.recipients\.(\d+)\./.exec(path);
  const position = recipient ? Number(recipient[1]) + 1 : 0;
  switch (rule) {
    case 'max_expires_in':
      if (limit !== null) return t('compose.workspace.tooLong', { duration: durationWords(limit) });
      break;
    case 'max_views':
      if (limit !== null) return t('compose.workspace.refused.maxViews', { count: limit });
      break;
    case 'max_file_bytes':
      if (limit !== null) return t('compose.workspace.refused.maxFileBytes', { size: formatBytes(limit) });
      break;
    case 'require_passphrase':
      return t('compose.workspace.refused.passphrase');
    case 'allow_files':
      return t('compose.workspace.refused.noFiles');
    case 'allowed_recipient_domains':
      if (path === 'body.recipients') return t('compose.workspace.refused.recipients');
      if (recipient && path.endsWith('.restricted')) return t('compose.workspace.refused.restricted', { number: position });
      if (recipient && path.endsWith('.email')) return t('compose.workspace.refused.email', { number: position });
      break;
  }
  return fallback ?? null;
}

/**
 * A refusal of sending in the workspace, to show: 403 `policy_violation` an entry per field (its
 * input marked), 403 `not_a_member` on the select. The list is read again either way: the
 * policy or the membership changed since the page read it, and the limits shown follow.
 */
export function workspaceRefusal(error: ApiError): { title: string; problems: FieldProblem[] } | null {
  if (!isWorkspaceRefusal(error)) return null;
  const name = chosen?.name ?? t('compose.workspace.thisWorkspace');
  void loadWorkspaces();
  if (error.problem.reason === 'not_a_member') {
    return {
      title: t('compose.workspace.nothingSent'),
      problems: [{ field: sendIn, message: t('compose.workspace.notMember', { name }) }],
    };
  }
  const rules = Array.isArray(error.problem.rules) ? (error.problem.rules as unknown[]) : [];
  const said = problemMessages(error);
  const problems = (error.problem.errors ?? []).flatMap((entry, index): FieldProblem[] => {
    const field = fieldFor(entry.path);
    const fallback = said[index];
    const message = violationMessage(
      rules[index],
      entry.path,
      String(entry.message),
      fallback && isNamedField(field) ? besideField(fallback) : fallback,
    );
    return message === null ? [] : [{ field, message }];
  });
  return {
    title: t('compose.workspace.refusedTitle'),
    problems: problems.length > 0 ? problems : said.map((message) => ({ field: null, message })),
  };
}
