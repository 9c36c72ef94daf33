import type { Plan } from '../../shared/domain/accounts/model.ts';
import type { AccountContract, ContractPlanStore, ContractRecord, WorkspaceContract } from '../../shared/domain/contractPlans.ts';
import type { AuditRow } from '../../shared/domain/workspaces/model.ts';
import { WorkspaceData } from './workspaceData.ts';

/**
 * ContractPlanStore in memory (shared/store/contractPlans.ts): a contract plan beside the
 * provider's, and a workspace's seats with it only while its members fit in them.
 */
export class MemoryContractPlans implements ContractPlanStore {
  constructor(readonly data: WorkspaceData = new WorkspaceData()) {}

  async account(email: string): Promise<AccountContract | null> {
    const row = this.data.accounts.byEmail(email);
    return row ? { userId: row.userId, email: row.email, providerPlan: row.plan, contractPlan: row.contractPlan } : null;
  }

  async workspace(workspaceId: string): Promise<WorkspaceContract | null> {
    const record = this.data.workspaces.get(workspaceId);
    const roster = this.data.rosters.get(workspaceId);
    if (!record || !roster) return null;
    return {
      workspaceId,
      name: record.workspace.name,
      providerPlan: record.workspace.plan,
      contractPlan: record.contractPlan,
      seats: roster.seats,
      members: roster.members,
    };
  }

  async setAccountPlan(userId: string, plan: Plan | null, record: ContractRecord): Promise<boolean> {
    return this.data.accounts.setContractPlan(userId, plan, record);
  }

  async setWorkspacePlan(
    workspaceId: string,
    plan: Plan | null,
    seats: number,
    record: ContractRecord,
    audit: AuditRow,
  ): Promise<'set' | 'not_found' | 'below_members'> {
    const held = this.data.workspaces.get(workspaceId);
    const roster = this.data.rosters.get(workspaceId);
    if (!held) return 'not_found';
    if (!roster || roster.members > seats) return 'below_members';
    held.contractPlan = plan;
    held.contract = { ...record };
    roster.seats = seats;
    if (plan === null) delete roster.contractSeats;
    else roster.contractSeats = seats;
    this.data.writeAudit(audit);
    return 'set';
  }
}
