import { describe, expect, it } from 'vitest';
import { startCheckout } from '../../shared/domain/billing/checkout.ts';
import { changeSeats } from '../../shared/domain/billing/seats.ts';
import { Forbidden, Invalid, NotFound } from '../../shared/domain/refusals.ts';
import { acceptInvitation, invite, transferWorkspace } from '../../shared/domain/workspaces/members.ts';
import { billingWorld } from './billing-world.ts';

// A Team workspace's seats (PATCH /v1/billing/seats, issue 26): changed by whoever pays for its
// subscription, prorated at the provider, never below the members; fewer seats taken from the
// roster before the provider is asked, and given back when it refuses.

const day = 24 * 3600;

/** A change a second after whatever came before, as people make them: the provider's answer is a newer read than the last applied. */
function seats(b: ReturnType<typeof billingWorld>, workspaceId: string, count: number, userId: string, ports: typeof b.ports) {
  b.clock.advance(1);
  return changeSeats(workspaceId, count, userId, ports);
}

describe('changeSeats', () => {
  it('changes the quantity at the provider, prorated, and the roster and the copy at once; the same count asks nothing', async () => {
    const b = billingWorld();
    const team = await b.boughtTeam(2, 3);
    expect(b.roster(team.id)).toMatchObject({ seats: 3, members: 2 });
    const from = b.provider.calls.length;
    expect(await seats(b, team.id, 6, team.owner.id, b.ports)).toEqual({ seats: 6 });
    const [read, change] = b.provider.calls.slice(from);
    expect(read).toEqual({ method: 'retrieveSubscription', args: [team.subscription.id] });
    expect(change).toEqual({
      method: 'changeQuantity',
      args: [team.subscription.id, team.subscription.itemId, 6, expect.stringMatching(new RegExp(`^seats-${team.id}-[0-9a-f-]{36}$`))],
    });
    expect(b.roster(team.id)).toMatchObject({ seats: 6, members: 2 });
    expect((await b.ports.billing.subscriptionOf({ kind: 'workspace', workspaceId: team.id }))!.seats).toBe(6);
    expect(b.provider.account.subscriptions.get(team.subscription.id)!.quantity).toBe(6);
    // Its event, later, finds it applied.
    await b.deliver(b.provider.account.events.slice(-1));
    expect(b.roster(team.id)).toMatchObject({ seats: 6 });
    // Down to the members exactly; then the same count again changes nothing and asks nothing.
    expect(await seats(b, team.id, 2, team.owner.id, b.ports)).toEqual({ seats: 2 });
    expect(b.roster(team.id)).toMatchObject({ seats: 2, members: 2 });
    const asked = b.provider.calls.length;
    expect(await seats(b, team.id, 2, team.owner.id, b.ports)).toEqual({ seats: 2 });
    expect(b.provider.calls).toHaveLength(asked);
  });

  it('bills the next period for the seats held, its invoice after the renewal', async () => {
    const b = billingWorld();
    const team = await b.boughtTeam(2, 3);
    await seats(b, team.id, 5, team.owner.id, b.ports);
    b.clock.advance(31 * day);
    await b.deliver(b.provider.account.endPeriod(team.subscription.id));
    expect(b.provider.account.invoices.map((invoice) => invoice.total)).toEqual([3 * 800, 5 * 800]);
  });

  it('never goes below the members (invalid at seats), asking the provider nothing; down to the members though an invitation is pending', async () => {
    const b = billingWorld();
    const team = await b.boughtTeam(3, 4);
    const late = b.person('late');
    await invite(team.id, team.owner.id, { email: late.email, role: 'member' }, b.ports);
    const from = b.provider.calls.length;
    const below = seats(b, team.id, 2, team.owner.id, b.ports);
    await expect(below).rejects.toBeInstanceOf(Invalid);
    await expect(seats(b, team.id, 2, team.owner.id, b.ports)).rejects.toMatchObject({
      kind: 'invalid',
      fields: [{ field: 'seats', message: 'must be at least the member count, 3' }],
    });
    expect(b.provider.calls).toHaveLength(from);
    expect(await seats(b, team.id, 3, team.owner.id, b.ports)).toEqual({ seats: 3 });
    // The pending invitation then finds no seat.
    await expect(acceptInvitation(b.tokenMailedTo(late.email), late.id, b.ports)).rejects.toMatchObject({
      kind: 'forbidden',
      facts: { reason: 'no_free_seat' },
    });
  });

  it('is refused to anyone but the owner or payer (forbidden, not_owner), and without a Team subscription (not found, no_subscription)', async () => {
    const b = billingWorld();
    const team = await b.boughtTeam(1, 2);
    const admin = await b.join(team.id, team.owner, 'admin');
    for (const who of [admin, b.person('outsider')]) {
      await expect(seats(b, team.id, 5, who.id, b.ports)).rejects.toMatchObject({ kind: 'forbidden', facts: { reason: 'not_owner' } });
    }
    await expect(seats(b, 'wks_malformed', 5, team.owner.id, b.ports)).rejects.toMatchObject({ facts: { reason: 'not_owner' } });
    const unpaid = b.person('unpaid');
    const free = await b.workspace(unpaid, { plan: 'free' });
    const none = seats(b, free, 5, unpaid.id, b.ports);
    await expect(none).rejects.toBeInstanceOf(NotFound);
    await expect(seats(b, free, 5, unpaid.id, b.ports)).rejects.toMatchObject({ kind: 'not_found', facts: { reason: 'no_subscription' } });
    expect(b.roster(team.id)).toMatchObject({ seats: 2, members: 2 });
  });

  it('leaves a contract’s seats to sales (forbidden, contract_plan)', async () => {
    const b = billingWorld();
    const team = await b.boughtTeam(1, 2);
    b.data.rosters.get(team.id)!.contractSeats = 50;
    await expect(seats(b, team.id, 5, team.owner.id, b.ports)).rejects.toMatchObject({
      kind: 'forbidden',
      facts: { reason: 'contract_plan' },
    });
  });

  it('follows the subscription through a failed payment; once it has ended, there is none to change (not found)', async () => {
    const b = billingWorld();
    const team = await b.boughtTeam(2, 2);
    expect(await seats(b, team.id, 4, team.owner.id, b.ports)).toEqual({ seats: 4 });
    b.provider.account.failNextPayment(team.subscription.id);
    b.clock.advance(31 * day);
    await b.deliver(b.provider.account.endPeriod(team.subscription.id));
    expect(b.data.workspaceOf(team.id)!.plan).toBe('team');
    expect(await seats(b, team.id, 3, team.owner.id, b.ports)).toEqual({ seats: 3 });
    // Cancelled at the provider but not yet heard of: the provider's word refuses, the seats lowered first given back.
    const heard = b.provider.account.events.length;
    b.provider.account.cancel(b.provider.account.subscriptions.get(team.subscription.id)!);
    await expect(seats(b, team.id, 2, team.owner.id, b.ports)).rejects.toMatchObject({
      kind: 'not_found',
      facts: { reason: 'no_subscription' },
    });
    expect(b.roster(team.id)).toMatchObject({ seats: 3 });
    await b.deliver(b.provider.account.events.slice(heard));
    expect(b.data.workspaceOf(team.id)!.plan).toBe('free');
    // Its members stay, and no one new takes a seat: the seats are the members.
    expect(b.roster(team.id)).toMatchObject({ seats: 2, members: 2 });
    await expect(seats(b, team.id, 5, team.owner.id, b.ports)).rejects.toMatchObject({
      kind: 'not_found',
      facts: { reason: 'no_subscription' },
    });
    // Ended, Team can be bought again.
    expect((await startCheckout({ plan: 'team', workspaceId: team.id }, team.owner.id, b.ports)).id).toMatch(/^cs_/);
  });

  it('gives back the seats it lowered when the provider refuses the change', async () => {
    const b = billingWorld();
    const team = await b.boughtTeam(2, 5);
    b.provider.failNext('changeQuantity');
    await expect(seats(b, team.id, 3, team.owner.id, b.ports)).rejects.toThrow('the provider failed changeQuantity');
    expect(b.roster(team.id)).toMatchObject({ seats: 5 });
  });
});

