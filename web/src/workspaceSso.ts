/**
 * A workspace's single sign-on (`/workspace?id=`, owners and admins of a Team workspace, issue
 * 17): the identity provider's issuer and the email domain it speaks for, one of the workspace's
 * verified domains (`PUT /v1/workspaces/{id}/sso`). The directory key its SCIM client
 * provisions with comes with the first save and a rotation only (behind a confirm step: the old
 * key stops at once), and is shown that once (`workspaceSsoKey.ts`).
 *
 * The API has no read of a directory (the interface lists only its PUT), so the page finds the
 * one in place as the sign-in page would: it asks discovery about an address at each verified
 * domain, and shows the answer naming this workspace. A directory set for a name under a
 * verified domain is not found that way; saving again shows it.
 */
import { planIncludes } from '../../shared/domain/plans.ts';
import { mayDo } from '../../shared/domain/workspaces/permissions.ts';
import { ApiError } from './api.ts';
import { fact, showProblem } from './accountPage.ts';
import { confirmStep } from './confirmStep.ts';
import { announce, byId, element, errorBox, setVisible } from './dom.ts';
import { domainsApi, issuerUrl, type KnownDirectory, type SsoDirectory, type WorkspaceDomain } from './domainsApi.ts';
import { t } from './i18n.ts';
import { SignedOutError, withAccess } from './session.ts';
import { planName } from './workspaceAuditValues.ts';
import { explainRefusal, sentences, serverWords, show, type WorkspaceContext } from './workspaceContext.ts';
import { directoryKeyParts, showDirectory } from './workspaceSsoKey.ts';
import { ownDomainNote, showOwnDomain } from './workspaceSsoOwnDomain.ts';

export const ssoSection = element('section');
const title = element('h2', 'section-title', t('workspace.section.sso'));
const planNote = element('p', 'notice notice-info');
const current = element('dl', 'facts');
const none = element('p');
const form = element('form');
const fields = element('fieldset', 'plain');
const issuer = element('input');
const issuerError = element('p', 'notice notice-error');
const domain = element('select');
const domainError = element('p', 'notice notice-error');
const noDomains = element('p', 'notice notice-info');
const errors = errorBox('sso-errors');
const saved = element('p', 'notice notice-info');
const save = element('button', 'primary', t('workspaceSso.save'));
const rotate = element('button', '', t('workspaceSso.rotate'));

/** The directory in place, as discovery or this page's last save told it (null: none found). */
let known: KnownDirectory | null = null;
/** The verified domains discovery was last asked about, so a page read again does not ask again. */
let askedAbout = '';
/** The issuer field keeps what was typed across a reading of the page. */
let issuerTyped = false;
/** Whether the form can be used (the Team plan, a verified domain), as last drawn. */
let usable = false;
/** The issuer's bound (shared/api/domains.ts). */
const issuerMax = 512;

/** A labelled field of the form: its input, hint and message under it. */
function field(
  id: string,
  labelText: string,
  control: HTMLInputElement | HTMLSelectElement,
  hintText: string,
  error: HTMLElement,
): HTMLDivElement {
  const box = element('div', 'field');
  const label = element('label', '', labelText);
  label.htmlFor = id;
  control.id = id;
  const hint = element('p', 'hint', hintText);
  hint.id = `${id}-hint`;
  error.id = `${id}-error`;
  error.hidden = true;
  control.setAttribute('aria-describedby', `${hint.id} ${error.id}`);
  box.append(label, control, hint, error);
  return box;
}

function build(context: () => WorkspaceContext): void {
  ssoSection.id = 'sso-section';
  ssoSection.setAttribute('aria-labelledby', 'sso-title');
  ssoSection.hidden = true;
  title.id = 'sso-title';
  title.tabIndex = -1;
  const lede = element('p', 'lede', t('workspaceSso.lede'));
  planNote.id = 'sso-plan';
  planNote.tabIndex = -1;
  planNote.hidden = true;
  current.id = 'sso-current';
  none.id = 'sso-none';
  none.hidden = true;

  // No name attributes: without the script this form can submit nothing.
  form.id = 'sso-form';
  form.noValidate = true;
  form.setAttribute('aria-labelledby', 'sso-title');
  fields.id = 'sso-fields';
  issuer.type = 'url';
  issuer.inputMode = 'url';
  issuer.maxLength = issuerMax;
  issuer.autocomplete = 'off';
  issuer.spellcheck = false;
  issuer.setAttribute('autocapitalize', 'off');
  noDomains.id = 'sso-no-domains';
  noDomains.hidden = true;
  noDomains.textContent = t('workspaceSso.noDomains');
  saved.id = 'sso-saved';
  saved.tabIndex = -1;
  saved.hidden = true;
  save.type = 'submit';
  save.id = 'sso-save';
  rotate.type = 'button';
  rotate.id = 'sso-rotate';
  rotate.dataset.action = 'rotate';
  rotate.hidden = true;
  const actions = element('div', 'actions');
  actions.append(save, rotate);
  const step = confirmStep(
    rotate,
    {
      action: 'rotate',
      object: t('workspaceSso.rotateObject'),
      question: t('workspaceSso.rotateQuestion'),
      yes: t('workspaceSso.rotateYes'),
      no: t('workspaceSso.rotateNo'),
    },
    () => {
      step.close();
      void submit(context(), true);
    },
  );
  fields.append(
    noDomains,
    field('sso-issuer', t('workspaceSso.issuer.label'), issuer, t('workspaceSso.issuer.hint'), issuerError),
    field('sso-domain', t('workspaceSso.domain.label'), domain, t('workspaceSso.domain.hint'), domainError),
    errors,
    saved,
    actions,
    step.box,
  );
  form.append(fields);
  // Outside the fieldset, which is disabled until a domain is verified: its Claim button must work then.
  ssoSection.append(title, lede, planNote, current, none, ...directoryKeyParts(() => issuer), ownDomainNote, form);
}

