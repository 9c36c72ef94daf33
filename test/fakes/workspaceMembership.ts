import type { PlanFacts } from '../../shared/domain/billing/tier.ts';
import type { CheckoutWorkspaces } from '../../shared/domain/billing/ports.ts';
import { isWorkspaceId } from '../../shared/domain/workspaces/access.ts';
import type { WorkspaceMembership, WorkspaceSeat } from '../../shared/domain/workspaces/membership.ts';
import type { Role, Roster, WorkspaceBranding } from '../../shared/domain/workspaces/model.ts';
import { pair, stored, WorkspaceData } from './workspaceData.ts';

/** Both plans as held, as the store reads them. */
const planFacts = (workspace: PlanFacts): PlanFacts => ({
  plan: workspace.plan,
  ...(workspace.contractPlan === undefined ? {} : { contractPlan: workspace.contractPlan }),
});

/** The two reads sending inside a workspace makes (shared/store/workspaceMembership.ts), on the workspace fakes' data. */
export class MemoryWorkspaceMembership implements WorkspaceMembership {
  constructor(readonly data: WorkspaceData = new WorkspaceData()) {}

  async policyFor(workspaceId: string, userId: string): Promise<WorkspaceSeat | null> {
    const member = this.data.members.get(pair(workspaceId, userId));
    const workspace = this.data.storedWorkspaceOf(workspaceId);
    if (!member || !workspace) return null;
    return { role: member.role, ...planFacts(workspace), policy: stored(workspace.policy) };
  }

  async brandingOf(workspaceId: string): Promise<(PlanFacts & { branding: WorkspaceBranding | null }) | null> {
    const workspace = this.data.storedWorkspaceOf(workspaceId);
    if (!workspace) return null;
    const branding = this.data.branding.get(workspaceId);
    return { ...planFacts(workspace), branding: branding ? stored(branding) : null };
  }
}

/** What a Team checkout and a seat change read of a workspace (the same file's DynamoCheckoutWorkspaces). */
export class MemoryCheckoutWorkspaces implements CheckoutWorkspaces {
  constructor(readonly data: WorkspaceData = new WorkspaceData()) {}

  async seatOf(workspaceId: string, userId: string): Promise<{ role: Role; roster: Roster; underContract: boolean } | null> {
    if (!isWorkspaceId(workspaceId)) return null;
    const member = this.data.members.get(pair(workspaceId, userId));
    const roster = this.data.rosters.get(workspaceId);
    if (!member || !roster) return null;
    return {
      role: member.role,
      roster: { seats: roster.seats, used: roster.used, owners: roster.owners, members: roster.members },
      underContract: roster.contractSeats !== undefined,
    };
  }
}
