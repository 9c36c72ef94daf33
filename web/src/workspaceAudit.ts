/**
 * A workspace's audit trail (`/workspace?id=`, owners and admins; a member is answered 404, as
 * a non-member): newest first, 50 rows at a time with "Load more", filtered by action and by the
 * actor's address over the rows loaded so far (the API has no filter: the page says so), and
 * exported as CSV or JSON (`workspaceExport.ts`). Values are shown in words
 * (`workspaceAuditValues.ts`): durations, sizes, roles, plans, and user ids as the member's address.
 */
import { fact, showProblem } from './accountPage.ts';
import { announce, byId, element, focusHeading, plural, setVisible, timeElement } from './dom.ts';
import { withAccess } from './session.ts';
import { explainRefusal, type WorkspaceContext } from './workspaceContext.ts';
import { detailLabel, detailValue, personText } from './workspaceAuditValues.ts';
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

/** The actions the service writes (docs/decisions.md, "Audit rows"), in words. */
const actionLabels: Record<string, string> = {
  'workspace.created': 'Workspace created',
  'member.invited': 'Member invited',
  'invitation.revoked': 'Invitation revoked',
  'invitation.expired': 'Invitation expired',
  'member.joined': 'Member joined',
  'member.role_changed': 'Role changed',
  'member.removed': 'Member removed',
  'member.left': 'Member left',
  'workspace.transferred': 'Ownership transferred',
  'policy.updated': 'Policy updated',
  'branding.updated': 'Branding updated',
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
  const when = cell('When');
  when.append(timeElement(row.at));
  const who = cell('Who', 'audit-actor');
  who.append(row.actor.email ?? (row.actor.via === 'system' ? 'Hushlink (automatic)' : 'unknown'));
  if (row.actor.via === 'scim') who.append(element('span', 'hint', ' through the directory (SCIM)'));
  const what = cell('What');
  what.append(actionLabels[row.action] ?? row.action);
  const target = cell('Target', 'audit-target');
  // The workspace itself is the target of its settings' rows: named rather than shown as an id.
  target.append(row.target.startsWith('wks_') ? 'This workspace' : personText(row.target, known));
  target.title = row.target;
  const details = cell('Details', 'audit-details');
  const list = element('dl', 'facts');
  for (const [key, value] of Object.entries(row.details)) list.append(fact(detailLabel(key), detailValue(key, value, known)));
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
  const actions = new Set([...Object.keys(actionLabels), ...rows.map((row) => row.action)]);
  actionFilter.replaceChildren(
    new Option('All actions', ''),
    ...[...actions].map((action) => new Option(`${actionLabels[action] ?? action} (${action})`, action)),
  );
  actionFilter.value = actions.has(chosen) ? chosen : '';
}

function render(): HTMLTableRowElement[] {
  const known = people();
  const shown = rows.filter(matches).map((row) => rowElement(row, known));
  rowsBody.replaceChildren(...shown);
  const filtered = actionFilter.value !== '' || actorFilter.value.trim() !== '';
  count.textContent = filtered
    ? `${plural(shown.length, 'row', 'rows')} of the ${plural(rows.length, 'row', 'rows')} loaded match${shown.length === 1 ? 'es' : ''}.${cursor ? ' Older rows are not loaded yet: “Load more” to search them too.' : ''}`
    : `${plural(rows.length, 'row', 'rows')}, newest first${cursor ? '; older ones with “Load more”' : ''}.`;
  setVisible(table, shown.length > 0);
  setVisible(empty, shown.length === 0);
  empty.textContent = rows.length === 0 ? 'No rows yet.' : 'No loaded row matches the filters.';
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
    showProblem(error, problem, 'The audit trail could not be read: ');
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
      announce('Loading more…');
      try {
        const added = await loadPage(false);
        announce(added.length > 0 ? `${plural(added.length, 'older row', 'older rows')} loaded.` : 'No older rows.');
        const first = added.find(matches);
        const cell = first ? rowsBody.querySelector<HTMLElement>(`tr[data-id="${first.id}"] td`) : null;
        if (cell) {
          cell.tabIndex = -1;
          focusHeading(cell);
        } else if (!more.hidden) more.focus();
      } catch (problem) {
        announce('');
        await explainRefusal(context!, problem, error, 'Could not load more: ');
      } finally {
        more.disabled = false;
      }
    })();
  });
}
