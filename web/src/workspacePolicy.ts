/**
 * A workspace's policy form (`/workspace?id=`, owners and admins, the Team plan): the longest
 * expiry, the most views, a passphrase required, the recipients' domains (one a line), files
 * allowed and their largest size, request links allowed. Empty means no rule (null). The
 * server's 400 is shown field by field (a domain's by its line); its 403 `reason: plan` says the
 * policy comes with the Team plan.
 */
import { planIncludes } from '../../shared/domain/plans.ts';
import { secretLimits, workspaceLimits } from '../../shared/limits.ts';
import { ApiError, problemMessages } from './api.ts';
import { showProblem } from './accountPage.ts';
import { announce, byId, element, setVisible } from './dom.ts';
import { fieldErrors } from './fieldErrors.ts';
import { language, t, tNodes } from './i18n.ts';
import { SignedOutError, withAccess } from './session.ts';
import { planName } from './workspaceAuditValues.ts';
import { explainRefusal, serverWords, type WorkspaceContext } from './workspaceContext.ts';
import { workspacesApi, type PolicyBody, type WorkspacePolicy } from './workspacesApi.ts';

const form = byId<HTMLFormElement>('policy-form');
const fields = byId<HTMLFieldSetElement>('policy-fields');
const planNote = byId('policy-plan');
const errors = byId('policy-errors');
const errorList = byId<HTMLUListElement>('policy-error-list');
const saved = byId('policy-saved');
const expiry = byId<HTMLSelectElement>('policy-expiry');
const views = byId<HTMLInputElement>('policy-views');
const passphrase = byId<HTMLInputElement>('policy-passphrase');
const domains = byId<HTMLTextAreaElement>('policy-domains');
const files = byId<HTMLInputElement>('policy-files');
const fileSize = byId<HTMLInputElement>('policy-file-size');
const fileUnit = byId<HTMLSelectElement>('policy-file-unit');
const requests = byId<HTMLInputElement>('policy-requests');

// The SCIM admin Group is an owner's setting, not a rule of this form: left out, it stays as it is.
type Rule = Exclude<keyof WorkspacePolicy, 'scim_admin_group'>;
/** Each rule's input (focused and marked when refused) and its message under it. */
const ruleFields: Record<Rule, { input: HTMLElement; error: HTMLElement }> = {
  max_expires_in: { input: expiry, error: byId('policy-expiry-error') },
  max_views: { input: views, error: byId('policy-views-error') },
  require_passphrase: { input: passphrase, error: byId('policy-passphrase-error') },
  allowed_recipient_domains: { input: domains, error: byId('policy-domains-error') },
  allow_files: { input: files, error: byId('policy-files-error') },
  max_file_bytes: { input: fileSize, error: byId('policy-file-size-error') },
  allow_requests: { input: requests, error: byId('policy-requests-error') },
};
const formErrors = fieldErrors(ruleFields, errors, errorList);

// The domains' hint holds an example in its own element (a domain is never translated).
const domainExample = element('span', 'mono', 'example.com');
domainExample.translate = false;
byId('policy-domains-hint').replaceChildren(...tNodes('workspacePolicy.domains.hint', { example: domainExample }));

const units = { B: 1, MB: 2 ** 20, GB: 2 ** 30 } as const;

let current: WorkspacePolicy | null = null;
/** The line (1-based) of each domain sent, by its index in the body: the server's errors name indexes. */
let domainLines: number[] = [];

/** Shows the policy as set, and whether this workspace's plan and the caller's role may change it. */
export function renderPolicy(context: WorkspaceContext): void {
  const { workspace } = context;
  current = workspace.policy;
  formErrors.clear();
  setVisible(saved, false);
  const policy = workspace.policy;
  const seconds = policy.max_expires_in;
  if (seconds !== null && ![...expiry.options].some((option) => option.value === String(seconds))) {
    expiry.append(new Option(t('workspacePolicy.expiry.asSet', { minutes: Math.round(seconds / 60) }), String(seconds)));
  }
  expiry.value = seconds === null ? '' : String(seconds);
  views.value = policy.max_views === null ? '' : String(policy.max_views);
  passphrase.checked = policy.require_passphrase === true;
  domains.value = (policy.allowed_recipient_domains ?? []).join('\n');
  files.checked = policy.allow_files !== false;
  requests.checked = policy.allow_requests !== false;
  const bytes = policy.max_file_bytes;
  const unit = bytes === null ? 'MB' : bytes % units.GB === 0 ? 'GB' : bytes % units.MB === 0 ? 'MB' : 'B';
  fileUnit.value = unit;
  fileSize.value = bytes === null ? '' : String(bytes / units[unit]);
  const allowed = planIncludes(workspace.plan, 'policy');
  showPlanNote(allowed ? null : workspace.plan);
  fields.disabled = !allowed;
}

function showPlanNote(plan: string | null): void {
  planNote.textContent = plan === null ? '' : t('workspacePolicy.planNote', { plan: planName(plan) });
  setVisible(planNote, plan !== null);
}

