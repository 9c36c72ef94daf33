/**
 * The plans page's Team purchase: one of the workspaces the caller owns that has no Team yet
 * (`GET /v1/workspaces`, the current workspace chosen first) and its seats, by default one for
 * each member and never fewer (checked here before anything is sent, and by the server), then the
 * provider's checkout. It comes back to `/billing`, told which workspace it was for.
 */
import { ApiError } from './api.ts';
import { showProblem } from './accountPage.ts';
import { billingApi, openProviderPage } from './billingApi.ts';
import { currentWorkspaceId } from './currentWorkspace.ts';
import { announce, byId, element, plural, setVisible } from './dom.ts';
import { fieldErrors } from './fieldErrors.ts';
import { SignedOutError, withAccess } from './session.ts';
import { workspacesApi, type WorkspaceSummary } from './workspacesApi.ts';

const form = byId<HTMLFormElement>('team-form');
const loadError = byId('team-load-error');
const none = byId('team-none');
const fields = byId<HTMLFieldSetElement>('team-fields');
const workspace = byId<HTMLSelectElement>('team-workspace');
const seats = byId<HTMLInputElement>('team-seats');
const seatsHint = byId('team-seats-hint');
const errors = byId('team-errors');
const formErrors = fieldErrors(
  { workspace: { input: workspace, error: byId('team-workspace-error') }, seats: { input: seats, error: byId('team-seats-error') } },
  errors,
);
type Field = 'workspace' | 'seats';

let owned: WorkspaceSummary[] = [];

const chosen = () => owned.find((item) => item.id === workspace.value) ?? null;
/** A workspace with a plan of its own changes its seats on its page; it is not bought again. */
const hasTeam = (item: WorkspaceSummary) => item.plan === 'team' || item.plan === 'enterprise';
const fewestSeats = (target: WorkspaceSummary) =>
  `At least ${plural(target.members, 'seat', 'seats')}: one for each member (${plural(target.members, 'member', 'members')} now).`;

/** The chosen workspace's seats: its member count to start with, and never fewer. */
function fitSeats(): void {
  const target = chosen();
  if (!target) return;
  seats.min = String(target.members);
  seats.value = String(target.members);
  seatsHint.textContent = `${fewestSeats(target)} Pending invitations take a seat too.`;
}

async function loadOwned(): Promise<void> {
  const listed = await withAccess((token) => workspacesApi.list(token));
  owned = listed.items.filter((item) => item.role === 'owner' && !hasTeam(item));
  workspace.replaceChildren(...owned.map((item) => new Option(`${item.name} (${plural(item.members, 'member', 'members')})`, item.id)));
  const current = currentWorkspaceId();
  if (owned.some((item) => item.id === current)) workspace.value = current!;
  setVisible(none, owned.length === 0);
  setVisible(fields, owned.length > 0);
  fields.disabled = owned.length === 0;
  fitSeats();
}

/** Opens the form under the Team plan (or closes it again: the button is a disclosure). */
export async function openTeamForm(button: HTMLButtonElement): Promise<void> {
  if (!form.hidden) {
    setVisible(form, false);
    button.setAttribute('aria-expanded', 'false');
    return;
  }
  button.disabled = true;
  formErrors.clear();
  setVisible(loadError, false);
  setVisible(form, true);
  button.setAttribute('aria-expanded', 'true');
  announce('Reading your workspaces…');
  try {
    await loadOwned();
    announce(
      owned.length > 0
        ? `${plural(owned.length, 'workspace', 'workspaces')} you can buy Team for.`
        : 'You own no workspace without Team yet.',
    );
    (owned.length > 0 ? workspace : none).focus();
  } catch (error) {
    announce('');
    setVisible(fields, false);
    showProblem(loadError, error, 'Your workspaces could not be read: ');
  } finally {
    button.disabled = false;
  }
}

/** 409: the workspace pays already; its seats change on its own page. */
function alreadyTeam(target: WorkspaceSummary): Node {
  const sentence = document.createDocumentFragment();
  const link = element('a', '', target.name);
  link.href = `/workspace?id=${encodeURIComponent(target.id)}`;
  sentence.append('This workspace has Team already: change its seats on its page, ', link, '.');
  return sentence;
}

const sentence = (message: string) => `${message.charAt(0).toUpperCase()}${message.slice(1)}${/[.!?]$/.test(message) ? '' : '.'}`;

async function explain(error: unknown, target: WorkspaceSummary): Promise<void> {
  if (error instanceof SignedOutError || !(error instanceof ApiError)) return showProblem(errors, error);
  if (error.status === 400) {
    const messages: Partial<Record<Field, string>> = {};
    const other: string[] = [];
    for (const entry of error.problem.errors ?? []) {
      const field = entry.path === 'body.seats' ? 'seats' : entry.path === 'body.workspace_id' ? 'workspace' : null;
      if (field) messages[field] = sentence(entry.message);
      else other.push(sentence(entry.message));
    }
    if (Object.keys(messages).length > 0 || other.length > 0) return formErrors.show(messages, other.length > 0 ? other.join(' ') : null);
  }
  if (error.status === 403 || error.status === 409) {
    // The list was out of date (the workspace was handed over, or bought meanwhile): read it again.
    await loadOwned().catch(() => undefined);
    if (error.status === 409) return formErrors.show({}, alreadyTeam(target));
    return formErrors.show({}, `You are not the owner of ${target.name} (any more): only its owner buys Team for it.`);
  }
  showProblem(errors, error, 'The payment page could not be opened: ');
}

async function buy(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  if (fields.disabled) return;
  formErrors.clear();
  const target = chosen();
  if (!target) return formErrors.show({ workspace: 'Choose the workspace to buy Team for.' }, null);
  const count = Number(seats.value);
  if (!seats.value.trim() || !Number.isInteger(count) || count < target.members) {
    return formErrors.show({ seats: `${fewestSeats(target)} Nothing was sent.` }, null);
  }
  fields.disabled = true;
  announce('Opening the payment page…');
  try {
    const session = await withAccess((token) =>
      billingApi.checkout(token, {
        plan: 'team',
        workspace_id: target.id,
        seats: count,
        success_path: `/billing?${new URLSearchParams({ checkout: 'success', workspace: target.id }).toString()}`,
      }),
    );
    // The form stays disabled: the page is being left for the provider's.
    if (openProviderPage(session.url)) return;
    formErrors.show({}, 'The payment page’s address is not a web address, so it was not opened. Nothing was paid.');
  } catch (error) {
    announce('');
    await explain(error, target);
  }
  fields.disabled = false;
}

export function wireTeamForm(): void {
  form.addEventListener('submit', (event) => void buy(event));
  workspace.addEventListener('change', () => {
    formErrors.clear();
    fitSeats();
  });
  seats.addEventListener('input', () => formErrors.clearField('seats'));
}
