/** How the workspaces pages name roles, plans and where a member came from. */
import type { MemberSource, Role, WorkspacePlan } from './workspacesApi.ts';

export const roleLabels: Record<Role, string> = { owner: 'Owner', admin: 'Admin', member: 'Member' };

/** What each role may do, as the invite form and the role select describe it. */
export const roleDescriptions: Record<Role, string> = {
  owner: 'everything, including roles and ownership',
  admin: 'invites and removes members (never an owner), sets the policy and branding, reads the audit trail',
  member: 'sees the members and sends secrets in the workspace',
};

export const planLabels: Record<WorkspacePlan, string> = { free: 'Free', pro: 'Pro', team: 'Team', enterprise: 'Enterprise' };

export const sourceLabels: Record<MemberSource, string> = {
  owner: 'Created the workspace',
  invitation: 'Invitation',
  scim: 'Directory (SCIM)',
  sso: 'Single sign-on',
};

export const roleLabel = (role: string): string => roleLabels[role as Role] ?? role;
export const planLabel = (plan: string): string => planLabels[plan as WorkspacePlan] ?? plan;
