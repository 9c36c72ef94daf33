/**
 * Sending inside a workspace (interface §4.7): what the secrets, files and requests groups need
 * of workspaces when something is created with a `workspace_id`, and nothing more, so their
 * functions carry two reads instead of the workspaces' store. Membership decides whether the
 * caller may send there and which policy holds them; it never grants access to anything sent.
 */
import { planInUse, type PlanFacts } from '../billing/tier.ts';
import { planIncludes } from '../plans.ts';
import { Forbidden } from '../refusals.ts';
import { isWorkspaceId } from './access.ts';
import type { Role, WorkspaceBranding, WorkspacePolicy } from './model.ts';
import { assertPolicy, type PolicyCandidate } from './policy.ts';

/** The caller's place in a workspace, as sending needs it. */
export interface WorkspaceSeat extends PlanFacts {
  role: Role;
  policy: WorkspacePolicy;
}

/** The read that sending inside a workspace makes. */
export interface WorkspaceMembership {
  /** The member's role with the workspace's plan and policy; null for a non-member or an unknown workspace. */
  policyFor(workspaceId: string, userId: string): Promise<WorkspaceSeat | null>;
  /** The workspace's plan as held (`planInUse` decides) and its branding (null: none set, or no such workspace). */
  brandingOf(workspaceId: string): Promise<(PlanFacts & { branding: WorkspaceBranding | null }) | null>;
}

export interface WorkspaceMembershipPorts {
  workspaceMembership: WorkspaceMembership;
}

const notAMember = () => new Forbidden('You are not a member of this workspace.', { facts: { reason: 'not_a_member' } });

/**
 * The policy that holds what `userId` creates in the workspace. Forbidden (`not_a_member`) alike
 * for an anonymous caller, a non-member and a workspace that does not exist (or a malformed id):
 * the creating routes list 403, and a 404 would tell an outsider which ids are workspaces.
 *
 * Any role sends (sending is what members do), and so does an API key of a member: the key
 * acts for its user, its `secrets:write` scope is checked by the route, and the policy holds it
 * exactly as it holds a session; "an API key administers nothing" is about the workspaces'
 * own routes. The plan is not consulted: a policy set under Team keeps applying after the plan
 * drops (a security team's rule must not lapse with a payment), and a workspace that never had
 * Team has no policy to apply.
 */
export async function workspacePolicyFor(
  workspaceId: string,
  userId: string | null,
  ports: WorkspaceMembershipPorts,
): Promise<WorkspacePolicy> {
  // A malformed id names no workspace: refused without a read.
  const seat = userId !== null && isWorkspaceId(workspaceId) ? await ports.workspaceMembership.policyFor(workspaceId, userId) : null;
  if (!seat) throw notAMember();
  return seat.policy;
}

/** Forbidden unless `userId` is a member of the workspace and `candidate` satisfies its policy (`policy_violation`, every rule broken). */
export async function assertSendInWorkspace(
  workspaceId: string,
  userId: string | null,
  candidate: PolicyCandidate,
  ports: WorkspaceMembershipPorts,
): Promise<void> {
  assertPolicy(await workspacePolicyFor(workspaceId, userId, ports), candidate);
}

/**
 * What the reveal page shows of a secret sent inside a workspace: its branding, display only
 * (the page frames it as "sent from <name> on Hushlink" and never lets it replace its own
 * text), while the workspace's plan includes branding; null otherwise.
 */
export async function revealBranding(workspaceId: string | undefined, ports: WorkspaceMembershipPorts): Promise<WorkspaceBranding | null> {
  if (workspaceId === undefined) return null;
  const found = await ports.workspaceMembership.brandingOf(workspaceId);
  return found && planIncludes(planInUse(found), 'branding') ? found.branding : null;
}
