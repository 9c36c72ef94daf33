import { BatchGetCommand, GetCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { PlanFacts, TierSource } from '../domain/billing/tier.ts';
import { memberKey, membershipsPartition, userKey, workspaceIdOfListing, workspaceKey } from './items/index.ts';
import { planFactsOf, planProjection } from './planAttributes.ts';

/**
 * A person's plans for their effective tier: their own (the user item's) and those of the
 * workspaces they belong to (their memberships on gsi1, then the workspaces' plans with the
 * member items in BatchGetItem; the layout is items/), each as held (planAttributes.ts: the
 * domain's planInUse decides). Kept apart from the workspaces' stores so the functions that
 * need a tier carry these reads and nothing else.
 */
export class DynamoTierSource implements TierSource {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async plansOf(userId: string): Promise<PlanFacts[]> {
    const [user, memberships] = await Promise.all([
      this.db.send(
        new GetCommand({
          TableName: this.tableName,
          Key: userKey(userId),
          ProjectionExpression: planProjection.expression,
          ExpressionAttributeNames: planProjection.names,
        }),
      ),
      this.db.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :pk',
          ExpressionAttributeValues: { ':pk': membershipsPartition(userId) },
          ProjectionExpression: 'gsi1sk',
        }),
      ),
    ]);
    if (!user.Item) return [];
    const workspaces = (memberships.Items ?? []).map((item) => workspaceIdOfListing(item.gsi1sk));
    const plans: PlanFacts[] = [planFactsOf(user.Item)];
    // The index may still list a membership ended a moment ago: a workspace counts only while
    // its member item (read with it) is there.
    const found = new Map<string, Record<string, unknown>>();
    const at = (key: { pk: string; sk: string }) => `${key.pk}|${key.sk}`;
    const keys = workspaces.flatMap((id) => [workspaceKey(id), memberKey(id, userId)]);
    for (let i = 0; i < keys.length; i += 100) {
      let pending: Record<string, unknown>[] = keys.slice(i, i + 100);
      while (pending.length > 0) {
        const answer = await this.db.send(
          new BatchGetCommand({
            RequestItems: {
              [this.tableName]: {
                Keys: pending,
                ProjectionExpression: `pk, sk, ${planProjection.expression}`,
                ExpressionAttributeNames: planProjection.names,
              },
            },
          }),
        );
        for (const item of answer.Responses?.[this.tableName] ?? []) found.set(`${String(item.pk)}|${String(item.sk)}`, item);
        pending = (answer.UnprocessedKeys?.[this.tableName]?.Keys ?? []) as Record<string, unknown>[];
      }
    }
    for (const id of workspaces) {
      const workspace = found.get(at(workspaceKey(id)));
      if (workspace && found.has(at(memberKey(id, userId)))) plans.push(planFactsOf(workspace));
    }
    return plans;
  }
}
