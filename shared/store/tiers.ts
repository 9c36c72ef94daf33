import { BatchGetCommand, GetCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Plan } from '../domain/accounts/model.ts';
import type { TierSource } from '../domain/billing/tier.ts';
import { planOfItem, planProjection } from './planAttributes.ts';

/**
 * A person's plans for their effective tier: their own (the user item's plan) and those of the
 * workspaces they belong to (their memberships on gsi1, `MEMBERSHIPS#<user>`, then the workspaces'
 * plan with the member items in BatchGetItem; the layout is shared/store/workspaceItems.ts's), each
 * the higher of the provider's and a contract's (planAttributes.ts). Kept apart from the
 * workspaces' stores so the functions that need a tier carry these reads and nothing else.
 */
export class DynamoTierSource implements TierSource {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async plansOf(userId: string): Promise<Plan[]> {
    const [user, memberships] = await Promise.all([
      this.db.send(new GetCommand({ TableName: this.tableName, Key: { pk: `USER#${userId}`, sk: 'PROFILE' }, ProjectionExpression: planProjection.expression, ExpressionAttributeNames: planProjection.names })),
      this.db.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :pk',
          ExpressionAttributeValues: { ':pk': `MEMBERSHIPS#${userId}` },
          ProjectionExpression: 'gsi1sk',
        }),
      ),
    ]);
    if (!user.Item) return [];
    const workspaces = (memberships.Items ?? []).map((item) => String(item.gsi1sk).slice('WORKSPACE#'.length));
    const plans: Plan[] = [planOfItem(user.Item)];
    // The index may still list a membership ended a moment ago: a workspace counts only while
    // its member item (read with it) is there.
    const found = new Map<string, Record<string, unknown>>();
    const keys = workspaces.flatMap((id) => [
      { pk: `WORKSPACE#${id}`, sk: 'WORKSPACE' },
      { pk: `WORKSPACE#${id}`, sk: `MEMBER#${userId}` },
    ]);
    for (let i = 0; i < keys.length; i += 100) {
      let pending: Record<string, unknown>[] = keys.slice(i, i + 100);
      while (pending.length > 0) {
        const answer = await this.db.send(
          new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: pending, ProjectionExpression: `pk, sk, ${planProjection.expression}`, ExpressionAttributeNames: planProjection.names } } }),
        );
        for (const item of answer.Responses?.[this.tableName] ?? []) found.set(`${String(item.pk)}|${String(item.sk)}`, item);
        pending = (answer.UnprocessedKeys?.[this.tableName]?.Keys ?? []) as Record<string, unknown>[];
      }
    }
    for (const id of workspaces) {
      const workspace = found.get(`WORKSPACE#${id}|WORKSPACE`);
      if (workspace && found.has(`WORKSPACE#${id}|MEMBER#${userId}`)) plans.push(planOfItem(workspace));
    }
    return plans;
  }
}
