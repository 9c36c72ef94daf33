/**
 * Workspaces `/workspaces`: the caller's workspaces (role, plan, seats, members), the "current
 * workspace" switcher (its id alone kept in localStorage, `currentWorkspace.ts`), and creating
 * one (a 409 for a taken slug and a 421 for another region's workspace said next to their field).
 */
import { workspaceLimits } from '../../shared/limits.ts';
import { ApiError, problemMessages } from './api.ts';
import { fact, markReady, showProblem, startSignedInPage } from './accountPage.ts';
import { chooseWorkspace, currentWorkspaceId, forgetWorkspaceUnless } from './currentWorkspace.ts';
import { announce, byId, element, plural, setVisible } from './dom.ts';
import { fieldErrors } from './fieldErrors.ts';
import { SignedOutError, withAccess } from './session.ts';
import { planLabel, roleLabel } from './workspaceText.ts';
import { workspacesApi, type Region, type WorkspaceSummary } from './workspacesApi.ts';

const section = byId('workspaces-page');
const currentBox = byId('current-box');
const current = byId<HTMLSelectElement>('current-workspace');
const listError = byId('list-error');
const listLoading = byId('list-loading');
const listRetry = byId<HTMLButtonElement>('list-retry');
const empty = byId('workspaces-empty');
const list = byId<HTMLUListElement>('workspaces');

const form = byId<HTMLFormElement>('create-form');
const fields = byId<HTMLFieldSetElement>('create-fields');
const name = byId<HTMLInputElement>('workspace-name');
const slug = byId<HTMLInputElement>('workspace-slug');
const regionField = byId('region-field');
const region = byId<HTMLSelectElement>('workspace-region');
const errors = byId('create-errors');
const inputs = { name, slug, region };
type Field = keyof typeof inputs;
const formErrors = fieldErrors(
  {
    name: { input: name, error: byId('workspace-name-error') },
    slug: { input: slug, error: byId('workspace-slug-error') },
    region: { input: region, error: byId('workspace-region-error') },
  },
  errors,
  byId('create-error-text'),
);

const slugPattern = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

// ---- The list and the switcher ----

function workspaceItem(workspace: WorkspaceSummary, chosen: boolean): HTMLLIElement {
  const item = element('li', 'item');
  item.dataset.id = workspace.id;
  item.dataset.role = workspace.role;
  const head = element('div', 'item-head');
  const title = element('h3', 'item-title');
  const link = element('a', '', workspace.name);
  link.href = `/workspace?id=${encodeURIComponent(workspace.id)}`;
  title.append(link);
  head.append(title);
  if (chosen) {
    const badge = element('span', 'badge badge-current', 'Current');
    badge.dataset.role = 'current';
    head.append(badge);
  }
  const facts = element('dl', 'facts');
  facts.append(
    fact('Slug', element('span', 'mono', workspace.slug)),
    fact('Your role', roleLabel(workspace.role)),
    fact('Plan', planLabel(workspace.plan)),
  );
  const seats = fact('Seats', `${workspace.members} of ${workspace.seats} used by members`);
  seats.dataset.role = 'seats';
  const members = fact('Members', String(workspace.members));
  members.dataset.role = 'members';
  facts.append(seats, members);
  item.append(head, facts);
  return item;
}

function renderSwitcher(workspaces: WorkspaceSummary[], chosen: string | null): void {
  const none = new Option('None: secrets are sent as yourself', '');
  current.replaceChildren(
    none,
    ...workspaces.map((workspace) => new Option(`${workspace.name} (${roleLabel(workspace.role).toLowerCase()})`, workspace.id)),
  );
  current.value = chosen ?? '';
  setVisible(currentBox, workspaces.length > 0);
}

let workspaces: WorkspaceSummary[] = [];

function render(): void {
  const chosen = currentWorkspaceId();
  list.replaceChildren(...workspaces.map((workspace) => workspaceItem(workspace, workspace.id === chosen)));
  setVisible(empty, workspaces.length === 0);
  renderSwitcher(workspaces, chosen);
}

let loaded = false;

async function load(): Promise<void> {
  setVisible(listError, false);
  setVisible(listRetry, false);
  // The first read says it is reading (a slow API otherwise shows an empty list); later ones keep the list shown.
  setVisible(listLoading, !loaded);
  try {
    workspaces = (await withAccess((token) => workspacesApi.list(token))).items;
    // A choice of a workspace the caller has left (or was removed from) means nothing now.
    forgetWorkspaceUnless(workspaces.map((workspace) => workspace.id));
    render();
    loaded = true;
  } catch (error) {
    showProblem(listError, error, 'Your workspaces could not be listed: ');
    setVisible(listRetry, true);
  } finally {
    setVisible(listLoading, false);
  }
}

listRetry.addEventListener('click', () => void load());

