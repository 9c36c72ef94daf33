import type { ClaimToServe, HostedClaim, HostingRecord, HostingStore, HostingWork, StopOrder } from '../../shared/domain/domains/ports.ts';
import { dueOrder, pair, WorkspaceData, type ClaimRecord, type StopRecord } from './workspaceData.ts';

const hostingOf = (record: ClaimRecord): HostingRecord => ({
  step: record.hosting.step ?? 'due',
  since: record.hosting.since ?? record.domain.verifiedAt!,
  checkedAt: record.hosting.checkedAt ?? null,
  tenantId: record.hosting.tenantId ?? null,
  certificate: record.hosting.certificate ?? null,
  gaveUp: record.hosting.gaveUp ?? null,
  reported: record.hosting.reported === true,
});

const toClaim = (record: ClaimRecord): ClaimToServe => ({
  domainId: record.domain.id,
  hostname: record.domain.hostname,
  workspaceId: record.domain.workspaceId,
  verifiedAt: record.domain.verifiedAt!,
  hosting: hostingOf(record),
});

const toStopOrder = ({ dueAt: _dueAt, ...order }: StopRecord): StopOrder => ({ ...order });

/**
 * HostingStore in memory (shared/store/domainHosting.ts): where each verified claim's hosting
 * stands and when its next step is due, and the stop orders of deleted claims, whose versions
 * keep an old order's finish from removing a newer one.
 */
export class MemoryHostingStore implements HostingStore {
  constructor(readonly data: WorkspaceData = new WorkspaceData()) {}

  async due(now: number, limit: number): Promise<HostingWork[]> {
    const claims = [...this.data.claims.values()]
      .filter((record) => record.due?.kind === 'hosting' && record.due.at <= now && record.domain.state === 'verified')
      .map((record) => ({ order: dueOrder(record.due!.at, record.domain.id), work: { serve: toClaim(record) } as HostingWork }));
    const stops = [...this.data.stopOrders.values()]
      .filter((order) => order.dueAt <= now)
      .map((order) => ({ order: dueOrder(order.dueAt, order.domainId), work: { stop: toStopOrder(order) } as HostingWork }));
    return [...claims, ...stops]
      .sort((a, b) => (a.order < b.order ? -1 : 1))
      .slice(0, limit)
      .map((entry) => entry.work);
  }

  async record(claim: ClaimToServe, hosting: HostingRecord, nextAt: number | null): Promise<boolean> {
    const record = this.data.claims.get(pair(claim.workspaceId, claim.hostname));
    // Still this claim, and still verified: a claim deleted meanwhile is the caller's to stop.
    if (!record || record.domain.id !== claim.domainId || record.domain.state !== 'verified') return false;
    record.hosting = { ...hosting };
    record.due = nextAt === null ? null : { kind: 'hosting', at: nextAt };
    return true;
  }

  async orderStop(claim: HostedClaim & { workspaceId: string }, at: number): Promise<void> {
    const held = this.data.stopOrders.get(claim.domainId);
    // The first order's time stays (how long it has been stopping); the version moves on.
    this.data.stopOrders.set(claim.domainId, {
      domainId: claim.domainId,
      workspaceId: claim.workspaceId,
      hostname: claim.hostname,
      orderedAt: held?.orderedAt ?? at,
      reported: held?.reported ?? false,
      version: (held?.version ?? 0) + 1,
      dueAt: at,
    });
  }

  async retryStop(order: StopOrder, nextAt: number, reported: boolean): Promise<void> {
    const held = this.data.stopOrders.get(order.domainId);
    if (held && held.version === order.version) Object.assign(held, { dueAt: nextAt, reported });
  }

  async stopDone(order: StopOrder): Promise<void> {
    if (this.data.stopOrders.get(order.domainId)?.version === order.version) this.data.stopOrders.delete(order.domainId);
  }

  /** Where a claim's hosting stands, as last recorded (as DynamoDomainHosting's, for tests). */
  async hostingOf(claim: { workspaceId: string; hostname: string; domainId: string }): Promise<HostingRecord | null> {
    const record = this.data.claims.get(pair(claim.workspaceId, claim.hostname));
    return record && record.domain.id === claim.domainId && record.domain.state === 'verified' ? hostingOf(record) : null;
  }

  /** A deleted claim's stop order while its tenant may still exist. */
  async stopOrderOf(domainId: string): Promise<StopOrder | null> {
    const held = this.data.stopOrders.get(domainId);
    return held ? toStopOrder(held) : null;
  }
}
