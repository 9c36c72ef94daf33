/**
 * A workspace's audit trail (`/workspace?id=`, owners and admins; a member is answered 404, as
 * a non-member): newest first, 50 rows at a time with "Load more", filtered by action and by the
 * actor's address over the rows loaded so far (the API has no filter: the page says so), and
 * exported as CSV or JSON (`workspaceExport.ts`). Values are shown in words
 * (`workspaceAuditValues.ts`): durations, sizes, roles, plans, and user ids as the member's address.
 */
import { fact, showProblem } from './accountPage.ts';
import { announce, byId, element, focusHeading, setVisible, timeElement } from './dom.ts';
import { t } from './i18n.ts';
import { withAccess } from './session.ts';
import { explainRefusal, sentences, type WorkspaceContext } from './workspaceContext.ts';
import { detailLabel, detailValue, inWords, personText } from './workspaceAuditValues.ts';
import { workspacesApi, type AuditRow } from './workspacesApi.ts';

const pageSize = 50;

const rowsBody = byId<HTMLTableSectionElement>('audit-rows');
const table = byId('audit-table');
const count = byId('audit-count');
const empty = byId('audit-empty');
const error = byId('audit-error');
const more = byId<HTMLButtonElement>('audit-more');
const actionFilter = byId<HTMLSelectElement>('audit-action');
const actorFilter = byId<HTMLInputElement>('audit-actor');

/** The actions the service writes (docs/decisions.md, "Audit rows"), each in words as `workspaceAudit.action.<action>`. */
const knownActions: readonly string[] = [
  'workspace.created',
  'member.invited',
  'invitation.revoked',
  'invitation.expired',
  'member.joined',
  'member.role_changed',
  'member.removed',
  'member.left',
  'workspace.transferred',
  'policy.updated',
  'branding.updated',
  'domain.claimed',
  'domain.verified',
  'domain.deleted',
  'sso.updated',
  'sso.break_glass',
  'scim.user_created',
  'scim.user_updated',
  'scim.user_deactivated',
  'scim.user_reactivated',
  'scim.user_deleted',
  'scim.group_created',
  'scim.group_updated',
  'scim.group_deleted',
  'plan.contract_set',
  'plan.contract_removed',
];

/** Data (an address, an id, a name) in its own element, never translated. */
function data(text: string): HTMLSpanElement {
  const span = element('span', '', text);
  span.translate = false;
  return span;
}

/** An action in words; one the page does not know is shown as its code. */
const actionLabel = (action: string): string => (knownActions.includes(action) ? t(`workspaceAudit.action.${action}`) : action);

/** The columns' names, which narrow screens show before each cell. */
const columns = {
  when: t('workspaceAudit.column.when'),
  who: t('workspaceAudit.column.who'),
  what: t('workspaceAudit.column.what'),
  target: t('workspaceAudit.column.target'),
  details: t('workspaceAudit.column.details'),
};

let rows: AuditRow[] = [];
let cursor: string | null = null;
let context: WorkspaceContext | null = null;

/** Addresses of the members listed; the rows' own actors are added as they load. */
let members = new Map<string, string>();

/** Who each user id is, as far as the page knows: the members listed, then every actor loaded. */
function people(): Map<string, string> {
  const known = new Map(members);
  for (const row of rows) if (row.actor.user_id && row.actor.email) known.set(row.actor.user_id, row.actor.email);
  return known;
}

/** A cell with its column's name, which narrow screens show before it (the table is stacked there). */
function cell(label: string, className = ''): HTMLTableCellElement {
  const td = element('td', className);
  td.setAttribute('role', 'cell');
  td.dataset.label = label;
  return td;
}

function rowElement(row: AuditRow, known: Map<string, string>): HTMLTableRowElement {
  const tr = element('tr');
  tr.setAttribute('role', 'row');
  tr.dataset.id = row.id;
  tr.dataset.action = row.action;
  const when = cell(columns.when);
  when.append(timeElement(row.at));
  const who = cell(columns.who, 'audit-actor');
  if (row.actor.email) who.append(data(row.actor.email));
  else who.append(row.actor.via === 'system' ? t('workspaceAudit.actor.system') : t('workspaceAudit.actor.unknown'));
  if (row.actor.via === 'scim') who.append(element('span', 'hint', ` ${t('workspaceAudit.actor.scim')}`));
  const what = cell(columns.what);
  what.append(knownActions.includes(row.action) ? actionLabel(row.action) : data(row.action));
  const target = cell(columns.target, 'audit-target');
  // The workspace itself is the target of its settings' rows: named rather than shown as an id.
  if (row.target.startsWith('wks_')) target.append(t('workspaceAudit.target.workspace'));
  else {
    // Data: the person or thing acted on, its id in full on hover.
    target.append(personText(row.target, known));
    target.title = row.target;
    target.translate = false;
  }
  const details = cell(columns.details, 'audit-details');
  const list = element('dl', 'facts');
  for (const [key, value] of Object.entries(row.details)) {
    const text = detailValue(key, value, known);
    list.append(fact(detailLabel(key), inWords(key, value) ? text : data(text)));
  }
  details.append(list);
  tr.append(when, who, what, target, details);
  return tr;
}

