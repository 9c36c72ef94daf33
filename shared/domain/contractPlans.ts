import type { Clock } from '../clock.ts';
import { normalizeEmail, type Plan } from './accounts/model.ts';
import { givesPlan } from './billing/model.ts';
import type { BillingStore } from './billing/ports.ts';
import { highestPlan } from './billing/tier.ts';
import { plans, planTable } from './plans.ts';
import { systemAuditRow } from './workspaces/access.ts';
import type { AuditRow } from './workspaces/model.ts';

/**
 * Plans sold by contract (issue 16): Enterprise is by enquiry only, and sales set it with an
 * admin command (scripts/set-plan.ts), never through the API. A contract plan is held apart
 * from the plan the payment provider's events write (billing/tier.ts, `PlanFacts`), so a
 * subscription starting or ending never changes it; a workspace's contract also sets its seats,
 * never below its members (the condition every seat change and join is checked against).
 */

/** The plans the command sets: those the plan table does not sell in the product. */
export const contractPlans: readonly Plan[] = plans.filter((plan) => !planTable[plan].selfServe);

export type ContractTarget = { kind: 'account'; email: string } | { kind: 'workspace'; workspaceId: string };

export interface ContractPlanRequest {
  target: ContractTarget;
  /** The contract's plan; null takes the contract away. */
  plan: Plan | null;
  /** A workspace's seats under the contract (required with a plan, refused for an account). */
  seats: number | null;
  /** Why, and who (sales' own name for themselves): kept with the change. */
  note: string;
  by: string;
  dryRun: boolean;
}

/** Who changed a contract, when and why; kept beside it on the account's or workspace's item. */
export interface ContractRecord {
  at: number;
  by: string;
  note: string;
}

export interface AccountContract {
  userId: string;
  email: string;
  /** What the provider's events gave (`plan`), and the contract's (`contract_plan`). */
  providerPlan: Plan;
  contractPlan: Plan | null;
}

export interface WorkspaceContract {
  workspaceId: string;
  name: string;
  providerPlan: Plan;
  contractPlan: Plan | null;
  seats: number;
  members: number;
}

export interface ContractPlanStore {
  account(email: string): Promise<AccountContract | null>;
  workspace(workspaceId: string): Promise<WorkspaceContract | null>;
  /** False when the account is gone. */
  setAccountPlan(userId: string, plan: Plan | null, record: ContractRecord): Promise<boolean>;
  /** The plan (or none) and the seats, only while the members fit in them, with the audit row. */
  setWorkspacePlan(
    workspaceId: string,
    plan: Plan | null,
    seats: number,
    record: ContractRecord,
    audit: AuditRow,
  ): Promise<'set' | 'not_found' | 'below_members'>;
}

export interface ContractPlanPorts {
  contracts: ContractPlanStore;
  billing: Pick<BillingStore, 'subscriptionOf'>;
  clock: Clock;
}

/** An account's or workspace's plans at one moment: the contract's, and the one in use (the higher of it and the provider's). */
export interface ContractState {
  contractPlan: Plan | null;
  plan: Plan;
  /** A workspace's seats. */
  seats?: number;
}

export type ContractTargetFound =
  | { kind: 'account'; userId: string; email: string }
  | { kind: 'workspace'; workspaceId: string; name: string; members: number };

export type ContractPlanResult =
  | { outcome: 'changed' | 'dry_run' | 'unchanged'; target: ContractTargetFound; before: ContractState; after: ContractState }
  | { outcome: 'not_found'; target: ContractTarget }
  | { outcome: 'below_members'; target: ContractTargetFound; seats: number };

const inUse = (providerPlan: Plan, contractPlan: Plan | null): Plan =>
  highestPlan(contractPlan === null ? [providerPlan] : [providerPlan, contractPlan]);

/**
 * Sets (or takes away) an account's or a workspace's contract plan, as sales asked: the state
 * before and after, or why not. A dry run reads and answers the same, and writes nothing.
 * Taking away what is not there changes nothing.
 */
