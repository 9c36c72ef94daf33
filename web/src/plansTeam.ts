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
import { announce, byId, element, setVisible } from './dom.ts';
import { fieldErrors } from './fieldErrors.ts';
import { language, t, tNodes } from './i18n.ts';
import { SignedOutError, withAccess } from './session.ts';
import { workspacesApi, type WorkspaceSummary } from './workspacesApi.ts';

const form = byId<HTMLFormElement>('team-form');
const loadError = byId('team-load-error');
const none = byId('team-none');
// Its link sits inside the sentence: the sentence is written around it in the page's language.
const noneLink = byId<HTMLAnchorElement>('team-none-link');
noneLink.textContent = t('plans.team.noneLink');
none.replaceChildren(...tNodes('plans.team.none', { link: noneLink }));
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

/** The chosen workspace's seats: its member count to start with, and never fewer. */
function fitSeats(): void {
  const target = chosen();
  if (!target) return;
  seats.min = String(target.members);
  seats.value = String(target.members);
  seatsHint.textContent = t('plans.team.seatsHintFor', { members: target.members });
}

async function loadOwned(): Promise<void> {
  const listed = await withAccess((token) => workspacesApi.list(token));
  owned = listed.items.filter((item) => item.role === 'owner' && !hasTeam(item));
  workspace.replaceChildren(
    ...owned.map((item) => new Option(t('plans.team.option', { name: item.name, members: item.members }), item.id)),
  );
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
  announce(t('plans.team.reading'));
  try {
    await loadOwned();
    announce(owned.length > 0 ? t('plans.team.canBuy', { count: owned.length }) : t('plans.team.noneAnnounce'));
    (owned.length > 0 ? workspace : none).focus();
  } catch (error) {
    announce('');
    setVisible(fields, false);
    showProblem(loadError, error, t('plans.team.readFailed'));
  } finally {
    button.disabled = false;
  }
}

/** 409: the workspace pays already; its seats change on its own page. */
function alreadyTeam(target: WorkspaceSummary): Node {
  const sentence = document.createDocumentFragment();
  const link = element('a', '', target.name);
  link.translate = false;
  link.href = `/workspace?id=${encodeURIComponent(target.id)}`;
  sentence.append(...tNodes('plans.team.alreadyTeam', { link }));
  return sentence;
}

/** The server's words are English: other languages say what was refused in their own. */
const sentence = (message: string, otherwise: string) =>
  language === 'en' ? `${message.charAt(0).toUpperCase()}${message.slice(1)}${/[.!?]$/.test(message) ? '' : '.'}` : otherwise;

async function explain(error: unknown, target: WorkspaceSummary): Promise<void> {
  if (error instanceof SignedOutError || !(error instanceof ApiError)) return showProblem(errors, error);
  if (error.status === 400) {
    const messages: Partial<Record<Field, string>> = {};
    const other: string[] = [];
    for (const entry of error.problem.errors ?? []) {
      const field = entry.path === 'body.seats' ? 'seats' : entry.path === 'body.workspace_id' ? 'workspace' : null;
      if (field) messages[field] = sentence(entry.message, t('plans.team.fieldRefused'));
      else other.push(sentence(entry.message, t('plans.team.requestRefused')));
    }
    const rest = language === 'en' ? other : [...new Set(other)];
    if (Object.keys(messages).length > 0 || rest.length > 0) return formErrors.show(messages, rest.length > 0 ? rest.join(' ') : null);
  }
  if (error.status === 403 || error.status === 409) {
    // The list was out of date (the workspace was handed over, or bought meanwhile): read it again.
    await loadOwned().catch(() => undefined);
    if (error.status === 409) return formErrors.show({}, alreadyTeam(target));
    return formErrors.show({}, t('plans.team.notOwner', { name: target.name }));
  }
  showProblem(errors, error, t('plans.paymentFailed'));
}

async function buy(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  if (fields.disabled) return;
  formErrors.clear();
  const target = chosen();
  if (!target) return formErrors.show({ workspace: t('plans.team.chooseWorkspace') }, null);
  const count = Number(seats.value);
  if (!seats.value.trim() || !Number.isInteger(count) || count < target.members) {
    return formErrors.show({ seats: t('plans.team.seatsTooFew', { members: target.members }) }, null);
  }
  fields.disabled = true;
  announce(t('plans.openingPayment'));
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
    formErrors.show({}, t('plans.paymentNotWebAddress'));
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
