import { GetCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Plan } from '../domain/accounts/model.ts';
import type { AccountContract, ContractPlanStore, ContractRecord, WorkspaceContract } from '../domain/contractPlans.ts';
import type { AuditRow } from '../domain/workspaces/model.ts';
import { isCancelledByCondition, isConditionFailure } from './client.ts';
import { emailKey, rosterKey, userKey, workspaceKey } from './items/index.ts';
import { planFactsOf } from './planAttributes.ts';
import { userContractPlanWrite } from './users.ts';
import { auditWrite, cancellationCodes } from './workspaceItems.ts';
import { contractSeats } from './workspaceRoster.ts';
import { workspaceContractPlanWrite } from './workspaces.ts';

/**
 * Contract plans (shared/domain/contractPlans.ts), written by sales' admin command alone:
 * `contract_plan` beside the provider's `plan` on the account's or the workspace's item, with who
 * changed it, when and why (planAttributes.ts). A workspace's contract also sets its roster's
 * `seats` (and `contract_seats`, what the contract says, for the provider's events to leave
 * alone) under `members <= seats`, the condition every seat change and join is checked against,
 * in one transaction with its audit row. Every write is its item's owner's part (the users',
 * the workspaces', the roster's store, and the audit row's).
 */
export class DynamoContractPlans implements ContractPlanStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async account(email: string): Promise<AccountContract | null> {
    const { Item: address } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: emailKey(email), ConsistentRead: true }));
    if (!address) return null;
    const { Item: user } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: userKey(String(address.user_id)), ConsistentRead: true }),
    );
    if (!user) return null;
    // Each plan as its one writer wrote it: which counts is the domain's (planInUse).
    const plans = planFactsOf(user);
    return { userId: String(user.id), email: String(user.email), providerPlan: plans.plan, contractPlan: plans.contractPlan ?? null };
  }

  async workspace(workspaceId: string): Promise<WorkspaceContract | null> {
    const read = (Key: Record<string, string>) => this.db.send(new GetCommand({ TableName: this.tableName, Key, ConsistentRead: true }));
    const [{ Item: workspace }, { Item: roster }] = await Promise.all([read(workspaceKey(workspaceId)), read(rosterKey(workspaceId))]);
    if (!workspace || !roster) return null;
    const plans = planFactsOf(workspace);
    return {
      workspaceId,
      name: String(workspace.name),
      providerPlan: plans.plan,
      contractPlan: plans.contractPlan ?? null,
      seats: Number(roster.seats),
      members: Number(roster.members),
    };
  }

  async setAccountPlan(userId: string, plan: Plan | null, record: ContractRecord): Promise<boolean> {
    try {
      await this.db.send(new UpdateCommand(userContractPlanWrite(this.tableName, userId, plan, record).Update!));
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async setWorkspacePlan(
    workspaceId: string,
    plan: Plan | null,
    seats: number,
    record: ContractRecord,
    audit: AuditRow,
  ): Promise<'set' | 'not_found' | 'below_members'> {
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            workspaceContractPlanWrite(this.tableName, workspaceId, plan, record),
            contractSeats(this.tableName, workspaceId, seats, plan !== null),
            auditWrite(this.tableName, audit),
          ],
        }),
      );
      return 'set';
    } catch (error) {
      if (!isCancelledByCondition(error)) throw error;
      return cancellationCodes(error)[0] === 'ConditionalCheckFailed' ? 'not_found' : 'below_members';
    }
  }
}
