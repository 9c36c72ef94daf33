import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { CheckoutWorkspaces } from '../domain/billing/checkout.ts';
import { isWorkspaceId } from '../domain/workspaces/access.ts';
import type { WorkspaceMembership, WorkspaceSeat } from '../domain/workspaces/membership.ts';
import type { Role, WorkspacePolicy } from '../domain/workspaces/model.ts';
import { brandingKey, memberKey, rosterKey, workspaceKey } from './items/index.ts';
import { planFactsOf, planProjection } from './planAttributes.ts';

/**
 * The two items of a workspace's partition that sending inside it reads (items/workspaces.ts):
 * the caller's member item (its `role`) and the workspace's (its plans as held, planAttributes.ts,
 * and `policy`). Kept apart from the workspace store so the secrets, files and requests
 * functions carry these two GetItems and nothing else of workspaces.
 */
export class DynamoWorkspaceMembership implements WorkspaceMembership {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async policyFor(workspaceId: string, userId: string): Promise<WorkspaceSeat | null> {
    // Consistent: a member removed a moment ago sends nothing more, and a policy just set holds
    // the next secret. (Branding has an item of its own, so the workspace item stays small.)
    const [member, workspace] = await Promise.all([
      this.db.send(
        new GetCommand({
          TableName: this.tableName,
          Key: memberKey(workspaceId, userId),
          ConsistentRead: true,
          ProjectionExpression: '#role',
          ExpressionAttributeNames: { '#role': 'role' },
        }),
      ),
      this.db.send(
        new GetCommand({
          TableName: this.tableName,
          Key: workspaceKey(workspaceId),
          ConsistentRead: true,
          ProjectionExpression: `${planProjection.expression}, #policy`,
          ExpressionAttributeNames: { ...planProjection.names, '#policy': 'policy' },
        }),
      ),
    ]);
    if (!member.Item || !workspace.Item) return null;
    return {
      role: member.Item.role as Role,
      ...planFactsOf(workspace.Item),
      policy: (workspace.Item.policy ?? {}) as WorkspacePolicy,
    };
  }

  async brandingOf(workspaceId: string) {
    // Display only, on every reveal of a secret sent inside: eventually consistent is enough.
    const [workspace, branding] = await Promise.all([
      this.db.send(
        new GetCommand({
          TableName: this.tableName,
          Key: workspaceKey(workspaceId),
          ProjectionExpression: planProjection.expression,
          ExpressionAttributeNames: planProjection.names,
        }),
      ),
      this.db.send(new GetCommand({ TableName: this.tableName, Key: brandingKey(workspaceId) })),
    ]);
    if (!workspace.Item) return null;
    const item = branding.Item;
    return {
      ...planFactsOf(workspace.Item),
      branding: item
        ? {
            displayName: String(item.display_name),
            logo: (item.logo as string | null) ?? null,
            accent: (item.accent as string | null) ?? null,
          }
        : null,
    };
  }
}

/** What a Team checkout and a seat change read of a workspace: the caller's role, the roster (members, seats used), and whether a contract sets its seats. */
export class DynamoCheckoutWorkspaces implements CheckoutWorkspaces {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async seatOf(workspaceId: string, userId: string) {
    if (!isWorkspaceId(workspaceId)) return null;
    const [member, roster] = await Promise.all([
      this.db.send(new GetCommand({ TableName: this.tableName, Key: memberKey(workspaceId, userId), ConsistentRead: true })),
      this.db.send(new GetCommand({ TableName: this.tableName, Key: rosterKey(workspaceId), ConsistentRead: true })),
    ]);
    if (!member.Item || !roster.Item) return null;
    return {
      role: member.Item.role as Role,
      roster: {
        seats: Number(roster.Item.seats),
        used: Number(roster.Item.used),
        owners: Number(roster.Item.owners),
        members: Number(roster.Item.members),
      },
      // Sales' command (scripts/set-plan.ts) sets `contract_seats` with an Enterprise contract.
      underContract: roster.Item.contract_seats !== undefined,
    };
  }
}
