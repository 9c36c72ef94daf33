import type { BrandingRequest, PolicyRequest } from '../../api/workspaces.ts';
import { HttpError } from '../../http/errors.ts';
import { planIncludes, type Feature } from '../plans.ts';
import { actorFor, authorize, auditRow, noSuchWorkspace } from './access.ts';
import { checkBranding } from './branding.ts';
import type { WorkspaceBranding, WorkspacePolicy } from './model.ts';
import { parsePolicy, policyReply } from './policy.ts';
import type { WorkspacePorts } from './ports.ts';
import type { WorkspaceAction } from './permissions.ts';

/** An admin or owner of a workspace on a plan with the feature (Team): 403 otherwise. */
async function settingsEditor(workspaceId: string, userId: string, action: WorkspaceAction, feature: Feature, ports: WorkspacePorts) {
  const member = await authorize(workspaceId, userId, action, ports);
  const workspace = await ports.workspaces.get(workspaceId);
  if (!workspace) throw noSuchWorkspace();
  if (!planIncludes(workspace.plan, feature)) {
    throw new HttpError(403, 'forbidden', `A workspace's ${feature} comes with the Team plan.`, { members: { reason: 'plan', plan: workspace.plan, required: 'team' } });
  }
  return member;
}

const roleChanged = () => new HttpError(403, 'forbidden', 'Your role changed meanwhile.', { members: { reason: 'role' } });

/** Replaces the policy every secret, file and request link made inside the workspace must satisfy. */
export async function setPolicy(workspaceId: string, userId: string, body: PolicyRequest, ports: WorkspacePorts): Promise<WorkspacePolicy> {
  const member = await settingsEditor(workspaceId, userId, 'setPolicy', 'policy', ports);
  const policy = parsePolicy(body);
  const audit = auditRow(member, workspaceId, 'policy.updated', workspaceId, { ...policyReply(policy) }, ports.clock.now());
  if (!(await ports.workspaces.setPolicy(workspaceId, policy, actorFor(member, 'setPolicy'), audit))) throw roleChanged();
  return policy;
}

/** Replaces the branding the reveal page shows of secrets sent inside the workspace (display only). */
export async function setBranding(workspaceId: string, userId: string, body: BrandingRequest, ports: WorkspacePorts): Promise<WorkspaceBranding> {
  const member = await settingsEditor(workspaceId, userId, 'setBranding', 'branding', ports);
  const branding = checkBranding(body);
  // The audit row says what changed, not the image: its bytes stay on the workspace.
  const details = { display_name: branding.displayName, logo: branding.logo ? 'set' : null, accent: branding.accent };
  const audit = auditRow(member, workspaceId, 'branding.updated', workspaceId, details, ports.clock.now());
  if (!(await ports.workspaces.setBranding(workspaceId, branding, actorFor(member, 'setBranding'), audit))) throw roleChanged();
  return branding;
}