current.addEventListener('change', () => {
  const chosen = workspaces.find((workspace) => workspace.id === current.value) ?? null;
  if (!chooseWorkspace(chosen?.id ?? null)) {
    announce('This browser does not let the page remember a choice (storage is off).');
    return;
  }
  const focused = document.activeElement;
  render();
  if (focused === current) current.focus();
  announce(chosen ? `Current workspace: ${chosen.name}.` : 'No current workspace: secrets are sent as yourself.');
});

// ---- Creating one ----

/** 421: the region's own service makes it; its address is a link, when it is a web address. */
function misdirected(error: ApiError): Node {
  const regionId = typeof error.problem.region === 'string' ? error.problem.region : region.value;
  const url = typeof error.problem.api_url === 'string' ? error.problem.api_url : '';
  const sentence = document.createDocumentFragment();
  sentence.append(`Workspaces in ${regionId} are made by that region’s own Hushlink service, not this one. `);
  if (/^https?:\/\//i.test(url)) {
    const link = element('a', '', url);
    link.href = url;
    link.rel = 'noopener noreferrer';
    sentence.append('Create it there: ', link, '.');
  } else {
    sentence.append('Create it from that region’s Hushlink.');
  }
  return sentence;
}

function explain(error: ApiError): void {
  if (error.status === 421)
    return formErrors.show({ region: 'This service cannot create a workspace in that region.' }, misdirected(error));
  const messages: Partial<Record<Field, string>> = {};
  const other: string[] = [];
  for (const entry of error.problem.errors ?? []) {
    const field = /^body\.(name|slug|region)$/.exec(entry.path ?? '')?.[1] as Field | undefined;
    if (!field) other.push(entry.message);
    else if (error.status === 409 && field === 'slug') {
      messages.slug = slug.value.trim()
        ? 'This slug is taken by another workspace: choose another one.'
        : 'No free slug could be made from this name: type one.';
    } else
      messages[field] = `${messages[field] ? `${messages[field]} ` : ''}${entry.message.charAt(0).toUpperCase()}${entry.message.slice(1)}.`;
  }
  if (Object.keys(messages).length === 0 && other.length === 0) other.push(...problemMessages(error));
  formErrors.show(messages, other.length > 0 ? other.join(' ') : null);
}

async function create(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  if (fields.disabled) return;
  formErrors.clear();
  const wanted = { name: name.value.trim(), slug: slug.value.trim() };
  const problems: Partial<Record<Field, string>> = {};
  if (!wanted.name) problems.name = 'Give the workspace a name.';
  if (
    wanted.slug &&
    (wanted.slug.length < workspaceLimits.slug.min || wanted.slug.length > workspaceLimits.slug.max || !slugPattern.test(wanted.slug))
  ) {
    problems.slug = `A slug is ${workspaceLimits.slug.min} to ${workspaceLimits.slug.max} lower-case letters and digits, with single dashes between them.`;
  }
  if (Object.keys(problems).length > 0) return formErrors.show(problems, null);

  fields.disabled = true;
  announce('Creating the workspace…');
  try {
    const created = await withAccess((token) =>
      workspacesApi.create(token, {
        name: wanted.name,
        ...(wanted.slug ? { slug: wanted.slug } : {}),
        ...(regionField.hidden ? {} : { region: region.value }),
      }),
    );
    form.reset();
    await load();
    announce(`Workspace “${created.name}” created, with you as its owner.`);
    const link = list.querySelector<HTMLAnchorElement>(`li[data-id="${created.id}"] .item-title a`);
    link?.focus();
  } catch (error) {
    announce('');
    fields.disabled = false;
    if (error instanceof SignedOutError) return showProblem(errors, error);
    if (error instanceof ApiError && error.status === 429)
      return formErrors.show({}, `Too many requests: try again in ${error.retryAfter ?? 60} seconds.`);
    if (error instanceof ApiError) return explain(error);
    formErrors.show({}, 'Something went wrong in this page. Reload it and try again.');
  } finally {
    fields.disabled = false;
  }
}

/** The region select, when the service runs in more than one (`GET /v1/regions`). */
async function loadRegions(): Promise<void> {
  let regions: Region[];
  try {
    regions = (await workspacesApi.regions()).regions;
  } catch {
    return; // Without the list the workspace is made here, as it would be anyway.
  }
  if (regions.length < 2) return;
  region.replaceChildren(
    ...regions.map((known) => new Option(known.current ? `${known.id} (this service)` : known.id, known.id, known.current, known.current)),
  );
  setVisible(regionField, true);
}

form.addEventListener('submit', (event) => void create(event));
for (const field of Object.values(inputs)) {
  field.addEventListener('input', () => field.removeAttribute('aria-invalid'));
}

async function main(): Promise<void> {
  const user = await startSignedInPage(listError);
  if (!user) return;
  await Promise.all([load(), loadRegions()]);
  fields.disabled = false;
  markReady('workspaces', section);
  if (workspaces.length > 0) announce(`${plural(workspaces.length, 'workspace', 'workspaces')}.`);
}

void main();
