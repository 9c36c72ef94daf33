import { BatchGetCommand, DeleteCommand, GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { toIso } from '../clock.ts';
import type { CertificateState, ClaimToServe, HostedClaim, HostingGiveUp, HostingRecord, HostingStep, HostingStore, HostingWork, StopOrder } from '../domain/domains/ports.ts';
import { isConditionFailure } from './client.ts';
import { dueEntries } from './workIndex.ts';
import { claimKey, hostingDue, hostingPrefix, stopDue, stopOrderKey, stopPrefix } from './workspaceDomains.ts';

/**
 * Hosting's items (issue 17), beside the claims' own (workspaceDomains.ts, which writes the first
 * hosting step on verification and the stop order on deletion): where each verified claim's
 * hosting stands, as `hosting_*` attributes of the claim and its next step in the work index
 * (gsi2 `DOMAIN_HOSTING#<shard>`), and the stop orders of deleted claims (`HOSTING_STOP#<id>`),
 * due there too (gsi2 `HOSTING_STOP#<shard>`) until their tenants are gone.
 */
const ignoreConditionFailure = (error: unknown) => {
  if (!isConditionFailure(error)) throw error;
};

function toHosting(item: Record<string, unknown>): HostingRecord {
  return {
    step: (item.hosting_step as HostingStep | undefined) ?? 'due',
    since: Number(item.hosting_since ?? item.verified_at),
    checkedAt: typeof item.hosting_checked_at === 'number' ? item.hosting_checked_at : null,
    tenantId: typeof item.tenant_id === 'string' ? item.tenant_id : null,
    certificate: (item.certificate as CertificateState | null | undefined) ?? null,
    gaveUp: (item.hosting_gave_up as HostingGiveUp | null | undefined) ?? null,
    reported: item.hosting_reported === true,
  };
}

const toClaim = (item: Record<string, unknown>): ClaimToServe => ({
  domainId: String(item.id),
  hostname: String(item.hostname),
  workspaceId: String(item.workspace_id),
  verifiedAt: Number(item.verified_at),
  hosting: toHosting(item),
});

const toStopOrder = (item: Record<string, unknown>): StopOrder => ({
  domainId: String(item.domain_id),
  hostname: String(item.hostname),
  workspaceId: String(item.workspace_id),
  orderedAt: Number(item.ordered_at),
  version: Number(item.version),
  reported: item.reported === true,
});

export class DynamoDomainHosting implements HostingStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async due(now: number, limit: number): Promise<HostingWork[]> {
    const [claims, stops] = await Promise.all([dueEntries(this.db, this.tableName, hostingPrefix, now, limit), dueEntries(this.db, this.tableName, stopPrefix, now, limit)]);
    const entries = [...claims, ...stops].sort((a, b) => String(a.gsi2sk).localeCompare(String(b.gsi2sk))).slice(0, limit);
    if (entries.length === 0) return [];
    // Keys left unprocessed stay due: the next run has them.
    const { Responses } = await this.db.send(
      new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: entries.map((entry) => ({ pk: entry.pk, sk: entry.sk })), ConsistentRead: true } } }),
    );
    const byKey = new Map((Responses?.[this.tableName] ?? []).map((item) => [`${String(item.pk)}|${String(item.sk)}`, item]));
    const upTo = `${toIso(now)}#~`;
    const work: HostingWork[] = [];
    for (const entry of entries) {
      const item = byKey.get(`${String(entry.pk)}|${String(entry.sk)}`);
      // The index lags the table: an item gone, or taken care of and due later, is not due.
      if (!item || typeof item.gsi2sk !== 'string' || item.gsi2sk > upTo) continue;
      if (item.type === 'domain' && item.state === 'verified' && String(item.gsi2pk).startsWith(`${hostingPrefix}#`)) work.push({ serve: toClaim(item) });
      else if (item.type === 'hosting_stop') work.push({ stop: toStopOrder(item) });
    }
    return work;
  }

  async record(claim: ClaimToServe, hosting: HostingRecord, nextAt: number | null): Promise<boolean> {
    const next = nextAt === null ? null : hostingDue(claim.domainId, nextAt);
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: claimKey(claim.workspaceId, claim.hostname),
          UpdateExpression:
            'SET hosting_step = :step, hosting_since = :since, hosting_checked_at = :checked, tenant_id = :tenant, certificate = :certificate, hosting_gave_up = :gaveUp, hosting_reported = :reported' +
            (next ? ', gsi2pk = :partition, gsi2sk = :next' : ' REMOVE gsi2pk, gsi2sk'),
          // Still this claim, and still verified: a claim deleted meanwhile is the caller's to stop.
          ConditionExpression: 'id = :id AND #state = :verified',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':step': hosting.step,
            ':since': hosting.since,
            ':checked': hosting.checkedAt,
            ':tenant': hosting.tenantId,
            ':certificate': hosting.certificate,
            ':gaveUp': hosting.gaveUp,
            ':reported': hosting.reported,
            ':id': claim.domainId,
            ':verified': 'verified',
            ...(next ? { ':partition': next.gsi2pk, ':next': next.gsi2sk } : {}),
          },
        }),
      );
      return true;
    } catch (error) {
      ignoreConditionFailure(error);
      return false;
    }
  }

  async orderStop(claim: HostedClaim & { workspaceId: string }, at: number): Promise<void> {
    const due = stopDue(claim.domainId, at);
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: stopOrderKey(claim.domainId),
        // The first order's time stays (how long it has been stopping); the version moves on.
        UpdateExpression:
          'SET #type = :type, domain_id = :id, workspace_id = :workspace, hostname = :hostname, ordered_at = if_not_exists(ordered_at, :at), reported = if_not_exists(reported, :no), gsi2pk = :partition, gsi2sk = :due ADD version :one',
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: {
          ':type': 'hosting_stop',
          ':id': claim.domainId,
          ':workspace': claim.workspaceId,
          ':hostname': claim.hostname,
          ':at': at,
          ':no': false,
          ':partition': due.gsi2pk,
          ':due': due.gsi2sk,
          ':one': 1,
        },
      }),
    );
  }

  async retryStop(order: StopOrder, nextAt: number, reported: boolean): Promise<void> {
    await this.db
      .send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: stopOrderKey(order.domainId),
          UpdateExpression: 'SET gsi2sk = :next, reported = :reported',
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: { ':next': stopDue(order.domainId, nextAt).gsi2sk, ':reported': reported, ':version': order.version },
        }),
      )
      .catch(ignoreConditionFailure);
  }

  async stopDone(order: StopOrder): Promise<void> {
    await this.db
      .send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: stopOrderKey(order.domainId),
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: { ':version': order.version },
        }),
      )
      .catch(ignoreConditionFailure);
  }

  /** Where a claim's hosting stands, as last recorded (tests and operators; the schedule reads `due`). */
  async hostingOf(claim: { workspaceId: string; hostname: string; domainId: string }): Promise<HostingRecord | null> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: claimKey(claim.workspaceId, claim.hostname), ConsistentRead: true }));
    return Item && Item.id === claim.domainId && Item.state === 'verified' ? toHosting(Item) : null;
  }

  /** A deleted claim's stop order while its tenant may still exist (tests and operators). */
  async stopOrderOf(domainId: string): Promise<StopOrder | null> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: stopOrderKey(domainId), ConsistentRead: true }));
    return Item ? toStopOrder(Item) : null;
  }
}
