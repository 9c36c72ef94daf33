/**
 * Workspaces `/workspaces`: the caller's workspaces (role, plan, seats, members), the "current
 * workspace" switcher (its id alone kept in localStorage, `currentWorkspace.ts`), and creating
 * one (a 409 for a taken slug and a 421 for another region's workspace said next to their field).
 */
// First: the page's language and messages load before any of its code runs (ADR 0183).
import './i18n.ts';
import { workspaceLimits } from '../../shared/limits.ts';
import { ApiError, problemMessages } from './api.ts';
import { fact, markReady, showProblem, startSignedInPage } from './accountPage.ts';
import { chooseWorkspace, currentWorkspaceId, forgetWorkspaceUnless } from './currentWorkspace.ts';
import { announce, byId, element, setVisible } from './dom.ts';
import { fieldErrors } from './fieldErrors.ts';
import { language, locale, t, tNodes } from './i18n.ts';
import { SignedOutError, withAccess } from './session.ts';
import { planName, roleName } from './workspaceAuditValues.ts';
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
const numbers = new Intl.NumberFormat(locale);

// The slug's hint holds an example in its own element (a slug is never translated).
const slugExample = element('span', 'mono', 'acme-security');
slugExample.translate = false;
byId('workspace-slug-hint').replaceChildren(...tNodes('workspaces.create.slugHint', { example: slugExample }));

// ---- The list and the switcher ----

function workspaceItem(workspace: WorkspaceSummary, chosen: boolean): HTMLLIElement {
  const item = element('li', 'item');
  item.dataset.id = workspace.id;
  item.dataset.role = workspace.role;
  const head = element('div', 'item-head');
  const title = element('h3', 'item-title');
  const link = element('a', '', workspace.name);
  link.translate = false;
  link.href = `/workspace?id=${encodeURIComponent(workspace.id)}`;
  title.append(link);
  head.append(title);
  if (chosen) {
    const badge = element('span', 'badge badge-current', t('workspaces.item.current'));
    badge.dataset.role = 'current';
    head.append(badge);
  }
  const facts = element('dl', 'facts');
  const slugText = element('span', 'mono', workspace.slug);
  slugText.translate = false;
  facts.append(
    fact(t('workspaces.item.slug'), slugText),
    fact(t('workspaces.item.role'), roleName(workspace.role)),
    fact(t('workspaces.item.plan'), planName(workspace.plan)),
  );
  const seats = fact(t('workspaces.item.seats'), t('workspaces.item.seatsUsed', { members: workspace.members, seats: workspace.seats }));
  seats.dataset.role = 'seats';
  const members = fact(t('workspaces.item.members'), numbers.format(workspace.members));
  members.dataset.role = 'members';
  facts.append(seats, members);
  item.append(head, facts);
  return item;
}

function renderSwitcher(workspaces: WorkspaceSummary[], chosen: string | null): void {
  const none = new Option(t('workspaces.current.none'), '');
  current.replaceChildren(
    none,
    ...workspaces.map(
      (workspace) => new Option(t('workspaces.current.option', { name: workspace.name, role: workspace.role }), workspace.id),
    ),
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
    showProblem(listError, error, t('workspaces.list.failed'));
    setVisible(listRetry, true);
  } finally {
    setVisible(listLoading, false);
  }
}

listRetry.addEventListener('click', () => void load());

current.addEventListener('change', () => {
  const chosen = workspaces.find((workspace) => workspace.id === current.value) ?? null;
  if (!chooseWorkspace(chosen?.id ?? null)) {
    announce(t('workspaces.current.storageOff'));
    return;
  }
  const focused = document.activeElement;
  render();
  if (focused === current) current.focus();
  announce(chosen ? t('workspaces.current.chosen', { name: chosen.name }) : t('workspaces.current.cleared'));
});

// ---- Creating one ----

/** 421: the region's own service makes it; its address is a link, when it is a web address. */
function misdirected(error: ApiError): Node {
  const regionId = typeof error.problem.region === 'string' ? error.problem.region : region.value;
  const url = typeof error.problem.api_url === 'string' ? error.problem.api_url : '';
  const sentence = document.createDocumentFragment();
  if (/^https?:\/\//i.test(url)) {
    const link = element('a', '', url);
    link.href = url;
    link.rel = 'noopener noreferrer';
    link.translate = false;
    sentence.append(...tNodes('workspaces.create.misdirectedThere', { region: regionId, link }));
  } else {
    sentence.append(t('workspaces.create.misdirected', { region: regionId }));
  }
  return sentence;
}

function explain(error: ApiError): void {
  if (error.status === 421) return formErrors.show({ region: t('workspaces.create.regionRefused') }, misdirected(error));
  // The server's own words are English: another language says the field was refused, in its words.
  const english = language === 'en';
  const messages: Partial<Record<Field, string>> = {};
  const other: string[] = [];
  for (const entry of error.problem.errors ?? []) {
    const field = /^body\.(name|slug|region)$/.exec(entry.path ?? '')?.[1] as Field | undefined;
    if (!field) {
      if (english) other.push(entry.message);
    } else if (error.status === 409 && field === 'slug') {
      messages.slug = slug.value.trim() ? t('workspaces.create.slugTaken') : t('workspaces.create.noFreeSlug');
    } else if (!english) messages[field] = t('workspaces.create.valueRefused');
    else
      messages[field] = `${messages[field] ? `${messages[field]} ` : ''}${entry.message.charAt(0).toUpperCase()}${entry.message.slice(1)}.`;
  }
  if (Object.keys(messages).length === 0 && other.length === 0) other.push(...problemMessages(error));
  // Sentences one after another: a space between them, none in Japanese and Chinese.
  formErrors.show(messages, other.length > 0 ? other.join(/^(?:ja|zh)\b/.test(language) ? '' : ' ') : null);
}

async function create(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  if (fields.disabled) return;
  formErrors.clear();
  const wanted = { name: name.value.trim(), slug: slug.value.trim() };
  const problems: Partial<Record<Field, string>> = {};
  if (!wanted.name) problems.name = t('workspaces.create.nameMissing');
  if (
    wanted.slug &&
    (wanted.slug.length < workspaceLimits.slug.min || wanted.slug.length > workspaceLimits.slug.max || !slugPattern.test(wanted.slug))
  ) {
    problems.slug = t('workspaces.create.slugInvalid', { min: workspaceLimits.slug.min, max: workspaceLimits.slug.max });
  }
  if (Object.keys(problems).length > 0) return formErrors.show(problems, null);

  fields.disabled = true;
  announce(t('workspaces.create.creating'));
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
    announce(t('workspaces.create.created', { name: created.name }));
    const link = list.querySelector<HTMLAnchorElement>(`li[data-id="${created.id}"] .item-title a`);
    link?.focus();
  } catch (error) {
    announce('');
    fields.disabled = false;
    if (error instanceof SignedOutError) return showProblem(errors, error);
    if (error instanceof ApiError && error.status === 429)
      return formErrors.show({}, t('problem.tooManyRequests', { seconds: error.retryAfter ?? 60 }));
    if (error instanceof ApiError) return explain(error);
    formErrors.show({}, t('common.page.broken'));
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
    ...regions.map(
      (known) =>
        new Option(
          known.current ? t('workspaces.create.regionHere', { region: known.id }) : known.id,
          known.id,
          known.current,
          known.current,
        ),
    ),
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
  if (workspaces.length > 0) announce(t('workspaces.list.count', { count: workspaces.length }));
}

void main();
