import { BatchGetCommand, DeleteCommand, GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type {
  CertificateState,
  ClaimToServe,
  HostedClaim,
  HostingGiveUp,
  HostingRecord,
  HostingStep,
  HostingStore,
  HostingWork,
  StopOrder,
} from '../domain/domains/ports.ts';
import { isConditionFailure } from './client.ts';
import { claimKey, dueUpTo, isOnQueue, stopOrderKey, workQueues } from './items/index.ts';
import { dueEntries } from './workIndex.ts';
import { hostingRecorded, stopDone as stopDoneDelete, stopOrdered, stopRetried } from './workspaceDomains.ts';

/**
 * Hosting (issue 17): where each verified claim's hosting stands, as `hosting_*` attributes of
 * the claim with its next step on the work index (`DOMAIN_HOSTING`), and the stop orders of
 * deleted claims, due there too (`HOSTING_STOP`) until their tenants are gone. Those items are
 * the domain store's (workspaceDomains.ts, which writes the first hosting step on verification
 * and the stop order on deletion): this reads them and sends the domain store's hosting parts.
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
    const [claims, stops] = await Promise.all([
      dueEntries(this.db, this.tableName, workQueues.domainHosting, now, limit),
      dueEntries(this.db, this.tableName, workQueues.hostingStop, now, limit),
    ]);
    const entries = [...claims, ...stops].sort((a, b) => String(a.gsi2sk).localeCompare(String(b.gsi2sk))).slice(0, limit);
    if (entries.length === 0) return [];
    // Keys left unprocessed stay due: the next run has them.
    const { Responses } = await this.db.send(
      new BatchGetCommand({
        RequestItems: { [this.tableName]: { Keys: entries.map((entry) => ({ pk: entry.pk, sk: entry.sk })), ConsistentRead: true } },
      }),
    );
    const byKey = new Map((Responses?.[this.tableName] ?? []).map((item) => [`${String(item.pk)}|${String(item.sk)}`, item]));
    const upTo = dueUpTo(now);
    const work: HostingWork[] = [];
    for (const entry of entries) {
      const item = byKey.get(`${String(entry.pk)}|${String(entry.sk)}`);
      // The index lags the table: an item gone, or taken care of and due later, is not due.
      if (!item || typeof item.gsi2sk !== 'string' || item.gsi2sk > upTo) continue;
      if (item.type === 'domain' && item.state === 'verified' && isOnQueue(workQueues.domainHosting, item.gsi2pk))
        work.push({ serve: toClaim(item) });
      else if (item.type === 'hosting_stop') work.push({ stop: toStopOrder(item) });
    }
    return work;
  }

  async record(claim: ClaimToServe, hosting: HostingRecord, nextAt: number | null): Promise<boolean> {
    try {
      await this.db.send(new UpdateCommand(hostingRecorded(this.tableName, claim, hosting, nextAt)));
      return true;
    } catch (error) {
      ignoreConditionFailure(error);
      return false;
    }
  }

  async orderStop(claim: HostedClaim & { workspaceId: string }, at: number): Promise<void> {
    await this.db.send(new UpdateCommand(stopOrdered(this.tableName, claim, at)));
  }

  async retryStop(order: StopOrder, nextAt: number, reported: boolean): Promise<void> {
    await this.db.send(new UpdateCommand(stopRetried(this.tableName, order, nextAt, reported))).catch(ignoreConditionFailure);
  }

  async stopDone(order: StopOrder): Promise<void> {
    await this.db.send(new DeleteCommand(stopDoneDelete(this.tableName, order))).catch(ignoreConditionFailure);
  }

  /** Where a claim's hosting stands, as last recorded (tests and operators; the schedule reads `due`). */
  async hostingOf(claim: { workspaceId: string; hostname: string; domainId: string }): Promise<HostingRecord | null> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: claimKey(claim.workspaceId, claim.hostname), ConsistentRead: true }),
    );
    return Item && Item.id === claim.domainId && Item.state === 'verified' ? toHosting(Item) : null;
  }

  /** A deleted claim's stop order while its tenant may still exist (tests and operators). */
  async stopOrderOf(domainId: string): Promise<StopOrder | null> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: stopOrderKey(domainId), ConsistentRead: true }));
    return Item ? toStopOrder(Item) : null;
  }
}