/** A checkbox's rule: unchanged in meaning keeps what was set (true or null stay apart); a change sets it, or clears it back to no rule. */
function flag(checked: boolean, stored: boolean | null, whenAbsent: boolean): boolean | null {
  if (checked === (stored ?? whenAbsent)) return stored;
  return checked === whenAbsent ? null : checked;
}

/** The body, or the problems found in the page (by rule). */
function readForm(): { body: PolicyBody } | { problems: Partial<Record<Rule, string>> } {
  const problems: Partial<Record<Rule, string>> = {};
  const body: PolicyBody = {};
  body.max_expires_in = expiry.value === '' ? null : Number(expiry.value);
  const { min, max } = secretLimits.maxViews;
  const viewCount = Number(views.value);
  if (views.value.trim() === '') body.max_views = null;
  else if (!Number.isInteger(viewCount) || viewCount < min || viewCount > max)
    problems.max_views = t('workspacePolicy.views.invalid', { min, max });
  else body.max_views = viewCount;
  body.require_passphrase = flag(passphrase.checked, current?.require_passphrase ?? null, false);
  const lines = domains.value
    .split('\n')
    .map((line, index) => ({ domain: line.trim(), line: index + 1 }))
    .filter((entry) => entry.domain !== '');
  domainLines = lines.map((entry) => entry.line);
  if (lines.length > workspaceLimits.allowedRecipientDomains)
    problems.allowed_recipient_domains = t('workspacePolicy.domains.tooMany', { max: workspaceLimits.allowedRecipientDomains });
  body.allowed_recipient_domains = lines.length === 0 ? null : lines.map((entry) => entry.domain);
  body.allow_files = flag(files.checked, current?.allow_files ?? null, true);
  const size = Number(fileSize.value);
  const bytes = Math.round(size * units[fileUnit.value as keyof typeof units]);
  if (fileSize.value.trim() === '') body.max_file_bytes = null;
  else if (!Number.isFinite(size) || size <= 0 || !Number.isSafeInteger(bytes) || bytes < 1)
    problems.max_file_bytes = t('workspacePolicy.fileSize.invalid');
  else body.max_file_bytes = bytes;
  body.allow_requests = flag(requests.checked, current?.allow_requests ?? null, true);
  return Object.keys(problems).length > 0 ? { problems } : { body };
}

/** The server's 400, by rule: `body.<rule>`, a domain's `body.allowed_recipient_domains.<i>` by its line. */
function sortProblems(error: ApiError): void {
  const byRule: Partial<Record<Rule, string[]>> = {};
  const other: string[] = [];
  for (const entry of error.problem.errors ?? []) {
    const match = /^body\.(\w+)(?:\.(\d+))?$/.exec(entry.path ?? '');
    const rule = match?.[1] as Rule | undefined;
    if (!rule || !(rule in ruleFields)) {
      // The service's own words are English: another language has the generic explanation below.
      if (language === 'en') other.push(entry.message);
      continue;
    }
    const index = match?.[2];
    const sentence = serverWords(`${entry.message.charAt(0).toUpperCase()}${entry.message.slice(1)}.`, t('workspacePolicy.valueRefused'));
    (byRule[rule] ??= []).push(
      index === undefined
        ? sentence
        : t('workspacePolicy.domains.line', { line: domainLines[Number(index)] ?? Number(index) + 1, sentence }),
    );
  }
  if (Object.keys(byRule).length === 0 && other.length === 0) other.push(...problemMessages(error));
  const list = document.createDocumentFragment();
  list.append(...other.map((message) => Object.assign(document.createElement('li'), { textContent: message })));
  formErrors.show(
    Object.fromEntries(Object.entries(byRule).map(([rule, messages]) => [rule, messages.join(' ')])),
    other.length > 0 ? list : null,
  );
}

export function wirePolicyForm(context: () => WorkspaceContext): void {
  for (const rule of Object.keys(ruleFields) as Rule[]) ruleFields[rule].input.addEventListener('input', () => formErrors.clearField(rule));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void save(context());
  });
}

async function save(context: WorkspaceContext): Promise<void> {
  if (fields.disabled) return;
  formErrors.clear();
  setVisible(saved, false);
  const read = readForm();
  if ('problems' in read) return formErrors.show(read.problems);
  fields.disabled = true;
  announce(t('workspacePolicy.saving'));
  try {
    await withAccess((token) => workspacesApi.setPolicy(token, context.workspace.id, read.body));
    await context.refresh();
    saved.textContent = t('workspacePolicy.saved');
    setVisible(saved, true);
    saved.focus();
    announce(t('workspacePolicy.savedAnnounce'));
  } catch (error) {
    announce('');
    fields.disabled = false;
    if (error instanceof SignedOutError) return showProblem(errors, error);
    if (error instanceof ApiError && error.status === 400) return sortProblems(error);
    if (error instanceof ApiError && error.status === 403 && error.problem.reason === 'plan') {
      showPlanNote(typeof error.problem.plan === 'string' ? error.problem.plan : context.workspace.plan);
      fields.disabled = true;
      planNote.focus();
      return;
    }
    await explainRefusal(context, error, errors, t('workspacePolicy.failed'));
  }
}
