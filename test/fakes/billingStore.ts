import type { SubscriptionRecord } from '../../shared/domain/billing/model.ts';
import type { BillingStore, LinkWrite, SeatChoice } from '../../shared/domain/billing/ports.ts';
import { stored, WorkspaceData, type BillingTargetKey } from './workspaceData.ts';

/**
 * BillingStore in memory (shared/store/billing.ts), on the workspace fakes' data: a subscription
 * followed gives its target what the domain's grant says, the plan (an account's through
 * `data.accounts`, a workspace's on its item) and the first seat choice the roster allows (never
 * below its members, never over a contract's).
 */
export class MemoryBillingStore implements BillingStore {
  constructor(readonly data: WorkspaceData = new WorkspaceData()) {}

  async recordEvent(eventId: string, _now: number): Promise<boolean> {
    if (this.data.providerEvents.has(eventId)) return false;
    this.data.providerEvents.add(eventId);
    return true;
  }

  async subscription(id: string): Promise<SubscriptionRecord | null> {
    const record = this.data.subscriptions.get(id);
    return record ? stored(record) : null;
  }

  async customerOf(userId: string): Promise<string | null> {
    return this.data.billing.get(this.data.billingKey({ kind: 'user', userId }))?.customerId ?? null;
  }

  async keepCustomer(userId: string, customerId: string): Promise<string> {
    const key = this.data.billingKey({ kind: 'user', userId });
    const item = this.data.billing.get(key) ?? this.data.billing.set(key, {}).get(key)!;
    item.customerId ??= customerId;
    return item.customerId;
  }

  async linkedSubscription(target: BillingTargetKey): Promise<string | null> {
    return this.data.billing.get(this.data.billingKey(target))?.subscriptionId ?? null;
  }

  async subscriptionOf(target: BillingTargetKey): Promise<SubscriptionRecord | null> {
    const id = await this.linkedSubscription(target);
    return id === null ? null : this.subscription(id);
  }

  async lowerSeats(workspaceId: string, seats: number): Promise<{ lowered: true; previous: number } | { lowered: false; members: number }> {
    const roster = this.data.rosters.get(workspaceId);
    // The condition a join is checked against is `members < seats`: the two exclude each other.
    if (!roster || roster.members > seats) return { lowered: false, members: roster?.members ?? 0 };
    const previous = roster.seats;
    roster.seats = seats;
    return { lowered: true, previous };
  }

  async restoreSeats(workspaceId: string, lowered: number, previous: number): Promise<void> {
    const roster = this.data.rosters.get(workspaceId);
    // Only what that change lowered: a later change stands.
    if (roster && roster.seats === lowered) roster.seats = previous;
  }

  async applySubscription(
    record: SubscriptionRecord,
    eventId: string,
    now: number,
    link: LinkWrite,
  ): Promise<'applied' | 'recorded' | 'duplicate' | 'stale' | 'contested'> {
    const { data } = this;
    const { target } = record;
    const linkKey = data.billingKey(target.kind === 'user' ? target : { kind: 'workspace', workspaceId: target.workspaceId });
    if (data.providerEvents.has(eventId)) return 'duplicate';
    const before = data.subscriptions.get(record.id);
    if (before && !(before.syncedAt < record.syncedAt)) return 'stale';
    const linked = data.billing.get(linkKey)?.subscriptionId;
    if (link.linked === null ? linked !== undefined : linked !== link.linked) return 'contested';
    const grant = link.mode === 'follow' ? link.grant : null;
    if (grant) {
      // A target that is gone (an account or workspace deleted) has nothing to give: only the event is kept.
      const exists = target.kind === 'user' ? data.accounts.exists(target.userId) : data.workspaces.has(target.workspaceId);
      if (!exists) return (await this.recordEvent(eventId, now)) ? 'applied' : 'duplicate';
    }
    // The first seat choice the roster allows: never below its members, never over a contract's.
    const roster = target.kind === 'workspace' ? data.rosters.get(target.workspaceId) : undefined;
    const allowed = (choice: SeatChoice) =>
      target.kind !== 'workspace' ||
      choice === 'unchanged' ||
      (roster !== undefined && roster.contractSeats === undefined && (choice === 'members' || roster.members <= choice));
    const choice = (grant && grant.seats.length > 0 ? grant.seats : ['unchanged' as const]).find(allowed);
    // No choice allowed: nothing written (the store's last answer).
    if (choice === undefined) return 'stale';
    data.providerEvents.add(eventId);
    data.subscriptions.set(record.id, stored(record));
    if (!grant) return 'recorded';
    const item = data.billing.get(linkKey) ?? data.billing.set(linkKey, {}).get(linkKey)!;
    item.subscriptionId = record.id;
    if (target.kind === 'user') data.accounts.setPlan(target.userId, grant.plan);
    else data.workspaces.get(target.workspaceId)!.workspace.plan = grant.plan;
    if (roster && choice !== 'unchanged') roster.seats = choice === 'members' ? roster.members : choice;
    return 'applied';
  }
}
