import { GetCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Plan } from '../domain/accounts/model.ts';
import type { AccountContract, ContractPlanStore, ContractRecord, WorkspaceContract } from '../domain/contractPlans.ts';
import type { AuditRow } from '../domain/workspaces/model.ts';
import { isCancelledByCondition, isConditionFailure } from './client.ts';
import { cancellationCodes, rosterKey, toAuditItem, workspaceKey } from './workspaceItems.ts';

/**
 * Contract plans (shared/domain/contractPlans.ts), written by sales' admin command alone:
 * `contract_plan` beside the provider's `plan` on the account's item (`USER#<id>`/`PROFILE`) or
 * the workspace's (`WORKSPACE#<id>`/`WORKSPACE`; readers take the higher, planAttributes.ts),
 * with who changed it, when and why (`contract_plan_changed_by`, `_at`, `contract_plan_note`).
 * A workspace's contract also sets its roster's `seats` (and `contract_seats`, what the contract
 * says, for the provider's events to leave alone) under `members <= seats`, the condition every
 * seat change and join is checked against, in one transaction with its audit row.
 */
const userKey = (id: string) => ({ pk: `USER#${id}`, sk: 'PROFILE' });
const emailKey = (email: string) => ({ pk: `EMAIL#${email}`, sk: 'EMAIL' });

// Each attribute holds a plan's name as its one writer wrote it (the provider's events, sales'
// command): read as written, which of the two counts is the domain's (highestPlan).
const providerOf = (item: Record<string, unknown>): Plan => item.plan as Plan;
const contractOf = (item: Record<string, unknown>): Plan | null => (typeof item.contract_plan === 'string' ? (item.contract_plan as Plan) : null);

/** The item's contract plan and its record: set with a plan, removed (the record kept) without. */
function contractUpdate(plan: Plan | null, record: ContractRecord) {
  const recorded = 'contract_plan_changed_at = :at, contract_plan_changed_by = :by, contract_plan_note = :note';
  return {
    UpdateExpression: plan === null ? `SET ${recorded} REMOVE contract_plan` : `SET contract_plan = :plan, ${recorded}`,
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeValues: { ':at': record.at, ':by': record.by, ':note': record.note, ...(plan === null ? {} : { ':plan': plan }) },
  };
}

export class DynamoContractPlans implements ContractPlanStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async account(email: string): Promise<AccountContract | null> {
    const { Item: address } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: emailKey(email), ConsistentRead: true }));
    if (!address) return null;
    const { Item: user } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: userKey(String(address.user_id)), ConsistentRead: true }));
    if (!user) return null;
    return { userId: String(user.id), email: String(user.email), providerPlan: providerOf(user), contractPlan: contractOf(user) };
  }

  async workspace(workspaceId: string): Promise<WorkspaceContract | null> {
    const read = (Key: Record<string, string>) => this.db.send(new GetCommand({ TableName: this.tableName, Key, ConsistentRead: true }));
    const [{ Item: workspace }, { Item: roster }] = await Promise.all([read(workspaceKey(workspaceId)), read(rosterKey(workspaceId))]);
    if (!workspace || !roster) return null;
    return {
      workspaceId,
      name: String(workspace.name),
      providerPlan: providerOf(workspace),
      contractPlan: contractOf(workspace),
      seats: Number(roster.seats),
      members: Number(roster.members),
    };
  }

  async setAccountPlan(userId: string, plan: Plan | null, record: ContractRecord): Promise<boolean> {
    try {
      await this.db.send(new UpdateCommand({ TableName: this.tableName, Key: userKey(userId), ...contractUpdate(plan, record) }));
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async setWorkspacePlan(workspaceId: string, plan: Plan | null, seats: number, record: ContractRecord, audit: AuditRow): Promise<'set' | 'not_found' | 'below_members'> {
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            { Update: { TableName: this.tableName, Key: workspaceKey(workspaceId), ...contractUpdate(plan, record) } },
            {
              Update: {
                TableName: this.tableName,
                Key: rosterKey(workspaceId),
                UpdateExpression: plan === null ? 'SET seats = :seats REMOVE contract_seats' : 'SET seats = :seats, contract_seats = :seats',
                ConditionExpression: 'members <= :seats',
                ExpressionAttributeValues: { ':seats': seats },
              },
            },
            { Put: { TableName: this.tableName, Item: toAuditItem(audit) } },
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
