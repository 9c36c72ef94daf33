import type { Domain, DomainCheckError, DomainStore, HostClaim } from '../../shared/domain/domains/model.ts';
import type { AuditRow } from '../../shared/domain/workspaces/model.ts';
import type { Actor } from '../../shared/domain/workspaces/ports.ts';
import { dueOrder, pair, stored, WorkspaceData, type ClaimRecord } from './workspaceData.ts';

/** When the schedule checks a pending claim again after a check (the store's `recheckEveryMs`). */
const recheckEveryMs = 10 * 60 * 1000;

/**
 * DomainStore in memory (shared/store/workspaceDomains.ts): one claim of a hostname per
 * workspace, one verified claim per hostname, the schedule's list of pending claims, and a stop
 * order left by every verified claim deleted (hosting's, hostingStore.ts).
 */
export class MemoryDomainStore implements DomainStore {
  constructor(readonly data: WorkspaceData = new WorkspaceData()) {}

  async claim(domain: Domain, actor: Actor, audit: AuditRow): Promise<'claimed' | 'duplicate' | 'refused'> {
    const { data } = this;
    const key = pair(domain.workspaceId, domain.hostname);
    if (data.claims.has(key)) return 'duplicate';
    if (data.domainPointers.has(domain.id) || !data.actorHolds(domain.workspaceId, actor)) return 'refused';
    // Written as new, whatever the caller's record said of checks; due at the schedule's next run.
    data.claims.set(key, {
      domain: { ...stored(domain), verifiedAt: null, lastCheckedAt: null, lastError: null },
      due: { kind: 'check', at: domain.createdAt },
      hosting: {},
    });
    data.domainPointers.set(domain.id, { workspaceId: domain.workspaceId, hostname: domain.hostname });
    data.writeAudit(audit);
    return 'claimed';
  }

  /** The claim at the domain's place, if it is still that claim. */
  private held(domain: Pick<Domain, 'id' | 'workspaceId' | 'hostname'>): ClaimRecord | null {
    const record = this.data.claims.get(pair(domain.workspaceId, domain.hostname));
    return record && record.domain.id === domain.id ? record : null;
  }

  async get(id: string): Promise<Domain | null> {
    const pointer = this.data.domainPointers.get(id);
    const record = pointer ? this.held({ id, ...pointer }) : null;
    return record ? stored(record.domain) : null;
  }

  async list(workspaceId: string): Promise<Domain[]> {
    return [...this.data.claims.values()]
      .filter((record) => record.domain.workspaceId === workspaceId)
      .map((record) => stored(record.domain))
      .sort((a, b) => a.createdAt - b.createdAt || a.hostname.localeCompare(b.hostname));
  }

  async verifiedClaim(hostname: string): Promise<HostClaim | null> {
    const held = this.data.hostnames.get(hostname);
    return held ? { hostname, domainId: held.domainId, workspaceId: held.workspaceId } : null;
  }

  async verify(domain: Domain, now: number, audit: AuditRow): Promise<'verified' | 'already' | 'taken' | 'gone'> {
    const record = this.held(domain);
    if (record?.domain.state !== 'pending') return (await this.get(domain.id))?.state === 'verified' ? 'already' : 'gone';
    const holder = this.data.hostnames.get(domain.hostname);
    if (holder && holder.domainId !== domain.id) return 'taken';
    this.data.hostnames.set(domain.hostname, {
      hostname: domain.hostname,
      domainId: domain.id,
      workspaceId: domain.workspaceId,
      verifiedAt: now,
    });
    Object.assign(record.domain, { state: 'verified', verifiedAt: now, lastCheckedAt: now, lastError: null } satisfies Partial<Domain>);
    // Off the checks' list and onto hosting's, due at the schedule's next run.
    record.hosting = { step: 'due', since: now };
    record.due = { kind: 'hosting', at: now };
    this.data.writeAudit(audit);
    return 'verified';
  }

  async recordCheck(domain: Domain, now: number, error: DomainCheckError): Promise<void> {
    const record = this.held(domain);
    if (record?.domain.state !== 'pending') return;
    record.domain.lastCheckedAt = now;
    record.domain.lastError = error;
    // Still on the schedule's list: checked again later. Off it: recorded without putting it back.
    if (record.due) record.due = { kind: record.due.kind, at: now + recheckEveryMs };
  }

  async remove(domain: Domain, actor: Actor, audit: AuditRow, releaseSsoDomain?: string): Promise<boolean> {
    const { data } = this;
    // Deleted meanwhile by someone else, who wrote its audit row.
    if (!this.held(domain)) return true;
    if (!data.actorHolds(domain.workspaceId, actor)) return false;
    data.claims.delete(pair(domain.workspaceId, domain.hostname));
    data.domainPointers.delete(domain.id);
    data.writeAudit(audit);
    if (data.hostnames.get(domain.hostname)?.domainId === domain.id) {
      data.hostnames.delete(domain.hostname);
      // A claim that held its hostname may have a tenant serving it: the order to stop it goes with the claim.
      data.stopOrders.set(domain.id, {
        domainId: domain.id,
        workspaceId: domain.workspaceId,
        hostname: domain.hostname,
        orderedAt: audit.at,
        version: 1,
        reported: false,
        dueAt: audit.at,
      });
    }
    if (releaseSsoDomain !== undefined && data.ssoDomains.get(releaseSsoDomain)?.workspaceId === domain.workspaceId)
      data.ssoDomains.delete(releaseSsoDomain);
    return true;
  }

  async pendingDue(now: number, limit: number): Promise<Domain[]> {
    return [...this.data.claims.values()]
      .filter((record) => record.due?.kind === 'check' && record.due.at <= now)
      .sort((a, b) => (dueOrder(a.due!.at, a.domain.id) < dueOrder(b.due!.at, b.domain.id) ? -1 : 1))
      .slice(0, limit)
      .filter((record) => record.domain.state === 'pending')
      .map((record) => stored(record.domain));
  }

  async stopChecking(domain: Domain): Promise<void> {
    const record = this.held(domain);
    // Verified meanwhile, its entry is hosting's now: left alone.
    if (record && record.domain.state === 'pending') record.due = null;
  }
}