function showPlanNote(plan: string | null): void {
  planNote.textContent = plan === null ? '' : t('workspaceSso.planNote', { plan: planName(plan) });
  setVisible(planNote, plan !== null);
}

/** The issuer as the page shows it: a link only when it is an https URL. */
function issuerNode(value: string): Node {
  const url = issuerUrl(value);
  if (!url) return document.createTextNode(value);
  const link = element('a', 'mono', value);
  link.href = url.href;
  link.rel = 'noopener noreferrer';
  link.translate = false;
  return link;
}

function drawCurrent(failed: boolean): void {
  if (known) {
    const provider = fact(t('workspaceSso.current.issuer'), issuerNode(known.issuer));
    provider.dataset.role = 'sso-issuer';
    const emailDomain = element('span', 'mono', known.emailDomain);
    emailDomain.translate = false;
    const addresses = fact(t('workspaceSso.current.domain'), emailDomain);
    addresses.dataset.role = 'sso-email-domain';
    current.replaceChildren(provider, addresses);
  } else {
    current.replaceChildren();
  }
  setVisible(current, known !== null);
  none.textContent = failed
    ? t('workspaceSso.current.unreadable')
    : domain.options.length === 0
      ? t('workspaceSso.current.none')
      : t('workspaceSso.current.noneYet');
  setVisible(none, known === null);
  setVisible(rotate, known !== null);
  if (!known) return;
  if (!issuerTyped) issuer.value = known.issuer;
  if (![...domain.options].some((option) => option.value === known!.emailDomain))
    domain.append(new Option(t('workspaceSso.domain.asSet', { domain: known.emailDomain }), known.emailDomain));
  domain.value = known.emailDomain;
}

/**
 * Draws the section for the workspace as read, with its domains as `loadDomains` read them (null
 * when they could not be): the verified ones are the email domains offered, and those discovery
 * is asked about (again only when they changed).
 */
export async function renderSso(context: WorkspaceContext, domains: WorkspaceDomain[] | null): Promise<void> {
  const { workspace } = context;
  if (!mayDo(workspace.role, 'setSso')) return;
  clearErrors();
  setVisible(saved, false);
  const allowed = planIncludes(workspace.plan, 'sso');
  showPlanNote(allowed ? null : workspace.plan);
  const verified = (domains ?? []).filter((claim) => claim.state === 'verified').map((claim) => claim.hostname);
  const chosen = domain.value;
  domain.replaceChildren(...verified.map((name) => new Option(name, name)));
  if (verified.includes(chosen)) domain.value = chosen;
  usable = allowed && verified.length > 0;
  fields.disabled = !usable;
  setVisible(noDomains, allowed && domains !== null && verified.length === 0);
  showOwnDomain(allowed && domains !== null ? verified : null, domains ?? []);
  // Without the domains nothing can be asked: what was known stays, and is not said to be none.
  let failed = domains === null;
  // A directory set here for a name under a verified domain is asked about too.
  const names = [...new Set([...verified, ...(known ? [known.emailDomain] : [])])];
  const asking = `${workspace.id} ${names.join(' ')}`;
  if (allowed && !failed && asking !== askedAbout) {
    askedAbout = asking;
    ({ found: known, failed } = await domainsApi.directoryOf(workspace.id, names));
  }
  drawCurrent(failed);
}

function clearErrors(): void {
  for (const [input, error] of [
    [issuer, issuerError],
    [domain, domainError],
  ] as const) {
    input.removeAttribute('aria-invalid');
    setVisible(error, false);
  }
  setVisible(errors, false);
}

