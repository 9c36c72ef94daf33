/**
 * A workspace's invitations (`/workspace?id=`): the invite form (an address and a role, admin or
 * member; owners and admins only) and the pending invitations, each with Revoke behind a confirm
 * step (`DELETE …/members/{invitationId}`). The invitation's link goes to the address by email;
 * its token never reaches this page.
 */
import { mayDo } from '../../shared/domain/workspaces/permissions.ts';
import { workspaceLimits } from '../../shared/limits.ts';
import { ApiError, problemMessages } from './api.ts';
import { actionButton, fact, showProblem } from './accountPage.ts';
import { confirmStep } from './confirmStep.ts';
import { announce, byId, describeTime, element, errorBox, plural, setVisible, timeElement } from './dom.ts';
import { SignedOutError, withAccess } from './session.ts';
import { explainRefusal, run, type WorkspaceContext } from './workspaceContext.ts';
import { roleLabel } from './workspaceText.ts';
import { workspacesApi, type PendingInvitation } from './workspacesApi.ts';

const form = byId<HTMLFormElement>('invite-form');
const fields = byId<HTMLFieldSetElement>('invite-fields');
const email = byId<HTMLInputElement>('invite-email');
const emailError = byId('invite-email-error');
const role = byId<HTMLSelectElement>('invite-role');
const errors = byId('invite-errors');
const sent = byId('invite-sent');

const inviteDays = workspaceLimits.invitationSeconds / 86_400;

export function invitationItem(
  invitation: PendingInvitation,
  context: WorkspaceContext,
  changed: (announcement: string) => Promise<void>,
): HTMLLIElement {
  const item = element('li', 'item');
  item.dataset.invitationId = invitation.id;
  const head = element('div', 'item-head');
  const title = element('h4', 'item-title', invitation.email);
  title.tabIndex = -1;
  const badge = element('span', 'badge badge-pending', `Invited as ${roleLabel(invitation.role).toLowerCase()}`);
  head.append(title, badge);
  const facts = element('dl', 'facts');
  facts.append(fact('Link works until', timeElement(invitation.expires_at)));
  item.append(head, facts);
  if (!mayDo(context.workspace.role, 'invite')) return item;

  const error = errorBox('invitation-error');
  const revoke = actionButton('Revoke', `invitation of ${invitation.email}`, 'danger');
  revoke.dataset.action = 'revoke';
  const actions = element('div', 'actions');
  actions.append(revoke);
  const step = confirmStep(
    revoke,
    {
      action: 'revoke',
      object: `invitation of ${invitation.email}`,
      question: `Revoke the invitation to ${invitation.email}? Its link stops working at once and its seat is free again.`,
      yes: 'Yes, revoke it',
      no: 'Keep it',
    },
    (yes) =>
      void run(
        yes,
        error,
        (token) => workspacesApi.remove(token, context.workspace.id, invitation.id),
        () => changed(`The invitation to ${invitation.email} is revoked.`),
        (problem) => explainRefusal(context, problem, error, 'Could not revoke: '),
        '',
      ),
  );
  item.append(actions, step.box, error);
  return item;
}

/** Wires the invite form once; `context()` is the page's context as it is now. */
export function wireInviteForm(
  context: () => WorkspaceContext,
  seatsUsed: () => number,
  invited: (invitation: PendingInvitation) => Promise<void>,
): void {
  email.addEventListener('input', () => {
    email.removeAttribute('aria-invalid');
    setVisible(emailError, false);
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void invite(context(), seatsUsed, invited);
  });
}

function clearErrors(): void {
  setVisible(errors, false);
  setVisible(emailError, false);
  setVisible(sent, false);
  email.removeAttribute('aria-invalid');
}

function emailProblem(message: string): void {
  emailError.textContent = message;
  setVisible(emailError, true);
  email.setAttribute('aria-invalid', 'true');
  email.focus();
}

function formProblem(message: string): void {
  errors.textContent = message;
  setVisible(errors, true);
  errors.focus();
}

async function invite(
  context: WorkspaceContext,
  seatsUsed: () => number,
  invited: (invitation: PendingInvitation) => Promise<void>,
): Promise<void> {
  if (fields.disabled) return;
  clearErrors();
  const address = email.value.trim();
  if (!address || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(address))
    return emailProblem('Enter the email address to invite, such as ana@example.com.');
  fields.disabled = true;
  announce('Sending the invitation…');
  try {
    const invitation = await withAccess((token) =>
      workspacesApi.invite(token, context.workspace.id, { email: address, role: role.value === 'admin' ? 'admin' : 'member' }),
    );
    form.reset();
    fields.disabled = false;
    // Said as soon as the server has it, not after the page's lists are read again: the new row
    // and the confirmation then never disagree, however slow the other reads are.
    sent.textContent = `Invitation emailed to ${invitation.email}, as ${roleLabel(invitation.role).toLowerCase()}. Its link works for ${plural(inviteDays, 'day', 'days')}, until ${describeTime(invitation.expires_at)}, and only for that address.`;
    setVisible(sent, true);
    email.focus();
    await invited(invitation);
    announce(`Invitation sent to ${invitation.email}.`);
  } catch (error) {
    announce('');
    fields.disabled = false;
    if (error instanceof SignedOutError) return showProblem(errors, error);
    if (error instanceof ApiError && error.status === 403 && error.problem.reason === 'no_free_seat') {
      const seats = typeof error.problem.seats === 'number' ? error.problem.seats : context.workspace.seats;
      return formProblem(
        `No free seat: ${Math.max(seatsUsed(), seats)} of ${plural(seats, 'seat', 'seats')} are taken by members and pending invitations. Revoke a pending invitation, or add seats to the workspace’s Team subscription, to invite someone else.`,
      );
    }
    if (error instanceof ApiError && error.status === 400) {
      const forEmail = (error.problem.errors ?? []).filter((entry) => entry.path === 'body.email');
      // A member already, or invited already, says so in `detail`; the schema's refusal is generic.
      const generic = !error.problem.detail || /^The request \w+ is not valid\.$/.test(error.problem.detail);
      if (forEmail.length > 0) return emailProblem(generic ? 'That is not an email address the service accepts.' : error.problem.detail!);
      return formProblem(problemMessages(error).join(' '));
    }
    await explainRefusal(context, error, errors, 'The invitation was not sent: ');
  } finally {
    fields.disabled = false;
  }
}
