import type { Role } from './model.ts';

/**
 * THE permission table of workspaces (docs/adr/0037-the-workspace-permission-table.md prints it;
 * the role-matrix tests are generated from it): which roles may do what. An API key administers
 * nothing (403 on every route of the group), and a non-member gets 404 everywhere (rule 10 of §5).
 */
export const permissions = {
  listMembers: ['owner', 'admin', 'member'],
  invite: ['owner', 'admin'],
  /** An admin removes admins and members, never an owner; anyone may leave (remove themself). */
  removeMember: ['owner', 'admin'],
  /** Owners alone change roles (rule 11 of §5). */
  changeRole: ['owner'],
  transfer: ['owner'],
  setPolicy: ['owner', 'admin'],
  setBranding: ['owner', 'admin'],
  readAudit: ['owner', 'admin'],
  /** Custom domains (issue 17): every member sees them; owners and admins claim, verify and delete. */
  listDomains: ['owner', 'admin', 'member'],
  manageDomains: ['owner', 'admin'],
  /** The SSO directory and its key. */
  setSso: ['owner', 'admin'],
} as const satisfies Record<string, readonly Role[]>;

export type WorkspaceAction = keyof typeof permissions;

/**
 * What a member whose role lacks the permission is answered: 403, except the audit trail,
 * whose routes list no 403, so it is hidden as from a non-member (404).
 */
export const refusalFor = (action: WorkspaceAction): 403 | 404 => (action === 'readAudit' ? 404 : 403);

export const mayDo = (role: Role, action: WorkspaceAction): boolean => (permissions[action] as readonly Role[]).includes(role);
