/**
 * A workspace's custom domains (`/workspace?id=`, issue 17): every member sees the list (each
 * card is `workspaceDomainItem.ts`); owners and admins of a Team workspace claim a hostname
 * here (`POST /v1/domains`), whose TXT record they then publish and verify on its card. The
 * server's 400 and 409 are said under the hostname, its 403 `reason: plan` as the Team plan's.
 * Built here and placed before the audit trail, so the page's markup stays as it was.
 */
import { planIncludes } from '../../shared/domain/plans.ts';
import { mayDo } from '../../shared/domain/workspaces/permissions.ts';
import { domainLimits } from '../../shared/limits.ts';
import { ApiError } from './api.ts';
import { showProblem } from './accountPage.ts';
import { announce, byId, element, errorBox, setVisible } from './dom.ts';
import { domainsApi, type WorkspaceDomain } from './domainsApi.ts';
import { t } from './i18n.ts';
import { SignedOutError, withAccess } from './session.ts';
import { planName } from './workspaceAuditValues.ts';
import { domainItem } from './workspaceDomainItem.ts';
import { explainRefusal, serverWords, show, type WorkspaceContext } from './workspaceContext.ts';

export const domainsSection = element('section');
const title = element('h2', 'section-title', t('workspace.section.domains'));
const planNote = element('p', 'notice notice-info');
const changedNote = element('p', 'notice notice-info');
const listError = errorBox('domains-error');
const empty = element('p', '', t('workspaceDomains.empty'));
const list = element('ul', 'items');
const form = element('form');
const fields = element('fieldset', 'plain');
const hostname = element('input');
const hostnameError = element('p', 'notice notice-error');
const formErrors = errorBox('domain-claim-errors');

function build(): void {
  domainsSection.id = 'domains-section';
  domainsSection.setAttribute('aria-labelledby', 'domains-title');
  domainsSection.hidden = true;
  title.id = 'domains-title';
  title.tabIndex = -1;
  const lede = element('p', 'lede', t('workspaceDomains.lede'));
  const serving = element('p', 'hint', t('workspaceDomains.cname'));
  serving.id = 'domains-cname';
  planNote.id = 'domains-plan';
  planNote.tabIndex = -1;
  planNote.hidden = true;
  changedNote.id = 'domains-changed';
  changedNote.tabIndex = -1;
  changedNote.hidden = true;
  empty.id = 'domains-empty';
  empty.hidden = true;
  list.id = 'domains';
  list.setAttribute('aria-labelledby', 'domains-title');

  // No name attributes: without the script this form can submit nothing.
  form.id = 'domain-form';
  form.noValidate = true;
  form.setAttribute('aria-labelledby', 'domain-form-title');
  const formTitle = element('h3', 'panel-title', t('workspaceDomains.claim.title'));
  formTitle.id = 'domain-form-title';
  fields.id = 'domain-fields';
  const field = element('div', 'field');
  const label = element('label', '', t('workspaceDomains.claim.label'));
  hostname.id = 'domain-hostname';
  hostname.type = 'text';
  hostname.maxLength = 300;
  hostname.autocomplete = 'off';
  hostname.spellcheck = false;
  hostname.setAttribute('autocapitalize', 'off');
  hostname.setAttribute('aria-describedby', 'domain-hostname-hint domain-hostname-error');
  label.htmlFor = hostname.id;
  const hint = element('p', 'hint', t('workspaceDomains.claim.hint', { max: domainLimits.perWorkspace }));
  hint.id = 'domain-hostname-hint';
  hostnameError.id = 'domain-hostname-error';
  hostnameError.hidden = true;
  const actions = element('div', 'actions');
  const claimButton = element('button', 'primary', t('workspaceDomains.claim.submit'));
  claimButton.type = 'submit';
  claimButton.id = 'domain-claim';
  actions.append(claimButton);
  field.append(label, hostname, hint, hostnameError);
  fields.append(field, formErrors, actions);
  form.append(formTitle, fields);
  domainsSection.append(title, lede, planNote, changedNote, listError, empty, list, serving, form);
}

function showPlanNote(plan: string | null): void {
  planNote.textContent = plan === null ? '' : t('workspaceDomains.planNote', { plan: planName(plan) });
  setVisible(planNote, plan !== null);
}

