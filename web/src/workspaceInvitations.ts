/**
 * A workspace's invitations (`/workspace?id=`): the invite form (an address and a role, admin or
 * member; owners and admins only) and the pending invitations, each with Revoke behind a confirm
 * step (`DELETE …/members/{invitationId}`). The invitation's link goes to the address by email;
 * its token never reaches this page.
 */
import { mayDo } from '../../shared/domain/workspaces/permissions.ts';
import { workspaceLimits } from '../../shared/limits.ts';
import { ApiError, problemText } from './api.ts';
import { actionButton, fact, showProblem } from './accountPage.ts';
import { confirmStep } from './confirmStep.ts';
import { announce, byId, describeTime, element, errorBox, setVisible, timeElement } from './dom.ts';
import { language, t } from './i18n.ts';
import { SignedOutError, withAccess } from './session.ts';
import { explainRefusal, run, type WorkspaceContext } from './workspaceContext.ts';
import { workspacesApi, type PendingInvitation } from './workspacesApi.ts';

const form = byId<HTMLFormElement>('invite-form');
const fields = byId<HTMLFieldSetElement>('invite-fields');
const email = byId<HTMLInputElement>('invite-email');
const emailError = byId('invite-email-error');
const role = byId<HTMLSelectElement>('invite-role');
const errors = byId('invite-errors');
const sent = byId('invite-sent');

const inviteDays = workspaceLimits.invitationSeconds / 86_400;

/** The refusals of an address the service names (its `errors[].message` for `body.email`), in the page's words. */
const emailRefusals: Record<string, string> = {
  'is a member already': t('workspace.invite.alreadyMember'),
  'has a pending invitation': t('workspace.invite.alreadyInvited'),
};

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
  title.translate = false;
  const badge = element('span', 'badge badge-pending', t('workspace.invitation.invitedAs', { role: invitation.role }));
  head.append(title, badge);
  const facts = element('dl', 'facts');
  facts.append(fact(t('workspace.invitation.until'), timeElement(invitation.expires_at)));
  item.append(head, facts);
  if (!mayDo(context.workspace.role, 'invite')) return item;

  const error = errorBox('invitation-error');
  const email = invitation.email;
  const object = t('workspace.invitation.object', { email });
  const revoke = actionButton(t('workspace.invitation.revoke'), object, 'danger');
  revoke.dataset.action = 'revoke';
  const actions = element('div', 'actions');
  actions.append(revoke);
  const step = confirmStep(
    revoke,
    {
      action: 'revoke',
      object,
      question: t('workspace.invitation.revokeQuestion', { email }),
      yes: t('workspace.invitation.revokeYes'),
      no: t('workspace.invitation.revokeNo'),
    },
    (yes) =>
      void run(
        yes,
        error,
        (token) => workspacesApi.remove(token, context.workspace.id, invitation.id),
        () => changed(t('workspace.invitation.revoked', { email })),
        (problem) => explainRefusal(context, problem, error, t('workspace.invitation.revokeFailed')),
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
  if (!address || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(address)) return emailProblem(t('workspace.invite.emailMissing'));
  fields.disabled = true;
  announce(t('workspace.invite.sending'));
  try {
    const invitation = await withAccess((token) =>
      workspacesApi.invite(token, context.workspace.id, { email: address, role: role.value === 'admin' ? 'admin' : 'member' }),
    );
    form.reset();
    fields.disabled = false;
    // Said as soon as the server has it, not after the page's lists are read again: the new row
    // and the confirmation then never disagree, however slow the other reads are.
    sent.textContent = t('workspace.invite.sent', {
      email: invitation.email,
      role: invitation.role,
      days: inviteDays,
      until: describeTime(invitation.expires_at),
    });
    setVisible(sent, true);
    email.focus();
    await invited(invitation);
    announce(t('workspace.invite.sentAnnounce', { email: invitation.email }));
  } catch (error) {
    announce('');
    fields.disabled = false;
    if (error instanceof SignedOutError) return showProblem(errors, error);
    if (error instanceof ApiError && error.status === 403 && error.problem.reason === 'no_free_seat') {
      const seats = typeof error.problem.seats === 'number' ? error.problem.seats : context.workspace.seats;
      return formProblem(t('workspace.invite.noSeat', { used: Math.max(seatsUsed(), seats), seats }));
    }
    if (error instanceof ApiError && error.status === 400) {
      const forEmail = (error.problem.errors ?? []).filter((entry) => entry.path === 'body.email');
      // A member already, or invited already, is named by the field's message (and said in `detail`,
      // in English, which an English page shows as it is); the schema's refusal is generic.
      const known = forEmail.map((entry) => emailRefusals[entry.message]).find((message) => message !== undefined);
      const generic = !error.problem.detail || /^The request \w+ is not valid\.$/.test(error.problem.detail);
      if (known) return emailProblem(known);
      if (forEmail.length > 0)
        return emailProblem(generic || language !== 'en' ? t('workspace.invite.emailRefused') : error.problem.detail!);
      return formProblem(problemText(error));
    }
    await explainRefusal(context, error, errors, t('workspace.invite.failed'));
  } finally {
    fields.disabled = false;
  }
}
