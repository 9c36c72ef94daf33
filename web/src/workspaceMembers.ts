/**
 * A workspace's members (`/workspace?id=`): each member's address, role, when and how they
 * joined, and what the caller's role allows on them (`permissions.ts`): the role select (owners),
 * Transfer ownership (owners, to someone else, behind a confirm step naming them), Remove
 * (owners and admins; an admin never an owner; confirm step), Leave (oneself; confirm step).
 * The server decides in the end: its 403 and 409 are explained where they happen.
 */
import { mayDo } from '../../shared/domain/workspaces/permissions.ts';
import { ApiError } from './api.ts';
import { actionButton, fact } from './accountPage.ts';
import { chooseWorkspace, currentWorkspaceId } from './currentWorkspace.ts';
import { confirmStep } from './confirmStep.ts';
import { element, errorBox, timeElement } from './dom.ts';
import { explainRefusal, run, show, type WorkspaceContext } from './workspaceContext.ts';
import { roleLabel, roleLabels, sourceLabels } from './workspaceText.ts';
import { workspacesApi, type Role, type WorkspaceMember } from './workspacesApi.ts';

/** What a member's card tells the page. */
export interface MemberActions {
  /** The members changed (a role, a removal): read them again. */
  changed(announcement: string, focusUserId?: string): Promise<void>;
  /** The caller left the workspace. */
  left(): void;
}

export function memberItem(member: WorkspaceMember, context: WorkspaceContext, actions: MemberActions): HTMLLIElement {
  const { workspace, user } = context;
  const self = member.user_id === user.id;
  const item = element('li', 'item');
  item.dataset.userId = member.user_id;
  item.dataset.role = member.role;
  if (self) item.dataset.self = 'true';

  const head = element('div', 'item-head');
  const title = element('h3', 'item-title');
  title.id = `member-${member.user_id}-title`;
  title.tabIndex = -1;
  title.append(element('span', 'member-email', member.email));
  if (self) title.append(element('span', 'hint', ' (you)'));
  const badge = element('span', member.role === 'owner' ? 'badge badge-active' : 'badge', roleLabel(member.role));
  badge.dataset.role = 'member-role';
  head.append(title, badge);

  const facts = element('dl', 'facts');
  facts.append(fact('Joined', timeElement(member.joined_at)), fact('Source', sourceLabels[member.source] ?? member.source));
  item.append(head, facts);

  const error = errorBox('member-error');
  const explain = (problem: unknown, prefix: string) => explainRefusal(context, problem, error, prefix);
  const object = `${member.email}`;

  // The role select: owners alone change roles (rule 11 of §5), their own too while another owner remains.
  if (mayDo(workspace.role, 'changeRole')) item.append(roleControl(workspace.id, member, object, error, explain, actions));

  const buttons = element('div', 'actions');
  const confirms: HTMLElement[] = [];
  if (mayDo(workspace.role, 'transfer') && !self && member.role !== 'owner') {
    const transfer = actionButton('Transfer ownership', `to ${object}`);
    transfer.dataset.action = 'transfer';
    const step = confirmStep(
      transfer,
      {
        action: 'transfer',
        object: `to ${object}`,
        question: `Make ${member.email} the owner of ${workspace.name}? They get every right over it, including roles and ownership; you stay in it as an admin.`,
        yes: `Yes, make ${member.email} the owner`,
        no: 'Keep it',
      },
      (yes) =>
        void run(
          yes,
          error,
          (accessToken) => workspacesApi.transfer(accessToken, workspace.id, member.user_id),
          async () => {
            await context.refresh();
            context.notice(`${member.email} now owns ${workspace.name}. You are an admin of it.`);
          },
          explain,
          'Could not transfer: ',
        ),
    );
    buttons.append(transfer);
    confirms.push(step.box);
  }
  // An admin removes admins and members, never an owner; anyone may leave (remove themself).
  const mayRemove = !self && mayDo(workspace.role, 'removeMember') && (workspace.role === 'owner' || member.role !== 'owner');
  if (mayRemove) {
    const remove = actionButton('Remove', `member ${object}`, 'danger');
    remove.dataset.action = 'remove';
    const step = confirmStep(
      remove,
      {
        action: 'remove',
        object: `member ${object}`,
        question: `Remove ${member.email} from ${workspace.name}? Their account and the secrets they sent stay as they are, and their seat is free again. They are told by email.`,
        yes: 'Yes, remove them',
        no: 'Keep them',
      },
      (yes) =>
        void run(
          yes,
          error,
          (accessToken) => workspacesApi.remove(accessToken, workspace.id, member.user_id),
          () => actions.changed(`${member.email} was removed from the workspace.`),
          (problem) => {
            if (problem instanceof ApiError && problem.status === 409 && problem.problem.reason === 'last_owner') {
              return show(error, `${member.email} is the last owner: make another member owner first.`);
            }
            if (problem instanceof ApiError && problem.status === 409)
              return actions.changed('Roles changed meanwhile: the members are read again.', member.user_id);
            return explain(problem, 'Could not remove: ');
          },
          '',
        ),
    );
    buttons.append(remove);
    confirms.push(step.box);
  }
  if (self) {
    const leave = actionButton('Leave', `workspace ${workspace.name}`, 'danger');
    leave.dataset.action = 'leave';
    const step = confirmStep(
      leave,
      {
        action: 'leave',
        object: `workspace ${workspace.name}`,
        question: `Leave ${workspace.name}? Your account and the secrets you sent stay yours; only an invitation brings you back.`,
        yes: 'Yes, leave',
        no: 'Stay',
      },
      (yes) =>
        void run(
          yes,
          error,
          (accessToken) => workspacesApi.remove(accessToken, workspace.id, member.user_id),
          async () => {
            if (currentWorkspaceId() === workspace.id) chooseWorkspace(null);
            actions.left();
          },
          (problem) => {
            if (problem instanceof ApiError && problem.status === 409 && problem.problem.reason === 'last_owner') {
              return show(
                error,
                'You are the last owner, so you cannot leave: transfer ownership to another member (or make one an owner) first.',
              );
            }
            return explain(problem, 'Could not leave: ');
          },
          '',
        ),
    );
    buttons.append(leave);
    confirms.push(step.box);
  }
  if (buttons.children.length > 0) item.append(buttons, ...confirms);
  item.append(error);
  return item;
}