/** A card's change: the page read again, then said in the section's notice, which takes the focus. */
async function changed(context: WorkspaceContext, announcement: string, note: string): Promise<void> {
  await context.refresh();
  announce(announcement);
  show(changedNote, note);
}

/**
 * Reads the workspace's domains and draws them, with the claim form for owners and admins: the
 * domains as read, or null when they could not be (said in the section).
 */
export async function loadDomains(context: WorkspaceContext): Promise<WorkspaceDomain[] | null> {
  const { workspace } = context;
  const manages = mayDo(workspace.role, 'manageDomains');
  const allowed = planIncludes(workspace.plan, 'custom_domains');
  setVisible(form, manages);
  showPlanNote(manages && !allowed ? workspace.plan : null);
  fields.disabled = !allowed;
  setVisible(changedNote, false);
  setVisible(listError, false);
  let domains: WorkspaceDomain[];
  try {
    domains = (await withAccess((token) => domainsApi.list(token, workspace.id))).items;
  } catch (error) {
    showProblem(listError, error, t('workspaceDomains.listFailed'));
    return null;
  }
  list.replaceChildren(
    ...domains.map((domain) => domainItem(domain, context, (announcement, note) => changed(context, announcement, note))),
  );
  setVisible(empty, domains.length === 0);
  return domains;
}

function clearErrors(): void {
  setVisible(hostnameError, false);
  setVisible(formErrors, false);
  setVisible(changedNote, false);
  hostname.removeAttribute('aria-invalid');
}

function hostnameProblem(message: string): void {
  hostnameError.textContent = message;
  setVisible(hostnameError, true);
  hostname.setAttribute('aria-invalid', 'true');
  hostname.focus();
}

/** What a 409 says about the hostname typed, by its reason. */
const conflicts: Record<string, (name: string) => string> = {
  already_claimed: (name) => t('workspaceDomains.conflict.alreadyClaimed', { hostname: name }),
  hostname_verified: (name) => t('workspaceDomains.conflict.verifiedElsewhere', { hostname: name }),
  domain_limit: () => t('workspaceDomains.conflict.limit', { max: domainLimits.perWorkspace }),
};

async function claim(context: WorkspaceContext): Promise<void> {
  if (fields.disabled) return;
  clearErrors();
  const typed = hostname.value.trim();
  if (!typed) return hostnameProblem(t('workspaceDomains.claim.missing'));
  fields.disabled = true;
  announce(t('workspaceDomains.claim.claiming'));
  try {
    const claimed = await withAccess((token) => domainsApi.claim(token, context.workspace.id, typed));
    hostname.value = '';
    await context.refresh();
    announce(t('workspaceDomains.claim.claimed', { hostname: claimed.hostname }));
    document.getElementById(`domain-${claimed.id}-record`)?.focus();
  } catch (error) {
    announce('');
    fields.disabled = false;
    if (error instanceof SignedOutError) return showProblem(formErrors, error);
    const reason = error instanceof ApiError ? error.problem.reason : undefined;
    if (error instanceof ApiError && error.status === 400) {
      const messages = (error.problem.errors ?? []).filter((entry) => entry.path === 'body.hostname').map((entry) => entry.message);
      if (messages.length > 0)
        return hostnameProblem(
          serverWords(t('workspaceDomains.claim.invalidBecause', { reason: messages.join('; ') }), t('workspaceDomains.claim.invalid')),
        );
    }
    if (error instanceof ApiError && error.status === 409 && typeof reason === 'string' && reason in conflicts)
      return hostnameProblem(conflicts[reason]!(typed.toLowerCase()));
    if (error instanceof ApiError && error.status === 403 && reason === 'plan') {
      showPlanNote(typeof error.problem.plan === 'string' ? error.problem.plan : context.workspace.plan);
      fields.disabled = true;
      planNote.focus();
      return;
    }
    await explainRefusal(context, error, formErrors, t('workspaceDomains.claim.failed'));
  }
}

/** Builds the section before the audit trail and wires it once; `context()` is the page's context as it is now. */
export function wireDomains(context: () => WorkspaceContext): void {
  build();
  byId('audit-section').before(domainsSection);
  hostname.addEventListener('input', () => {
    hostname.removeAttribute('aria-invalid');
    setVisible(hostnameError, false);
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void claim(context());
  });
}
