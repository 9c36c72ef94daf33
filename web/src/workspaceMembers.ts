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
import { hasMessage, t } from './i18n.ts';
import { roleName } from './workspaceAuditValues.ts';
import { explainRefusal, run, show, type WorkspaceContext } from './workspaceContext.ts';
import { workspacesApi, type Role, type WorkspaceMember } from './workspacesApi.ts';

const roles: readonly Role[] = ['owner', 'admin', 'member'];

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
  const address = element('span', 'member-email', member.email);
  address.translate = false;
  title.append(address);
  if (self) title.append(element('span', 'hint', ` ${t('workspace.member.you')}`));
  const badge = element('span', member.role === 'owner' ? 'badge badge-active' : 'badge', roleName(member.role));
  badge.dataset.role = 'member-role';
  head.append(title, badge);

  const facts = element('dl', 'facts');
  const source = `workspaceWords.source.${member.source}`;
  facts.append(
    fact(t('workspace.member.joined'), timeElement(member.joined_at)),
    fact(t('workspace.member.source'), hasMessage(source) ? t(source) : member.source),
  );
  item.append(head, facts);

  const error = errorBox('member-error');
  const explain = (problem: unknown, prefix: string) => explainRefusal(context, problem, error, prefix);
  const email = member.email;
  const name = workspace.name;

  // The role select: owners alone change roles (rule 11 of §5), their own too while another owner remains.
  if (mayDo(workspace.role, 'changeRole')) item.append(roleControl(workspace.id, member, error, explain, actions));

  const buttons = element('div', 'actions');
  const confirms: HTMLElement[] = [];
  if (mayDo(workspace.role, 'transfer') && !self && member.role !== 'owner') {
    const object = t('workspace.member.transferObject', { email });
    const transfer = actionButton(t('workspace.member.transfer'), object);
    transfer.dataset.action = 'transfer';
    const step = confirmStep(
      transfer,
      {
        action: 'transfer',
        object,
        question: t('workspace.member.transferQuestion', { email, workspace: name }),
        yes: t('workspace.member.transferYes', { email }),
        no: t('workspace.member.transferNo'),
      },
      (yes) =>
        void run(
          yes,
          error,
          (accessToken) => workspacesApi.transfer(accessToken, workspace.id, member.user_id),
          async () => {
            await context.refresh();
            context.notice(t('workspace.member.transferred', { email, workspace: name }));
          },
          explain,
          t('workspace.member.transferFailed'),
        ),
    );
    buttons.append(transfer);
    confirms.push(step.box);
  }
  // An admin removes admins and members, never an owner; anyone may leave (remove themself).
  const mayRemove = !self && mayDo(workspace.role, 'removeMember') && (workspace.role === 'owner' || member.role !== 'owner');
  if (mayRemove) {
    const object = t('workspace.member.removeObject', { email });
    const remove = actionButton(t('workspace.member.remove'), object, 'danger');
    remove.dataset.action = 'remove';
    const step = confirmStep(
      remove,
      {
        action: 'remove',
        object,
        question: t('workspace.member.removeQuestion', { email, workspace: name }),
        yes: t('workspace.member.removeYes'),
        no: t('workspace.member.removeNo'),
      },
      (yes) =>
        void run(
          yes,
          error,
          (accessToken) => workspacesApi.remove(accessToken, workspace.id, member.user_id),
          () => actions.changed(t('workspace.member.removed', { email })),
          (problem) => {
            if (problem instanceof ApiError && problem.status === 409 && problem.problem.reason === 'last_owner') {
              return show(error, t('workspace.member.removeLastOwner', { email }));
            }
            if (problem instanceof ApiError && problem.status === 409)
              return actions.changed(t('workspace.member.rolesChanged'), member.user_id);
            return explain(problem, t('workspace.member.removeFailed'));
          },
          '',
        ),
    );
    buttons.append(remove);
    confirms.push(step.box);
  }
  if (self) {
    const object = t('workspace.member.leaveObject', { workspace: name });
    const leave = actionButton(t('workspace.member.leave'), object, 'danger');
    leave.dataset.action = 'leave';
    const step = confirmStep(
      leave,
      {
        action: 'leave',
        object,
        question: t('workspace.member.leaveQuestion', { workspace: name }),
        yes: t('workspace.member.leaveYes'),
        no: t('workspace.member.leaveNo'),
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
              return show(error, t('workspace.member.leaveLastOwner'));
            }
            return explain(problem, t('workspace.member.leaveFailed'));
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
  error: HTMLElement,
  explain: (problem: unknown, prefix: string) => Promise<void>,
  actions: MemberActions,
): HTMLElement {
  const field = element('div', 'field role-field');
  const id = `role-${member.user_id}`;
  const email = member.email;
  const object = t('workspace.member.ofEmail', { email });
  const label = element('label', '', t('workspace.member.roleLabel'));
  label.htmlFor = id;
  label.append(element('span', 'visually-hidden', ` ${object}`));
  const row = element('div', 'with-button');
  const select = element('select');
  select.id = id;
  for (const role of roles) select.append(new Option(roleName(role), role, false, role === member.role));
  select.dataset.action = 'role';
  const save = actionButton(t('workspace.member.changeRole'), object);
  save.dataset.action = 'change-role';
  save.disabled = true;
  select.addEventListener('change', () => (save.disabled = select.value === member.role));
  save.addEventListener('click', () => {
    const role = select.value as Role;
    void run(
      save,
      error,
      (accessToken) => workspacesApi.changeRole(accessToken, workspaceId, member.user_id, role),
      () => actions.changed(t('workspace.member.roleChanged', { email, role }), member.user_id),
      (problem) => {
        if (problem instanceof ApiError && problem.status === 409 && problem.problem.reason === 'last_owner') {
          select.value = member.role;
          save.disabled = true;
          return show(error, t('workspace.member.stayOwner', { email }));
        }
        if (problem instanceof ApiError && problem.status === 409)
          return actions.changed(t('workspace.member.roleChangedMeanwhile'), member.user_id);
        return explain(problem, t('workspace.member.changeRoleFailed'));
      },
      '',
    );
  });
  row.append(select, save);
  field.append(label, row);
  return field;
}
