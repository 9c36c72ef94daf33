import { planIncludes, type Feature } from '../plans.ts';
import { Conflict, Forbidden } from '../refusals.ts';
import { actorFor, authorize, auditRow, noSuchWorkspace } from './access.ts';
import { checkBranding, type BrandingInput } from './branding.ts';
import { workspaceInUse, type WorkspaceBranding, type WorkspacePolicy } from './model.ts';
import { checkAdminGroup, settleAdminGroup } from '../scim/groupPolicy.ts';
import { parsePolicy, policyReply, type PolicyInput } from './policy.ts';
import type { WorkspacePorts } from './ports.ts';
import type { WorkspaceAction } from './permissions.ts';

/** An admin or owner of a workspace on a plan with the feature (Team): forbidden otherwise. */
async function settingsEditor(workspaceId: string, userId: string, action: WorkspaceAction, feature: Feature, ports: WorkspacePorts) {
  return (await settingsContext(workspaceId, userId, action, feature, ports)).member;
}

async function settingsContext(workspaceId: string, userId: string, action: WorkspaceAction, feature: Feature, ports: WorkspacePorts) {
  const member = await authorize(workspaceId, userId, action, ports);
  const workspace = workspaceInUse(await ports.workspaces.get(workspaceId));
  if (!workspace) throw noSuchWorkspace();
  if (!planIncludes(workspace.plan, feature)) {
    throw new Forbidden(`A workspace's ${feature} comes with the Team plan.`, {
      facts: { reason: 'plan', plan: workspace.plan, required: 'team' },
    });
  }
  return { member, workspace };
}

const roleChanged = () => new Forbidden('Your role changed meanwhile.', { facts: { reason: 'role' } });

/**
 * Replaces the policy every secret, file and request link made inside the workspace must satisfy.
 * Its SCIM admin Group (issue 30, docs/adr/0174) is kept when not sent, changed by owners alone
 * (the role the change gives is theirs to give), and its members' roles follow once it is saved.
 */
export async function setPolicy(workspaceId: string, userId: string, rules: PolicyInput, ports: WorkspacePorts): Promise<WorkspacePolicy> {
  // The save is conditioned on the admin Group it was decided from (two owners naming different
  // Groups at once would otherwise leave the first one's members admins), on the version of that
  // Group whose members are made members again (so one leaving it meanwhile is not missed), and
  // on the Group named being there. The loser decides again.
  const groups = ports.scimAdminRoles;
  for (let attempt = 1; ; attempt++) {
    const { member, workspace } = await settingsContext(workspaceId, userId, 'setPolicy', 'policy', ports);
    const previous = workspace.policy.scimAdminGroup ?? null;
    const policy = parsePolicy(rules.scimAdminGroup === undefined ? { ...rules, scimAdminGroup: previous } : rules);
    const next = policy.scimAdminGroup ?? null;
    const moved = next !== previous;
    if (moved && member.role !== 'owner') {
      throw new Forbidden('Only an owner names the SCIM Group whose members are admins.', { facts: { reason: 'role' } });
    }
    if (moved && next !== null) {
      if (!groups) throw new Forbidden('SCIM Groups are not served here.');
      await checkAdminGroup(workspaceId, next, groups);
    }
    // The Group named before, read before the save: its members are members again unless in the new one.
    const former = moved && previous !== null && groups ? await groups.scimGroups.get(workspaceId, previous) : null;
    const now = ports.clock.now();
    const audit = auditRow(member, workspaceId, 'policy.updated', workspaceId, { ...policyReply(policy) }, now);
    const actor = moved ? { userId: member.userId, roles: ['owner' as const] } : actorFor(member, 'setPolicy');
    const wasVersion = previous === null || !groups ? undefined : (former?.version ?? null);
    const adminGroup = moved ? { was: previous, wasVersion, next } : { was: previous };
    if (await ports.workspaces.setPolicy(workspaceId, policy, actor, audit, adminGroup)) {
      // Every save naming a Group settles its roles again (idempotent: nothing is written when nothing moved).
      if (groups && (next !== null || former !== null)) await settleAdminGroup(workspaceId, former, now, groups);
      return policy;
    }
    if (attempt >= policyAttempts) {
      throw new Conflict('The policy or its SCIM admin Group kept changing while it was saved: save it again.');
    }
  }
}

/**
 * Saves tried when the admin Group, the Group it named or the one it names moved between the read
 * and the write (a role taken away meanwhile is a 403 on the next read).
 */
const policyAttempts = 8;

/** Replaces the branding the reveal page shows of secrets sent inside the workspace (display only). */
export async function setBranding(
  workspaceId: string,
  userId: string,
  input: BrandingInput,
  ports: WorkspacePorts,
): Promise<WorkspaceBranding> {
  const member = await settingsEditor(workspaceId, userId, 'setBranding', 'branding', ports);
  const branding = checkBranding(input);
  // The audit row says what changed, not the image: its bytes stay on the workspace.
  const details = { display_name: branding.displayName, logo: branding.logo ? 'set' : null, accent: branding.accent };
  const audit = auditRow(member, workspaceId, 'branding.updated', workspaceId, details, ports.clock.now());
  if (!(await ports.workspaces.setBranding(workspaceId, branding, actorFor(member, 'setBranding'), audit))) throw roleChanged();
  return branding;
}
