/**
 * One custom domain's card on a workspace's page (`workspaceDomains.ts`): the hostname, pending
 * or verified, its last check in words; for owners and admins the claim's TXT record to publish
 * (its name and value, each with Copy), "Verify now" while pending, and "Delete" behind a
 * confirm step. A verified hostname's next step, a CNAME to the deployment's custom-domain
 * address, is named and not given: the API does not know that address.
 */
import { mayDo } from '../../shared/domain/workspaces/permissions.ts';
import { domainLimits } from '../../shared/limits.ts';
import { actionButton, fact } from './accountPage.ts';
import { confirmStep } from './confirmStep.ts';
import { announce, copyField, element, errorBox, timeElement } from './dom.ts';
import { domainsApi, type DomainCheck, type DomainCheckError, type WorkspaceDomain } from './domainsApi.ts';
import { t, tNodes } from './i18n.ts';
import { explainRefusal, run, show, type WorkspaceContext } from './workspaceContext.ts';

const recheckDays = domainLimits.recheckSeconds / 86_400;

/** Why the last check did not verify a claim, in words (a code added to the API without words fails the type check). */
const checkErrors: Record<DomainCheckError, (domain: WorkspaceDomain) => string> = {
  txt_not_found: (domain) => t('workspaceDomains.check.txtNotFound', { name: domain.verification.name }),
  txt_mismatch: (domain) => t('workspaceDomains.check.txtMismatch', { name: domain.verification.name }),
  dns_unavailable: () => t('workspaceDomains.check.dnsUnavailable'),
  verified_elsewhere: () => t('workspaceDomains.check.verifiedElsewhere'),
};

/**
 * What a verified domain is good for next. A verified name already answers for addresses at it
 * (single sign-on's email domain needs nothing more); links on it need a CNAME, which a
 * registered domain's apex cannot hold at most DNS providers, so a name of two labels is told
 * about ALIAS records and subdomains instead of being given advice it cannot follow.
 */
export const cnameSentence = (name: string) =>
  isLikelyApex(name) ? t('workspaceDomains.next.apex', { name }) : t('workspaceDomains.next.cname', { name });

/** Second levels that many country codes register under (`acme.co.uk`, `acme.com.au`). */
const secondLevels = new Set(['co', 'com', 'net', 'org', 'ac', 'gov', 'edu', 'ne', 'or', 'gv']);

/**
 * The apex of a registered domain, as far as a page can tell without the public suffix list: two
 * labels (`acme.example`), or three under a country's common second level (`acme.co.uk`).
 */
export function isLikelyApex(name: string): boolean {
  const labels = name.split('.');
  if (labels.length === 2) return true;
  return labels.length === 3 && labels[2]!.length === 2 && secondLevels.has(labels[1]!);
}

/** A read-only field with its Copy button (`data-action` `copy-<part>`): what the claimant types at their DNS provider. */
function copyRow(id: string, part: 'name' | 'value', value: string): HTMLDivElement {
  const words = {
    name: {
      label: t('workspaceDomains.record.name'),
      copy: t('workspaceDomains.record.copyName'),
      what: t('workspaceDomains.record.nameWhat'),
    },
    value: {
      label: t('workspaceDomains.record.value'),
      copy: t('workspaceDomains.record.copyValue'),
      what: t('workspaceDomains.record.valueWhat'),
    },
  }[part];
  const field = element('div', 'field');
  const label = element('label', '', words.label);
  const row = element('div', 'with-button');
  const input = element('input');
  input.id = id;
  input.type = 'text';
  input.readOnly = true;
  input.spellcheck = false;
  input.autocomplete = 'off';
  input.value = value;
  input.translate = false;
  label.htmlFor = id;
  const copy = element('button', '', words.copy);
  copy.type = 'button';
  copy.dataset.action = `copy-${part}`;
  copy.addEventListener('click', () => void copyField(input, copy, words.what));
  input.addEventListener('focus', () => input.select());
  row.append(input, copy);
  field.append(label, row);
  return field;
}

/** The claim's TXT record, to publish: its name and value. */
function recordBox(domain: WorkspaceDomain): HTMLDivElement {
  const box = element('div', 'txt-record');
  box.dataset.role = 'txt-record';
  const heading = element('h4', 'panel-title', t('workspaceDomains.record.title'));
  heading.id = `domain-${domain.id}-record`;
  heading.tabIndex = -1;
  const how = element('p', 'hint', t('workspaceDomains.record.how', { days: recheckDays }));
  box.append(
    heading,
    how,
    copyRow(`domain-${domain.id}-name`, 'name', domain.verification.name),
    copyRow(`domain-${domain.id}-value`, 'value', domain.verification.value),
  );
  return box;
}