function roleControl(
  workspaceId: string,
  member: WorkspaceMember,
  object: string,
  error: HTMLElement,
  explain: (problem: unknown, prefix: string) => Promise<void>,
  actions: MemberActions,
): HTMLElement {
  const field = element('div', 'field role-field');
  const id = `role-${member.user_id}`;
  const label = element('label', '', 'Role');
  label.htmlFor = id;
  label.append(element('span', 'visually-hidden', ` of ${object}`));
  const row = element('div', 'with-button');
  const select = element('select');
  select.id = id;
  for (const role of Object.keys(roleLabels) as Role[]) select.append(new Option(roleLabels[role], role, false, role === member.role));
  select.dataset.action = 'role';
  const save = actionButton('Change role', `of ${object}`);
  save.dataset.action = 'change-role';
  save.disabled = true;
  select.addEventListener('change', () => (save.disabled = select.value === member.role));
  save.addEventListener('click', () => {
    const role = select.value as Role;
    void run(
      save,
      error,
      (accessToken) => workspacesApi.changeRole(accessToken, workspaceId, member.user_id, role),
      () => actions.changed(`${member.email} is now ${roleLabel(role).toLowerCase()}.`, member.user_id),
      (problem) => {
        if (problem instanceof ApiError && problem.status === 409 && problem.problem.reason === 'last_owner') {
          select.value = member.role;
          save.disabled = true;
          return show(error, `${member.email} is the last owner, so they stay owner: make another member owner first.`);
        }
        if (problem instanceof ApiError && problem.status === 409)
          return actions.changed('This member’s role changed meanwhile: the members are read again.', member.user_id);
        return explain(problem, 'Could not change the role: ');
      },
      '',
    );
  });
  row.append(select, save);
  field.append(label, row);
  return field;
}
