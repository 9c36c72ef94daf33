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
import { announce, byId, element, errorBox, plural, setVisible } from './dom.ts';
import { SignedOutError, withAccess } from './session.ts';
import type { WorkspaceContext } from './workspaceContext.ts';

const box = element('section', 'seats-control');
const title = element('h3', 'panel-title', 'Seats of the Team subscription');
const facts = element('dl', 'facts');
const form = element('form');
const fields = element('fieldset', 'plain');
const field = element('div', 'field');
const label = element('label', '', 'Seats');
const input = element('input');
const hint = element('p', 'hint');
const fieldError = element('p', 'notice notice-error');
const errors = errorBox('seats-errors');
const saved = element('p', 'notice notice-info');
const buttons = element('div', 'actions');
const save = element('button', 'primary', 'Change seats');
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
  buyNote.append('Seats beyond the owner’s come with a Team subscription: ');
  const plansLink = element('a', '', 'buy Team for this workspace');
  plansLink.href = '/plans';
  buyNote.append(plansLink, '.');
}

const fewest = (members: number) =>
  `At least ${plural(members, 'seat', 'seats')}: one for each member. Remove members first to have fewer.`;

/** Shows the control to the owner of a Team workspace (and the way to Team to the owner of a free one). */
export function renderSeats(context: WorkspaceContext): void {
  const { workspace } = context;
  const owner = workspace.role === 'owner';
  setVisible(box, owner && workspace.plan === 'team');
  setVisible(buyNote, owner && workspace.plan === 'free');
  if (box.hidden) return;
  const members = fact('Members', String(workspace.members));
  members.dataset.role = 'seats-members';
  const seats = fact('Seats paid for', String(workspace.seats));
  seats.dataset.role = 'seats-paid';
  facts.replaceChildren(members, seats);
  input.min = String(workspace.members);
  // What the owner typed stays across a reading of the page; otherwise the field shows the seats.
  if (!dirty) input.value = String(workspace.seats);
  hint.textContent = `${fewest(workspace.members)} Pending invitations take a seat too: with fewer seats, they wait for one to be free. The change is billed, or credited, for the rest of the period.`;
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
  if (!input.value.trim() || !Number.isInteger(wanted) || wanted < 1) return fieldProblem('Give the number of seats, a whole number.');
  if (wanted < workspace.members) return fieldProblem(`${fewest(workspace.members)} Nothing was sent.`);
  if (wanted === workspace.seats) return fieldProblem(`It has ${plural(wanted, 'seat', 'seats')} already.`);
  fields.disabled = true;
  announce('Changing the seats…');
  try {
    const changed = await withAccess((token) => billingApi.changeSeats(token, workspace.id, wanted));
    dirty = false;
    await context.refresh();
    const waiting = seatsUsed() - changed.seats;
    saved.textContent =
      `${workspace.name} has ${plural(changed.seats, 'seat', 'seats')} now.` +
      (waiting > 0 ? ` ${plural(waiting, 'pending invitation waits', 'pending invitations wait')} for a free seat.` : '');
    setVisible(saved, true);
    announce(`Seats changed to ${changed.seats}.`);
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
    if (forSeats.length > 0) return fieldProblem(`The service refused it: seats ${forSeats.join('; ')}. Nothing was changed.`);
  }
  if (error.status === 403 || error.status === 404) {
    await context.refresh();
    return context.notice(
      error.status === 403
        ? 'Only the workspace’s owner changes its seats, and you are not its owner (any more): the page is read again.'
        : 'This workspace has no Team subscription (any more), so it has no seats to change: the page is read again.',
    );
  }
  showProblem(errors, error, 'The seats were not changed: ');
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