describe('after a transfer (issue 26, item 4)', () => {
  async function transferred() {
    const b = billingWorld();
    const team = await b.boughtTeam(2, 3);
    const newOwner = team.joined[0]!;
    await transferWorkspace(team.id, team.owner.id, newOwner.id, b.ports);
    return { b, team, payer: team.owner, newOwner };
  }

  it('the new owner is refused (forbidden, not_payer) and nothing is billed; the payer, now an admin, still changes them', async () => {
    const { b, team, payer, newOwner } = await transferred();
    const from = b.provider.calls.length;
    const refused = seats(b, team.id, 500, newOwner.id, b.ports);
    await expect(refused).rejects.toBeInstanceOf(Forbidden);
    await expect(seats(b, team.id, 500, newOwner.id, b.ports)).rejects.toMatchObject({
      kind: 'forbidden',
      facts: { reason: 'not_payer' },
      detail: expect.stringContaining('paid by the account that bought it'),
    });
    expect(b.asked(from).filter((method) => method === 'changeQuantity')).toEqual([]);
    expect(b.roster(team.id)).toMatchObject({ seats: 3, members: 2 });
    expect(await seats(b, team.id, 4, payer.id, b.ports)).toEqual({ seats: 4 });
    expect(b.provider.account.subscriptions.get(team.subscription.id)!.quantity).toBe(4);
    // Another admin, neither owner nor payer, is refused as before.
    const admin = await b.join(team.id, newOwner, 'admin');
    await expect(seats(b, team.id, 5, admin.id, b.ports)).rejects.toMatchObject({ facts: { reason: 'not_owner' } });
    // A second Team checkout by the new owner is refused while the payer's runs, saying who pays.
    await expect(startCheckout({ plan: 'team', workspaceId: team.id }, newOwner.id, b.ports)).rejects.toMatchObject({
      kind: 'conflict',
      facts: { reason: 'active_subscription' },
      detail: expect.stringContaining('paid by the account that bought it'),
    });
  });

  it('once the payer’s subscription has ended, the new owner buys Team and the seats are theirs to change, no longer the payer’s', async () => {
    const { b, team, payer, newOwner } = await transferred();
    b.provider.account.setCancelAtPeriodEnd(team.subscription.id, true);
    b.clock.advance(31 * day);
    const mailed = b.mailer.to(payer.email).length;
    await b.deliver(b.provider.account.endPeriod(team.subscription.id));
    expect(b.data.workspaceOf(team.id)!.plan).toBe('free');
    expect(
      b.mailer
        .to(payer.email)
        .slice(mailed)
        .map((mail) => mail.subject),
    ).toEqual(['Hushlink: your subscription ended']);
    await expect(seats(b, team.id, 4, payer.id, b.ports)).rejects.toMatchObject({ kind: 'forbidden', facts: { reason: 'not_owner' } });
    const bought = await b.buy(newOwner, { plan: 'team', workspaceId: team.id, seats: 2 });
    expect(bought.customerId).toBe(await b.ports.billing.customerOf(newOwner.id));
    expect(b.data.workspaceOf(team.id)!.plan).toBe('team');
    expect(await seats(b, team.id, 3, newOwner.id, b.ports)).toEqual({ seats: 3 });
    expect(b.provider.account.subscriptions.get(bought.id)!.quantity).toBe(3);
    await expect(seats(b, team.id, 6, payer.id, b.ports)).rejects.toMatchObject({ facts: { reason: 'not_owner' } });
  });
});