function matches(row: AuditRow): boolean {
  if (actionFilter.value && row.action !== actionFilter.value) return false;
  const actor = actorFilter.value.trim().toLowerCase();
  return !actor || (row.actor.email ?? '').toLowerCase().includes(actor);
}

/** The action filter's choices: every known action and any other the loaded rows have. */
function renderActions(): void {
  const chosen = actionFilter.value;
  const actions = new Set([...knownActions, ...rows.map((row) => row.action)]);
  actionFilter.replaceChildren(
    new Option(t('workspaceAudit.filter.all'), ''),
    ...[...actions].map((action) => new Option(t('workspaceAudit.filter.option', { label: actionLabel(action), action }), action)),
  );
  actionFilter.value = actions.has(chosen) ? chosen : '';
}

function render(): HTMLTableRowElement[] {
  const known = people();
  const shown = rows.filter(matches).map((row) => rowElement(row, known));
  rowsBody.replaceChildren(...shown);
  const filtered = actionFilter.value !== '' || actorFilter.value.trim() !== '';
  const matching = t('workspaceAudit.count.matching', { shown: shown.length, loaded: rows.length });
  count.textContent = filtered
    ? cursor
      ? sentences(matching, t('workspaceAudit.count.notLoaded'))
      : matching
    : cursor
      ? t('workspaceAudit.count.allMore', { count: rows.length })
      : t('workspaceAudit.count.all', { count: rows.length });
  setVisible(table, shown.length > 0);
  setVisible(empty, shown.length === 0);
  empty.textContent = rows.length === 0 ? t('workspaceAudit.empty') : t('workspaceAudit.noMatch');
  setVisible(more, cursor !== null);
  return shown;
}

async function loadPage(first: boolean): Promise<AuditRow[]> {
  const { workspace } = context!;
  const page = await withAccess((token) => workspacesApi.audit(token, workspace.id, pageSize, first ? null : cursor));
  rows = first ? page.items : [...rows, ...page.items];
  cursor = page.next_cursor;
  renderActions();
  render();
  return page.items;
}

/** The members' addresses, for the user ids in the rows; the rows shown are drawn again with them. */
export function knowMembers(listed: readonly { user_id: string; email: string }[]): void {
  members = new Map(listed.map((member) => [member.user_id, member.email]));
  if (rows.length > 0) render();
}

/** Reads the newest rows again, as part of reading the page (so a refusal is only shown: the page was just read). */
export async function loadAudit(current: WorkspaceContext): Promise<void> {
  context = current;
  setVisible(error, false);
  try {
    await loadPage(true);
  } catch (problem) {
    showProblem(error, problem, t('workspaceAudit.failed'));
  }
}

export function wireAudit(): void {
  actionFilter.addEventListener('change', () => {
    render();
    announce(count.textContent ?? '');
  });
  actorFilter.addEventListener('input', () => render());
  more.addEventListener('click', () => {
    void (async () => {
      more.disabled = true;
      setVisible(error, false);
      announce(t('workspaceAudit.loadingMore'));
      try {
        const added = await loadPage(false);
        announce(added.length > 0 ? t('workspaceAudit.loaded', { count: added.length }) : t('workspaceAudit.noOlder'));
        const first = added.find(matches);
        const cell = first ? rowsBody.querySelector<HTMLElement>(`tr[data-id="${first.id}"] td`) : null;
        if (cell) {
          cell.tabIndex = -1;
          focusHeading(cell);
        } else if (!more.hidden) more.focus();
      } catch (problem) {
        announce('');
        await explainRefusal(context!, problem, error, t('workspaceAudit.moreFailed'));
      } finally {
        more.disabled = false;
      }
    })();
  });
}