export async function setContractPlan(request: ContractPlanRequest, ports: ContractPlanPorts): Promise<ContractPlanResult> {
  const record: ContractRecord = { at: ports.clock.now(), by: request.by, note: request.note };
  if (request.target.kind === 'account') {
    const account = await ports.contracts.account(normalizeEmail(request.target.email));
    if (!account) return { outcome: 'not_found', target: request.target };
    const target: ContractTargetFound = { kind: 'account', userId: account.userId, email: account.email };
    const before = { contractPlan: account.contractPlan, plan: inUse(account.providerPlan, account.contractPlan) };
    const after = { contractPlan: request.plan, plan: inUse(account.providerPlan, request.plan) };
    if (request.plan === null && account.contractPlan === null) return { outcome: 'unchanged', target, before, after };
    if (request.dryRun) return { outcome: 'dry_run', target, before, after };
    const found = await ports.contracts.setAccountPlan(account.userId, request.plan, record);
    return found ? { outcome: 'changed', target, before, after } : { outcome: 'not_found', target: request.target };
  }

  return setWorkspaceContract(request.target, request, record, ports);
}

/** Members joining between the read and the write refuse the seats counted: taking a contract away counts again, this often in all. */
const removalAttempts = 3;

async function setWorkspaceContract(
  requested: Extract<ContractTarget, { kind: 'workspace' }>,
  request: ContractPlanRequest,
  record: ContractRecord,
  ports: ContractPlanPorts,
): Promise<ContractPlanResult> {
  for (let attempt = 1; ; attempt++) {
    const workspace = await ports.contracts.workspace(requested.workspaceId);
    if (!workspace) return { outcome: 'not_found', target: requested };
    const target: ContractTargetFound = {
      kind: 'workspace',
      workspaceId: workspace.workspaceId,
      name: workspace.name,
      members: workspace.members,
    };
    const before = {
      contractPlan: workspace.contractPlan,
      plan: inUse(workspace.providerPlan, workspace.contractPlan),
      seats: workspace.seats,
    };
    if (request.plan === null && workspace.contractPlan === null) return { outcome: 'unchanged', target, before, after: before };
    const seats = request.plan === null ? await seatsWithoutContract(workspace, ports) : (request.seats ?? workspace.seats);
    if (seats < workspace.members) return { outcome: 'below_members', target, seats };
    const after = { contractPlan: request.plan, plan: inUse(workspace.providerPlan, request.plan), seats };
    if (request.dryRun) return { outcome: 'dry_run', target, before, after };
    const audit = systemAuditRow(
      workspace.workspaceId,
      request.plan === null ? 'plan.contract_removed' : 'plan.contract_set',
      workspace.workspaceId,
      {
        plan: request.plan,
        seats,
        previous_plan: workspace.contractPlan,
        previous_seats: workspace.seats,
        note: request.note,
        by: request.by,
      },
      record.at,
    );
    const outcome = await ports.contracts.setWorkspacePlan(workspace.workspaceId, request.plan, seats, record, audit);
    if (outcome === 'set') return { outcome: 'changed', target, before, after };
    if (outcome === 'not_found') return { outcome, target: requested };
    // Members joined since the read: the seats sales asked for are refused, the seats left are counted again.
    if (request.plan !== null || attempt === removalAttempts) {
      const members = (await ports.contracts.workspace(workspace.workspaceId))?.members ?? workspace.members;
      return { outcome: 'below_members', target: { ...target, members }, seats };
    }
  }
}

/**
 * A workspace's seats once its contract ends: what a live Team subscription pays for, else what
 * an ended Team leaves (its members: no one new joins); never below the members.
 */
async function seatsWithoutContract(workspace: WorkspaceContract, ports: ContractPlanPorts): Promise<number> {
  const subscription = await ports.billing.subscriptionOf({ kind: 'workspace', workspaceId: workspace.workspaceId });
  const paid = subscription && subscription.plan === 'team' && givesPlan(subscription.status) ? subscription.seats : 0;
  return Math.max(paid, workspace.members);
}