function fieldProblem(input: HTMLInputElement | HTMLSelectElement, error: HTMLElement, message: string): void {
  error.textContent = message;
  setVisible(error, true);
  input.setAttribute('aria-invalid', 'true');
  input.focus();
}

/** What the page refuses before sending, as the server would (shared/api/domains.ts), or null. */
function issuerProblem(value: string): string | null {
  if (!value) return t('workspaceSso.issuer.missing');
  if (value.length > issuerMax) return t('workspaceSso.issuer.tooLong', { max: issuerMax });
  if (!URL.canParse(value)) return t('workspaceSso.issuer.notUrl');
  const url = new URL(value);
  if (url.protocol !== 'https:') return t('workspaceSso.issuer.notHttps');
  if (url.username || url.password || url.search || url.hash) return t('workspaceSso.issuer.extras');
  return null;
}

async function submit(context: WorkspaceContext, rotateKey: boolean): Promise<void> {
  if (fields.disabled) return;
  clearErrors();
  setVisible(saved, false);
  const typed = issuer.value.trim();
  const refused = issuerProblem(typed);
  if (refused) return fieldProblem(issuer, issuerError, sentences(refused, t('workspaceSso.nothingSent')));
  const emailDomain = domain.value;
  if (!emailDomain) return fieldProblem(domain, domainError, t('workspaceSso.domain.missing'));
  fields.disabled = true;
  announce(rotateKey ? t('workspaceSso.rotating') : t('workspaceSso.saving'));
  try {
    const answer: SsoDirectory = await withAccess((token) =>
      domainsApi.setSso(token, context.workspace.id, {
        issuer: typed,
        email_domain: emailDomain,
        ...(rotateKey ? { rotate_directory_key: true } : {}),
      }),
    );
    known = { workspaceId: context.workspace.id, issuer: answer.issuer, emailDomain: answer.email_domain };
    issuerTyped = false;
    await context.refresh();
    if (showDirectory(answer.scim.base_url, answer.scim.directory_key)) {
      announce(rotateKey ? t('workspaceSso.savedNewKey') : t('workspaceSso.savedKey'));
    } else {
      const host = issuerUrl(answer.issuer)?.host ?? answer.issuer;
      show(saved, t('workspaceSso.saved', { domain: answer.email_domain, host }));
      announce(t('workspaceSso.savedAnnounce'));
    }
  } catch (error) {
    announce('');
    await explain(context, error, emailDomain);
  } finally {
    fields.disabled = !usable;
  }
}

async function explain(context: WorkspaceContext, error: unknown, emailDomain: string): Promise<void> {
  if (error instanceof SignedOutError || !(error instanceof ApiError)) return showProblem(errors, error);
  const reason = error.problem.reason;
  if (error.status === 400) {
    const byPath = (path: string) => (error.problem.errors ?? []).filter((entry) => entry.path === path).map((entry) => entry.message);
    const [forIssuer, forDomain] = [byPath('body.issuer'), byPath('body.email_domain')];
    if (forDomain.length > 0)
      fieldProblem(
        domain,
        domainError,
        serverWords(t('workspaceSso.domain.refusedBecause', { reason: forDomain.join('; ') }), t('workspaceSso.domain.refused')),
      );
    if (forIssuer.length > 0)
      fieldProblem(
        issuer,
        issuerError,
        serverWords(t('workspaceSso.issuer.refusedBecause', { reason: forIssuer.join('; ') }), t('workspaceSso.issuer.refused')),
      );
    if (forIssuer.length + forDomain.length > 0) return;
    return showProblem(errors, error, t('workspaceSso.failed'));
  }
  if (error.status === 409 && reason === 'domain_unverified') {
    await context.refresh();
    return fieldProblem(domain, domainError, t('workspaceSso.domain.unverified', { domain: emailDomain }));
  }
  if (error.status === 409 && reason === 'domain_claimed') {
    return fieldProblem(domain, domainError, t('workspaceSso.domain.claimed', { domain: emailDomain }));
  }
  if (error.status === 403 && reason === 'plan') {
    showPlanNote(typeof error.problem.plan === 'string' ? error.problem.plan : context.workspace.plan);
    usable = false;
    return planNote.focus();
  }
  await explainRefusal(context, error, errors, t('workspaceSso.failed'));
}

/** Builds the section before the audit trail (after the domains) and wires it once; `context()` is the page's context as it is now. */
export function wireSso(context: () => WorkspaceContext): void {
  build(context);
  byId('audit-section').before(ssoSection);
  issuer.addEventListener('input', () => {
    issuerTyped = true;
    issuer.removeAttribute('aria-invalid');
    setVisible(issuerError, false);
  });
  domain.addEventListener('change', () => {
    domain.removeAttribute('aria-invalid');
    setVisible(domainError, false);
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void submit(context(), false);
  });
}