function lastCheck(domain: WorkspaceDomain): HTMLElement {
  const line = element('span');
  line.dataset.role = 'last-check';
  line.dataset.error = domain.last_error ?? '';
  if (domain.last_checked_at === null) {
    line.append(t('workspaceDomains.check.never'));
    return line;
  }
  const time = timeElement(domain.last_checked_at);
  line.append(
    ...(domain.last_error === null
      ? tNodes('workspaceDomains.check.found', { time })
      : tNodes('workspaceDomains.check.notFound', { time, reason: checkErrors[domain.last_error](domain) })),
  );
  return line;
}

/** The action buttons' hidden object is the hostname alone: data, never translated. */
function hostnameObject<T extends HTMLElement>(buttons: T): T {
  for (const hidden of buttons.querySelectorAll<HTMLElement>('.visually-hidden')) hidden.translate = false;
  return buttons;
}

/** What a card tells the section: the list changed (read again), and what to say about it. */
export type DomainsChanged = (announcement: string, note: string) => Promise<void>;

export function domainItem(domain: WorkspaceDomain, context: WorkspaceContext, changed: DomainsChanged): HTMLLIElement {
  const verified = domain.state === 'verified';
  const item = element('li', 'item');
  item.dataset.domainId = domain.id;
  item.dataset.state = domain.state;
  const head = element('div', 'item-head');
  const name = element('h3', 'item-title mono', domain.hostname);
  name.id = `domain-${domain.id}-title`;
  name.tabIndex = -1;
  name.translate = false;
  const badge = element(
    'span',
    verified ? 'badge badge-active' : 'badge badge-pending',
    verified ? t('workspaceDomains.state.verified') : t('workspaceDomains.state.pending'),
  );
  badge.dataset.role = 'domain-state';
  head.append(name, badge);
  const facts = element('dl', 'facts');
  facts.append(
    verified && domain.verified_at
      ? fact(t('workspaceDomains.fact.verified'), timeElement(domain.verified_at))
      : fact(t('workspaceDomains.fact.lastCheck'), lastCheck(domain)),
  );
  item.append(head, facts);
  if (verified) {
    const next = element('p', 'hint', cnameSentence(domain.hostname));
    next.dataset.role = 'cname';
    item.append(next);
  }
  if (!mayDo(context.workspace.role, 'manageDomains')) return item;

  if (!verified) item.append(recordBox(domain));
  const outcome = element('p', 'notice notice-info');
  outcome.dataset.role = 'domain-check';
  outcome.tabIndex = -1;
  outcome.hidden = true;
  const error = errorBox('domain-error');
  const explain = (problem: unknown, prefix: string) => explainRefusal(context, problem, error, prefix);
  const actions = element('div', 'actions');
  if (!verified) {
    const verify = hostnameObject(actionButton(t('workspaceDomains.verify'), domain.hostname, 'primary'));
    verify.dataset.action = 'verify';
    let result: DomainCheck | null = null;
    verify.addEventListener(
      'click',
      () =>
        void run(
          verify,
          error,
          async (token) => (result = await domainsApi.verify(token, domain.id)),
          () => checked(context, domain, result!),
          explain,
          t('workspaceDomains.verifyFailed'),
        ),
    );
    actions.append(verify);
  }
  const remove = hostnameObject(actionButton(t('workspaceDomains.delete'), domain.hostname, 'danger'));
  remove.dataset.action = 'delete';
  actions.append(remove);
  const hostname = domain.hostname;
  const step = confirmStep(
    remove,
    {
      action: 'delete',
      object: hostname,
      question: verified ? t('workspaceDomains.deleteQuestionVerified', { hostname }) : t('workspaceDomains.deleteQuestion', { hostname }),
      yes: t('workspaceDomains.deleteYes'),
      no: t('workspaceDomains.deleteNo'),
    },
    (yes) =>
      void run(
        yes,
        error,
        (token) => domainsApi.remove(token, domain.id),
        () => changed(t('workspaceDomains.deleted', { hostname }), t('workspaceDomains.deletedNote', { hostname })),
        explain,
        t('workspaceDomains.deleteFailed'),
      ),
  );
  hostnameObject(step.box);
  item.append(actions, step.box, outcome, error);
  return item;
}

/** After "Verify now": the page read again, and what the check found said on the claim's card, which takes the focus. */
async function checked(context: WorkspaceContext, domain: WorkspaceDomain, result: DomainCheck): Promise<void> {
  await context.refresh();
  const verified = result.state === 'verified';
  const hostname = domain.hostname;
  announce(verified ? t('workspaceDomains.verifiedAnnounce', { hostname }) : t('workspaceDomains.pendingAnnounce', { hostname }));
  // Deleted meanwhile: the list read again no longer has it.
  const outcome = document.querySelector<HTMLElement>(`#domains li[data-domain-id="${CSS.escape(domain.id)}"] [data-role="domain-check"]`);
  if (!outcome) return;
  outcome.dataset.state = result.state;
  show(
    outcome,
    verified
      ? t('workspaceDomains.checkedVerified', { hostname })
      : result.last_error
        ? t('workspaceDomains.checkedPendingBecause', { reason: checkErrors[result.last_error](domain) })
        : t('workspaceDomains.checkedPending'),
  );
}
