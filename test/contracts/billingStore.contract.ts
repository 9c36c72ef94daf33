import { beforeEach, describe, expect, it } from 'vitest';
import type { SubscriptionRecord } from '../../shared/domain/billing/model.ts';
import type { LinkWrite } from '../../shared/domain/billing/ports.ts';
import { newEventId, newUserId, newWorkspaceId } from '../../shared/ids.ts';
import {
  audit,
  day,
  follow,
  join,
  makeWorkspace,
  newAddress,
  onTeam,
  setSeats,
  t0,
  teamRecord,
  type MadeWorkspace,
} from './workspaceFixtures.ts';
import type { MakeWorkspaceWorld, WorkspaceWorld } from './workspaceWorld.ts';

/**
 * The BillingStore port's contract (shared/store/billing.ts): events applied once, a newer read
 * never overwritten by an older one, one live subscription per target (its link moved only by a
 * write conditional on the id it was decided on), the plan and seats given in the same write,
 * seats never below the members and never over a contract's.
 */
export function describeBillingStoreContract(name: string, make: MakeWorkspaceWorld): void {
  describe(`BillingStore contract: ${name}`, () => {
    let world: WorkspaceWorld;
    let made: MadeWorkspace;
    let ws: string;
    beforeEach(async () => {
      world = await make();
      made = await makeWorkspace(world);
      ws = made.workspace.id;
    });
    /** Applies the record: followed (granting what it grants) while the target links `link`, or as `link` says. */
    const apply = (record: SubscriptionRecord, link: LinkWrite | string | null = null, eventId = newEventId()) =>
      world.billing.applySubscription(record, eventId, t0, typeof link === 'string' || link === null ? follow(record, link) : link);
    const seats = async () => (await world.workspaces.roster(ws))!.seats;
    const proRecord = (userId: string, overrides: Partial<SubscriptionRecord> = {}): SubscriptionRecord => ({
      ...teamRecord(made),
      target: { kind: 'user', userId },
      plan: 'pro',
      seats: 1,
      ...overrides,
    });

    it('records an event once', async () => {
      const id = newEventId();
      expect(await world.billing.recordEvent(id, t0)).toBe(true);
      expect(await world.billing.recordEvent(id, t0)).toBe(false);
    });

    it('keeps an account’s first customer', async () => {
      const userId = newUserId();
      expect(await world.billing.customerOf(userId)).toBeNull();
      expect(await world.billing.keepCustomer(userId, 'cus_first')).toBe('cus_first');
      expect(await world.billing.keepCustomer(userId, 'cus_second')).toBe('cus_first');
      expect(await world.billing.customerOf(userId)).toBe('cus_first');
    });

    it('applies a Team subscription: linked, the workspace on Team with the seats paid for', async () => {
      const record = teamRecord(made, { seats: 4 });
      expect(await apply(record)).toBe('applied');
      expect(await world.billing.subscription(record.id)).toEqual(record);
      expect(await world.billing.linkedSubscription({ kind: 'workspace', workspaceId: ws })).toBe(record.id);
      expect(await world.billing.subscriptionOf({ kind: 'workspace', workspaceId: ws })).toEqual(record);
      expect((await world.workspaces.get(ws))!.plan).toBe('team');
      expect(await seats()).toBe(4);
      expect(await world.billing.subscription('sub_none')).toBeNull();
      expect(await world.billing.subscriptionOf({ kind: 'workspace', workspaceId: newWorkspaceId() })).toBeNull();
    });

    it('applies an event once, and never an older read over a newer one', async () => {
      const record = teamRecord(made, { seats: 4, syncedAt: t0 + 10 });
      const eventId = newEventId();
      await apply(record, null, eventId);
      expect(await apply({ ...record, seats: 6, syncedAt: t0 + 20 }, record.id, eventId)).toBe('duplicate');
      expect(await apply({ ...record, seats: 6, syncedAt: t0 + 10 }, record.id)).toBe('stale');
      expect(await apply({ ...record, seats: 6, syncedAt: t0 + 5 }, record.id)).toBe('stale');
      expect(await seats()).toBe(4);
      expect(await apply({ ...record, seats: 6, syncedAt: t0 + 20 }, record.id)).toBe('applied');
      expect(await seats()).toBe(6);
    });

    it('writes nothing when the target’s link is no longer the one the decision read', async () => {
      const first = teamRecord(made);
      await apply(first);
      const second = teamRecord(made, { seats: 9 });
      const eventId = newEventId();
      expect(await apply(second, null, eventId)).toBe('contested');
      expect(await apply(second, 'sub_other', eventId)).toBe('contested');
      expect(await apply(second, { mode: 'record', linked: null }, eventId)).toBe('contested');
      expect(await world.billing.subscription(second.id)).toBeNull();
      expect(await world.billing.recordEvent(eventId, t0)).toBe(true);
      expect(await seats()).toBe(5);
    });

    it('links one of two subscriptions applied at once for a target without one', async () => {
      const outcomes = await Promise.all([teamRecord(made, { seats: 3 }), teamRecord(made, { seats: 7 })].map((record) => apply(record)));
      expect(outcomes.sort()).toEqual(['applied', 'contested']);
    });

    it('records a subscription the plan does not follow, changing nothing else', async () => {
      const live = await onTeam(world, made, 5);
      const other = teamRecord(made, { seats: 9, status: 'canceled' });
      expect(await apply(other, { mode: 'record', linked: live.id })).toBe('recorded');
      expect(await world.billing.subscription(other.id)).toEqual(other);
      expect(await world.billing.linkedSubscription({ kind: 'workspace', workspaceId: ws })).toBe(live.id);
      expect((await world.workspaces.get(ws))!.plan).toBe('team');
      expect(await seats()).toBe(5);
    });

    it('gives an account Pro, and takes it when the subscription ends', async () => {
      const userId = newUserId();
      await world.addAccount({ id: userId, email: newAddress('payer'), plan: 'free', createdAt: t0 });
      const record = proRecord(userId);
      expect(await apply(record)).toBe('applied');
      expect(await world.accountPlan(userId)).toBe('pro');
      expect(await world.billing.subscriptionOf({ kind: 'user', userId })).toEqual(record);
      expect(await apply({ ...record, status: 'canceled', syncedAt: t0 + 1 }, record.id)).toBe('applied');
      expect(await world.accountPlan(userId)).toBe('free');
    });

    it('keeps only the event for a target that is gone', async () => {
      const record = proRecord(newUserId());
      const eventId = newEventId();
      expect(await apply(record, null, eventId)).toBe('applied');
      expect(await world.billing.subscription(record.id)).toBeNull();
      expect(await world.billing.recordEvent(eventId, t0)).toBe(false);
      const gone = teamRecord({ ...made, workspace: { ...made.workspace, id: newWorkspaceId() } });
      expect(await apply(gone)).toBe('applied');
      expect(await world.billing.subscription(gone.id)).toBeNull();
    });

    it('never puts the seats below the members; an ended Team keeps its members and takes no one new', async () => {
      await setSeats(world, ws, 3);
      await join(world, made);
      await join(world, made);
      const record = teamRecord(made, { seats: 2 });
      expect(await apply(record)).toBe('applied');
      expect(await seats()).toBe(3);
      expect(await apply({ ...record, seats: 8, syncedAt: t0 + 1 }, record.id)).toBe('applied');
      expect(await seats()).toBe(8);
      expect(await apply({ ...record, seats: 8, status: 'canceled', syncedAt: t0 + 2 }, record.id)).toBe('applied');
      expect(await seats()).toBe(3);
      expect((await world.workspaces.get(ws))!.plan).toBe('free');
    });

    it('writes the first seat choice of the grant the roster allows; none allowed, nothing is written', async () => {
      await setSeats(world, ws, 3);
      await join(world, made);
      const record = teamRecord(made, { seats: 1 });
      const grant = (seats: Array<number | 'members' | 'unchanged'>): LinkWrite => ({
        mode: 'follow',
        linked: null,
        grant: { plan: 'team', seats },
      });
      expect(await apply(record, grant([1, 4, 'members']))).toBe('applied');
      expect(await seats()).toBe(4);
      const next = { ...record, syncedAt: t0 + 1 };
      expect(await apply(next, { ...grant(['unchanged', 9]), linked: record.id })).toBe('applied');
      expect(await seats()).toBe(4);
      await world.contracts.setWorkspacePlan(ws, 'enterprise', 6, { at: t0, by: 'sales', note: 'deal' }, audit(ws));
      const eventId = newEventId();
      expect(await apply({ ...record, syncedAt: t0 + 2 }, { ...grant([7, 'members']), linked: record.id }, eventId)).toBe('stale');
      expect(await world.billing.subscription(record.id)).toEqual(next);
      expect(await world.billing.recordEvent(eventId, t0)).toBe(true);
      expect(await seats()).toBe(6);
    });

    it('leaves a contract’s seats to the contract', async () => {
      await world.contracts.setWorkspacePlan(ws, 'enterprise', 12, { at: t0, by: 'sales', note: 'deal' }, audit(ws));
      const record = teamRecord(made, { seats: 4 });
      expect(await apply(record)).toBe('applied');
      expect(await seats()).toBe(12);
      expect(await world.workspaces.get(ws)).toMatchObject({ plan: 'team', contractPlan: 'enterprise' });
      expect((await world.contracts.workspace(ws))!.providerPlan).toBe('team');
    });

    describe('seat changes', () => {
      it('lowers the seats to no fewer than the members, and says how many there are', async () => {
        await setSeats(world, ws, 4);
        await join(world, made);
        expect(await world.billing.lowerSeats(ws, 3)).toEqual({ lowered: true, previous: 4 });
        expect(await world.billing.lowerSeats(ws, 1)).toEqual({ lowered: false, members: 2 });
        expect(await seats()).toBe(3);
        expect(await world.billing.lowerSeats(newWorkspaceId(), 3)).toEqual({ lowered: false, members: 0 });
      });

      it('restores only the seats it lowered: a later change stands', async () => {
        await setSeats(world, ws, 5);
        await world.billing.lowerSeats(ws, 3);
        await world.billing.restoreSeats(ws, 3, 5);
        expect(await seats()).toBe(5);
        await world.billing.lowerSeats(ws, 3);
        await setSeats(world, ws, 4);
        await world.billing.restoreSeats(ws, 3, 5);
        expect(await seats()).toBe(4);
        await world.billing.restoreSeats(newWorkspaceId(), 3, 5);
      });
    });

    it('keeps the period and the cancellation as read', async () => {
      const record = teamRecord(made, { cancelAtPeriodEnd: true, currentPeriodEnd: t0 + 3 * day, status: 'past_due' });
      await apply(record);
      expect(await world.billing.subscription(record.id)).toEqual(record);
      expect((await world.workspaces.get(ws))!.plan).toBe('team');
    });
  });
}
