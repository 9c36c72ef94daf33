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
import { announce, copyField, element, errorBox, plural, timeElement } from './dom.ts';
import { domainsApi, type DomainCheck, type DomainCheckError, type WorkspaceDomain } from './domainsApi.ts';
import { explainRefusal, run, show, type WorkspaceContext } from './workspaceContext.ts';

export const operatorAddress = 'your Hushlink operator’s custom-domain address';

const recheckDays = domainLimits.recheckSeconds / 86_400;

/** Why the last check did not verify a claim, in words (a code added to the API without words fails the type check). */
const checkErrors: Record<DomainCheckError, (domain: WorkspaceDomain) => string> = {
  txt_not_found: (domain) =>
    `No TXT record was found at ${domain.verification.name}. A record just published can take a few minutes (at some providers longer) to be seen: check again later.`,
  txt_mismatch: (domain) =>
    `TXT records are at ${domain.verification.name}, but none has this claim’s value. Copy the value again, whole: the value of an earlier claim does not count.`,
  dns_unavailable: () =>
    'The DNS servers gave no answer to rely on (an error, or none in time). Nothing is wrong with the claim: check again later.',
  verified_elsewhere: () => 'Another workspace verified this hostname first, so it cannot be verified here. Delete this claim.',
};

/**
 * What a verified domain is good for next. A verified name already answers for addresses at it
 * (single sign-on's email domain needs nothing more); links on it need a CNAME, which a
 * registered domain's apex cannot hold at most DNS providers, so a name of two labels is told
 * about ALIAS records and subdomains instead of being given advice it cannot follow.
 */
export const cnameSentence = (name: string) =>
  isLikelyApex(name)
    ? `Addresses at ${name} can now use this workspace’s single sign-on: nothing more to publish for that. To open links on ${name} itself, its DNS provider needs an ALIAS (or ANAME) record pointing to ${operatorAddress}, since a domain’s apex cannot hold a CNAME; or serve links on a subdomain such as secrets.${name} (claim it here too).`
    : `Next, at your DNS provider: a CNAME record for ${name} pointing to ${operatorAddress} (ask whoever runs this Hushlink for it). Links on ${name} open once it resolves there.`;

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

/** A read-only field with its Copy button: what the claimant types at their DNS provider. */
function copyRow(id: string, labelText: string, value: string, what: string): HTMLDivElement {
  const field = element('div', 'field');
  const label = element('label', '', labelText);
  const row = element('div', 'with-button');
  const input = element('input');
  input.id = id;
  input.type = 'text';
  input.readOnly = true;
  input.spellcheck = false;
  input.autocomplete = 'off';
  input.value = value;
  label.htmlFor = id;
  const copy = element('button', '', `Copy ${labelText.toLowerCase()}`);
  copy.type = 'button';
  copy.dataset.action = `copy-${labelText.toLowerCase()}`;
  copy.addEventListener('click', () => void copyField(input, copy, what));
  input.addEventListener('focus', () => input.select());
  row.append(input, copy);
  field.append(label, row);
  return field;
}

/** The claim's TXT record, to publish: its name and value. */
function recordBox(domain: WorkspaceDomain): HTMLDivElement {
  const box = element('div', 'txt-record');
  box.dataset.role = 'txt-record';
  const heading = element('h4', 'panel-title', 'TXT record to publish');
  heading.id = `domain-${domain.id}-record`;
  heading.tabIndex = -1;
  const how = element(
    'p',
    'hint',
    `At your DNS provider, add a record of type TXT with this name and value, then “Verify now”. Other TXT records at that name may stay. The service also checks on its own for ${plural(recheckDays, 'day', 'days')} after the claim.`,
  );
  box.append(
    heading,
    how,
    copyRow(`domain-${domain.id}-name`, 'Name', domain.verification.name, 'Record name'),
    copyRow(`domain-${domain.id}-value`, 'Value', domain.verification.value, 'Record value'),
  );
  return box;
}

function lastCheck(domain: WorkspaceDomain): HTMLElement {
  const line = element('span');
  line.dataset.role = 'last-check';
  line.dataset.error = domain.last_error ?? '';
  if (domain.last_checked_at === null) {
    line.append('Not checked yet.');
    return line;
  }
  line.append(
    timeElement(domain.last_checked_at),
    domain.last_error === null ? ': the record was found.' : `: ${checkErrors[domain.last_error](domain)}`,
  );
  return line;
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
  const badge = element('span', verified ? 'badge badge-active' : 'badge badge-pending', verified ? 'Verified' : 'Pending');
  badge.dataset.role = 'domain-state';
  head.append(name, badge);
  const facts = element('dl', 'facts');
  facts.append(verified && domain.verified_at ? fact('Verified', timeElement(domain.verified_at)) : fact('Last check', lastCheck(domain)));
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
    const verify = actionButton('Verify now', domain.hostname, 'primary');
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
          'Could not check: ',
        ),
    );
    actions.append(verify);
  }
  const remove = actionButton('Delete', domain.hostname, 'danger');
  remove.dataset.action = 'delete';
  actions.append(remove);
  const step = confirmStep(
    remove,
    {
      action: 'delete',
      object: domain.hostname,
      question: `Delete ${domain.hostname}? Links already sent on it stop working at once, for everyone who has them${verified ? ', and single sign-on no longer speaks for addresses at it' : ''}. Claiming it again needs a new TXT record.`,
      yes: 'Yes, delete it',
      no: 'Keep it',
    },
    (yes) =>
      void run(
        yes,
        error,
        (token) => domainsApi.remove(token, domain.id),
        () => changed(`${domain.hostname} deleted.`, `${domain.hostname} is deleted: links on it no longer open.`),
        explain,
        'Could not delete: ',
      ),
  );
  item.append(actions, step.box, outcome, error);
  return item;
}

/** After "Verify now": the page read again, and what the check found said on the claim's card, which takes the focus. */
async function checked(context: WorkspaceContext, domain: WorkspaceDomain, result: DomainCheck): Promise<void> {
  await context.refresh();
  const verified = result.state === 'verified';
  announce(verified ? `${domain.hostname} is verified.` : `${domain.hostname} is not verified yet.`);
  // Deleted meanwhile: the list read again no longer has it.
  const outcome = document.querySelector<HTMLElement>(`#domains li[data-domain-id="${CSS.escape(domain.id)}"] [data-role="domain-check"]`);
  if (!outcome) return;
  outcome.dataset.state = result.state;
  show(
    outcome,
    verified
      ? `Checked now: ${domain.hostname} is verified.`
      : `Checked now: not verified yet. ${result.last_error ? checkErrors[result.last_error](domain) : ''}`.trim(),
  );
}
