import { planIncludes, type Feature } from '../plans.ts';
import { Forbidden } from '../refusals.ts';
import { actorFor, authorize, auditRow, noSuchWorkspace } from './access.ts';
import { checkBranding, type BrandingInput } from './branding.ts';
import { workspaceInUse, type WorkspaceBranding, type WorkspacePolicy } from './model.ts';
import { parsePolicy, policyReply, type PolicyInput } from './policy.ts';
import type { WorkspacePorts } from './ports.ts';
import type { WorkspaceAction } from './permissions.ts';

/** An admin or owner of a workspace on a plan with the feature (Team): forbidden otherwise. */
async function settingsEditor(workspaceId: string, userId: string, action: WorkspaceAction, feature: Feature, ports: WorkspacePorts) {
  const member = await authorize(workspaceId, userId, action, ports);
  const workspace = workspaceInUse(await ports.workspaces.get(workspaceId));
  if (!workspace) throw noSuchWorkspace();
  if (!planIncludes(workspace.plan, feature)) {
    throw new Forbidden(`A workspace's ${feature} comes with the Team plan.`, {
      facts: { reason: 'plan', plan: workspace.plan, required: 'team' },
    });
  }
  return member;
}

const roleChanged = () => new Forbidden('Your role changed meanwhile.', { facts: { reason: 'role' } });

/** Replaces the policy every secret, file and request link made inside the workspace must satisfy. */
export async function setPolicy(workspaceId: string, userId: string, rules: PolicyInput, ports: WorkspacePorts): Promise<WorkspacePolicy> {
  const member = await settingsEditor(workspaceId, userId, 'setPolicy', 'policy', ports);
  const policy = parsePolicy(rules);
  const audit = auditRow(member, workspaceId, 'policy.updated', workspaceId, { ...policyReply(policy) }, ports.clock.now());
  if (!(await ports.workspaces.setPolicy(workspaceId, policy, actorFor(member, 'setPolicy'), audit))) throw roleChanged();
  return policy;
}

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
