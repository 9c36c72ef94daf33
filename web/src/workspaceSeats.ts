/**
 * A Team workspace's seats (`/workspace?id=`), for its owner alone (the billing routes' rule):
 * the member count and the seats paid for, and a field to change them (`PATCH
 * /v1/billing/seats`, prorated by the provider). Fewer seats than members are refused here
 * before anything is sent, and by the server when members joined meanwhile (its 400 is shown
 * under the field, the page read again). An owner without Team is pointed to the plans page.
 * Built here and placed under the members' seat line, so the page's markup stays the members'.
 */
import { ApiError } from './api.ts';
import { fact, showProblem } from './accountPage.ts';
import { billingApi } from './billingApi.ts';
import { announce, byId, element, errorBox, setVisible } from './dom.ts';
import { locale, t, tNodes } from './i18n.ts';
import { SignedOutError, withAccess } from './session.ts';
import { sentences, serverWords, type WorkspaceContext } from './workspaceContext.ts';

const numbers = new Intl.NumberFormat(locale);
const box = element('section', 'seats-control');
const title = element('h3', 'panel-title', t('workspace.seats.title'));
const facts = element('dl', 'facts');
const form = element('form');
const fields = element('fieldset', 'plain');
const field = element('div', 'field');
const label = element('label', '', t('workspace.seats.label'));
const input = element('input');
const hint = element('p', 'hint');
const fieldError = element('p', 'notice notice-error');
const errors = errorBox('seats-errors');
const saved = element('p', 'notice notice-info');
const buttons = element('div', 'actions');
const save = element('button', 'primary', t('workspace.seats.save'));
const buyNote = element('p', 'hint');

let dirty = false;

function build(): void {
  box.id = 'seats-control';
  box.setAttribute('aria-labelledby', 'seats-control-title');
  title.id = 'seats-control-title';
  title.tabIndex = -1;
  facts.dataset.role = 'seats-facts';
  // No name attributes: without the script this form can submit nothing.
  form.noValidate = true;
  form.setAttribute('aria-labelledby', 'seats-control-title');
  input.id = 'seats-count';
  input.type = 'number';
  input.inputMode = 'numeric';
  input.step = '1';
  input.autocomplete = 'off';
  input.setAttribute('aria-describedby', 'seats-count-hint seats-count-error');
  label.htmlFor = input.id;
  hint.id = 'seats-count-hint';
  fieldError.id = 'seats-count-error';
  fieldError.hidden = true;
  saved.id = 'seats-saved';
  saved.tabIndex = -1;
  saved.hidden = true;
  save.type = 'submit';
  save.id = 'seats-save';
  field.append(label, input, hint, fieldError);
  buttons.append(save);
  fields.append(field, errors, saved, buttons);
  form.append(fields);
  box.append(title, facts, form);
  box.hidden = true;
  buyNote.id = 'seats-buy';
  buyNote.hidden = true;
  const plansLink = element('a', '', t('workspace.team.buyTeam'));
  plansLink.href = '/plans';
  buyNote.append(...tNodes('workspace.seats.buy', { link: plansLink }));
}

const fewest = (members: number) => t('workspace.seats.fewest', { members });

/** Shows the control to the owner of a Team workspace (and the way to Team to the owner of a free one). */
export function renderSeats(context: WorkspaceContext): void {
  const { workspace } = context;
  const owner = workspace.role === 'owner';
  setVisible(box, owner && workspace.plan === 'team');
  setVisible(buyNote, owner && workspace.plan === 'free');
  if (box.hidden) return;
  const members = fact(t('workspace.seats.members'), numbers.format(workspace.members));
  members.dataset.role = 'seats-members';
  const seats = fact(t('workspace.seats.paid'), numbers.format(workspace.seats));
  seats.dataset.role = 'seats-paid';
  facts.replaceChildren(members, seats);
  input.min = String(workspace.members);
  // What the owner typed stays across a reading of the page; otherwise the field shows the seats.
  if (!dirty) input.value = String(workspace.seats);
  hint.textContent = sentences(fewest(workspace.members), t('workspace.seats.hint'));
}

function clearErrors(): void {
  setVisible(fieldError, false);
  setVisible(errors, false);
  input.removeAttribute('aria-invalid');
}

function fieldProblem(message: string): void {
  fieldError.textContent = message;
  setVisible(fieldError, true);
  input.setAttribute('aria-invalid', 'true');
  input.focus();
}

async function change(context: WorkspaceContext, seatsUsed: () => number): Promise<void> {
  if (fields.disabled) return;
  clearErrors();
  setVisible(saved, false);
  const { workspace } = context;
  const wanted = Number(input.value);
  if (!input.value.trim() || !Number.isInteger(wanted) || wanted < 1) return fieldProblem(t('workspace.seats.notNumber'));
  if (wanted < workspace.members) return fieldProblem(sentences(fewest(workspace.members), t('workspace.nothingSent')));
  if (wanted === workspace.seats) return fieldProblem(t('workspace.seats.same', { seats: wanted }));
  fields.disabled = true;
  announce(t('workspace.seats.changing'));
  try {
    const changed = await withAccess((token) => billingApi.changeSeats(token, workspace.id, wanted));
    dirty = false;
    await context.refresh();
    const waiting = seatsUsed() - changed.seats;
    const now = t('workspace.seats.changed', { name: workspace.name, seats: changed.seats });
    saved.textContent = waiting > 0 ? sentences(now, t('workspace.seats.waiting', { waiting })) : now;
    setVisible(saved, true);
    announce(t('workspace.seats.changedAnnounce', { seats: changed.seats }));
    saved.focus();
  } catch (error) {
    announce('');
    await explain(context, error);
  } finally {
    fields.disabled = false;
  }
}

async function explain(context: WorkspaceContext, error: unknown): Promise<void> {
  if (error instanceof SignedOutError || !(error instanceof ApiError)) return showProblem(errors, error);
  if (error.status === 400) {
    // Members joined meanwhile (or the number is out of bounds): the page is read again, the number kept.
    await context.refresh();
    const forSeats = (error.problem.errors ?? []).filter((entry) => entry.path === 'body.seats').map((entry) => entry.message);
    if (forSeats.length > 0)
      return fieldProblem(serverWords(t('workspace.seats.refusedBecause', { reason: forSeats.join('; ') }), t('workspace.seats.refused')));
  }
  if (error.status === 403 || error.status === 404) {
    await context.refresh();
    return context.notice(error.status === 403 ? t('workspace.seats.notOwner') : t('workspace.seats.noSubscription'));
  }
  showProblem(errors, error, t('workspace.seats.failed'));
}

/** Builds the control under the members' seat line and wires it once; `context()` is the page's context as it is now. */
export function wireSeats(context: () => WorkspaceContext, seatsUsed: () => number): void {
  build();
  byId('seats-line').after(box, buyNote);
  input.addEventListener('input', () => {
    dirty = true;
    input.removeAttribute('aria-invalid');
    setVisible(fieldError, false);
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void change(context(), seatsUsed);
  });
}
