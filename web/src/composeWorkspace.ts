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
import { ApiError, type RecipientRequest } from './api.ts';
import { recheckFile, useFileRule } from './composeFile.ts';
import { recipientFields, type FieldError } from './composeLinks.ts';
import { composeLimits, durationWords, emailDomain, orList, policySentences, type ComposeLimits } from './composePolicy.ts';
import { currentWorkspaceId } from './currentWorkspace.ts';
import { announce, byId, element, setVisible } from './dom.ts';
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
  customHint: customHint.textContent ?? '',
  viewsHint: maxViewsHint.textContent ?? '',
  passphraseLabel: passphraseLabel.textContent ?? '',
};

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
    new Option('Personal', ''),
    ...items.map((workspace) => {
      const option = new Option(workspace.name, workspace.id);
      // A name in a right-to-left script reads in its own direction.
      option.dir = 'auto';
      return option;
    }),
  );
  setVisible(sendInField, items.length > 0);
  choose(items.find((workspace) => workspace.id === preferred) ?? null);
}

/** Signed out: only Personal is left (a workspace needs the session). */
export function forgetWorkspaces(): void {
  workspaces = [];
  sendIn.replaceChildren(new Option('Personal', ''));
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
  customHint.textContent = rules ? `Between 1 minute and ${durationWords(longest)} in this workspace.` : personal.customHint;

  const most = rules?.max_views ?? secretLimits.maxViews.max;
  maxViews.max = String(most);
  if (Number(maxViews.value) > most) maxViews.value = String(most);
  maxViewsHint.textContent = !rules
    ? personal.viewsHint
    : most === 1
      ? 'Only 1 in this workspace: it is deleted after it.'
      : `1 to ${most} in this workspace. It is deleted after the last one.`;

  const needsPassphrase = rules?.require_passphrase === true;
  passphrase.required = needsPassphrase;
  passphraseLabel.textContent = needsPassphrase ? 'Passphrase (required in this workspace)' : personal.passphraseLabel;
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
    ...(sentences.length > 0 ? sentences : ['None beyond the usual ones: its policy sets no rule']).map((sentence) =>
      element('li', '', sentence),
    ),
  );
  // Shown to recipients only while the workspace's plan includes branding (as the server decides).
  const branding = planIncludes(chosen.plan, 'branding') ? chosen.branding : null;
  brandingName.textContent = branding?.display_name ?? '';
  setVisible(brandingNote, branding !== null);
}

sendIn.addEventListener('change', () => {
  sendIn.removeAttribute('aria-invalid');
  choose(workspaces.find((workspace) => workspace.id === sendIn.value) ?? null);
  announce(
    chosen
      ? `Sending in ${chosen.name}. ${policySentences(chosen.policy).join('. ') || 'Its policy sets no rule'}.`
      : 'Sending as Personal.',
  );
});

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
      message: `Expires after: at most ${durationWords(rules.max_expires_in)} in this workspace.`,
    });
  }
  if (settings.views > rules.max_views)
    found.push({ field: maxViews, message: `Views allowed: at most ${rules.max_views} in this workspace.` });
  if (rules.require_passphrase && !settings.withPassphrase) {
    found.push({ field: passphrase, message: 'Passphrase: required in this workspace. Tell it to the recipient another way.' });
  }
  const domains = rules.allowed_recipient_domains;
  if (domains) {
    const at = orList(domains);
    if (settings.recipients.length === 0) {
      found.push({
        field: addRecipient,
        message: `Personal links: this workspace sends only to restricted recipients at ${at}. Add one, with “Only this address can open it”.`,
      });
    }
    const inputs = recipientFields();
    settings.recipients.forEach((recipient, index) => {
      const row = inputs[index]!;
      if (!recipient.restricted)
        found.push({ field: row.restricted, message: `Recipient ${index + 1}, only this address: must be checked in this workspace.` });
      const domain = recipient.email ? emailDomain(recipient.email) : null;
      if (domain === null || !domains.includes(domain))
        found.push({ field: row.email, message: `Recipient ${index + 1}, email address: must be an address at ${at} in this workspace.` });
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

/** The form's field for a path of the body (`body.recipients.1.email`), and its name. */
function fieldFor(path: string, isFile: boolean): { field: HTMLElement | null; label: string } {
  const recipient = /^body\.recipients\.(\d+)\.(email|restricted)$/.exec(path);
  if (recipient) {
    const index = Number(recipient[1]);
    const row = recipientFields()[index];
    const email = recipient[2] === 'email';
    return {
      field: row ? (email ? row.email : row.restricted) : addRecipient,
      label: `Recipient ${index + 1}, ${email ? 'email address' : 'only this address'}`,
    };
  }
  switch (path) {
    case 'body.expires_in':
      return { field: expiry.value === 'custom' ? customAmount : expiry, label: 'Expires after' };
    case 'body.max_views':
      return { field: maxViews, label: 'Views allowed' };
    case 'body.envelope':
    case 'body.passphrase':
      return { field: passphrase, label: 'Passphrase' };
    case 'body.size_bytes':
      return { field: fileInput, label: isFile ? 'File' : 'Secret' };
    case 'body.recipients':
      return { field: addRecipient, label: 'Personal links' };
    case 'body.workspace_id':
      return { field: sendIn, label: 'Send in' };
    default:
      return { field: null, label: path.replace(/^body\./, '') };
  }
}

/** A refusal and the input it is about (null: none of the form's). */
interface FieldProblem {
  field: HTMLElement | null;
  message: string;
}

/** The server's numbers in the form's words: "at most 86400 seconds" is "at most 1 day". */
const inWords = (message: string) =>
  message
    .replace(/\b(\d+) seconds\b/, (_, seconds: string) => durationWords(Number(seconds)))
    .replace(/\b(\d+) bytes\b/, (_, bytes: string) => formatBytes(Number(bytes)));

/**
 * A refusal of sending in the workspace, to show: 403 `policy_violation` an entry per field (its
 * input marked), 403 `not_a_member` on the select. The list is read again either way: the
 * policy or the membership changed since the page read it, and the limits shown follow.
 */
export function workspaceRefusal(error: ApiError, isFile: boolean): { title: string; problems: FieldProblem[] } | null {
  if (!isWorkspaceRefusal(error)) return null;
  const name = chosen?.name ?? 'this workspace';
  void loadWorkspaces();
  if (error.problem.reason === 'not_a_member') {
    return {
      title: 'Nothing was sent',
      problems: [
        {
          field: sendIn,
          message: `Send in: you are not a member of “${name}” (any more), so nothing was sent. Choose Personal or another workspace.`,
        },
      ],
    };
  }
  const problems = (error.problem.errors ?? []).map((entry): FieldProblem => {
    const { field, label } = fieldFor(entry.path, isFile);
    return { field, message: `${label}: ${inWords(entry.message)}.` };
  });
  return {
    title: 'This workspace’s policy does not allow this',
    problems: problems.length > 0 ? problems : [{ field: null, message: error.message }],
  };
}
