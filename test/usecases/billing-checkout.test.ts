import { describe, expect, it } from 'vitest';
import { startCheckout } from '../../shared/domain/billing/checkout.ts';
import { listInvoices, openPortal } from '../../shared/domain/billing/customer.ts';
import { sendEnterpriseInquiry } from '../../shared/domain/billing/enterprise.ts';
import { readSubscription } from '../../shared/domain/billing/subscription.ts';
import { Conflict, Forbidden, Invalid, NotFound, Unauthenticated } from '../../shared/domain/refusals.ts';
import { invite, removeMember } from '../../shared/domain/workspaces/members.ts';
import { billingWorld } from './billing-world.ts';

// Checkout, the caller's subscription, the portal, invoices and Enterprise enquiries (interface
// §4.6) on the fakes: what the provider is asked is read from the fake provider's calls.

describe('startCheckout', () => {
  it('makes the account’s customer (a key of this attempt), then a Pro session carrying who pays; paid, the account is Pro', async () => {
    const b = billingWorld();
    const ana = b.person('ana');
    const session = await startCheckout({ plan: 'pro', successPath: '/billing?done=1' }, ana.id, b.ports);
    expect(session).toEqual({ id: expect.stringMatching(/^cs_/), url: expect.stringContaining('https://checkout.fake.invalid/') });
    const [customer, checkout] = b.provider.calls;
    expect(customer).toEqual({
      method: 'createCustomer',
      args: [ana.email, ana.id, expect.stringMatching(new RegExp(`^customer-${ana.id}-[0-9a-f-]{36}$`))],
    });
    expect(checkout!.method).toBe('createCheckoutSession');
    expect(checkout!.args[0]).toMatchObject({
      priceId: 'price_pro_monthly',
      quantity: 1,
      successUrl: 'https://eu.hushlink.example/billing?done=1',
      cancelUrl: 'https://eu.hushlink.example/billing?checkout=cancelled',
      metadata: { target: 'user', user_id: ana.id },
      clientReferenceId: ana.id,
      idempotencyKey: expect.stringMatching(new RegExp(`^checkout-${ana.id}-[0-9a-f-]{36}$`)),
    });
    const paid = b.provider.account.completeCheckout(session.id);
    await b.deliver(paid.events);
    const view = await readSubscription(ana.id, b.ports);
    expect(view).toMatchObject({
      plan: 'pro',
      tier: 'pro',
      subscription: { plan: 'pro', status: 'active', seats: 1, cancelAtPeriodEnd: false, customerId: paid.subscription.customerId },
    });
    expect(view.subscription!.currentPeriodEnd).toBeGreaterThan(b.clock.now());
    // A second Pro while this one runs: a conflict, and nothing asked of the provider.
    const before = b.provider.calls.length;
    await expect(startCheckout({ plan: 'pro' }, ana.id, b.ports)).rejects.toMatchObject({
      kind: 'conflict',
      facts: { reason: 'active_subscription' },
    });
    expect(b.provider.calls).toHaveLength(before);
  });

  it('sells Team to the workspace’s owner, by default a seat for each member and pending invitation, reusing the customer', async () => {
    const b = billingWorld();
    const owner = b.person('owner');
    const id = await b.workspace(owner, { plan: 'free', seats: 4 });
    const admin = await b.join(id, owner, 'admin');
    await b.join(id, owner, 'member');
    await invite(id, owner.id, { email: 'pending@example.com', role: 'member' }, b.ports);
    await b.buy(owner, { plan: 'pro' });
    const from = b.provider.calls.length;
    const session = await startCheckout({ plan: 'team', workspaceId: id }, owner.id, b.ports);
    expect(b.asked(from)).toEqual(['createCheckoutSession']);
    expect(b.provider.calls.at(-1)!.args[0]).toMatchObject({
      priceId: 'price_team_seat_monthly',
      quantity: 4,
      metadata: { target: 'workspace', workspace_id: id, user_id: owner.id },
    });
    await b.deliver(b.provider.account.completeCheckout(session.id).events);
    expect(b.data.workspaceOf(id)!.plan).toBe('team');
    expect(b.roster(id)).toMatchObject({ seats: 4, members: 3 });
    // The members' tier is Team's now; their own plan stays theirs.
    expect(await readSubscription(admin.id, b.ports)).toMatchObject({ plan: 'free', tier: 'team', subscription: null });
    await expect(startCheckout({ plan: 'team', workspaceId: id }, owner.id, b.ports)).rejects.toMatchObject({
      kind: 'conflict',
      facts: { reason: 'active_subscription' },
    });
  });

  it('refuses Team to anyone but the owner (forbidden, not_owner), below the members (invalid at seats), and without a workspace', async () => {
    const b = billingWorld();
    const owner = b.person('owner');
    const id = await b.workspace(owner, { plan: 'free', seats: 4 });
    const admin = await b.join(id, owner, 'admin');
    await b.join(id, owner, 'member');
    for (const who of [admin, b.person('outsider')]) {
      await expect(startCheckout({ plan: 'team', workspaceId: id }, who.id, b.ports)).rejects.toMatchObject({
        kind: 'forbidden',
        facts: { reason: 'not_owner' },
      });
    }
    const few = startCheckout({ plan: 'team', workspaceId: id, seats: 2 }, owner.id, b.ports);
    await expect(few).rejects.toBeInstanceOf(Invalid);
    await expect(startCheckout({ plan: 'team', workspaceId: id, seats: 2 }, owner.id, b.ports)).rejects.toMatchObject({
      fields: [{ field: 'seats', message: 'must be at least the member count, 3' }],
    });
    await expect(startCheckout({ plan: 'team' }, owner.id, b.ports)).rejects.toMatchObject({
      kind: 'invalid',
      fields: [{ field: 'workspace_id', message: 'is required for team' }],
    });
    await expect(startCheckout({ plan: 'pro', seats: 2 }, owner.id, b.ports)).rejects.toMatchObject({
      kind: 'invalid',
      fields: [{ field: 'plan', message: 'pro takes no workspace_id or seats' }],
    });
    await expect(startCheckout({ plan: 'pro', workspaceId: id }, owner.id, b.ports)).rejects.toMatchObject({
      kind: 'invalid',
      fields: [{ field: 'plan' }],
    });
    expect(b.provider.calls).toEqual([]);
  });

  it('refuses a workspace whose seats an Enterprise contract sets (conflict, contract_plan)', async () => {
    const b = billingWorld();
    const owner = b.person('owner');
    const id = await b.workspace(owner, { plan: 'free' });
    b.data.rosters.get(id)!.contractSeats = 50;
    await expect(startCheckout({ plan: 'team', workspaceId: id }, owner.id, b.ports)).rejects.toMatchObject({
      kind: 'conflict',
      facts: { reason: 'contract_plan' },
    });
  });

  it('sends the buyer back only to a page of this site, naming the field as sent', async () => {
    const b = billingWorld();
    const ana = b.person('ana');
    for (const [field, path] of [
      ['success_path', '//evil.example/'],
      ['cancel_path', 'https://evil.example/'],
      ['cancel_path', '/a\\b'],
    ] as const) {
      const checkout = field === 'success_path' ? { plan: 'pro' as const, successPath: path } : { plan: 'pro' as const, cancelPath: path };
      await expect(startCheckout(checkout, ana.id, b.ports)).rejects.toMatchObject({
        kind: 'invalid',
        fields: [{ field, message: 'must be a path starting with a single /' }],
      });
    }
    expect(b.provider.calls).toEqual([]);
  });

  it('refuses as Forbidden a non-owner and as Conflict a target paid for', async () => {
    const b = billingWorld();
    const owner = b.person('owner');
    const id = await b.workspace(owner, { plan: 'free' });
    await expect(startCheckout({ plan: 'team', workspaceId: id }, b.person('x').id, b.ports)).rejects.toBeInstanceOf(Forbidden);
    await b.buy(owner, { plan: 'pro' });
    await expect(startCheckout({ plan: 'pro' }, owner.id, b.ports)).rejects.toBeInstanceOf(Conflict);
  });

  it('asks an account that is gone to sign in (unauthenticated), having made no customer', async () => {
    const b = billingWorld();
    await expect(startCheckout({ plan: 'pro' }, 'usr_gone', b.ports)).rejects.toBeInstanceOf(Unauthenticated);
    expect(b.asked()).toEqual([]);
  });
});

describe('readSubscription', () => {
  it('answers a free account its plan, tier and usage, with no subscription', async () => {
    const b = billingWorld();
    const ana = b.person('ana');
    expect(await readSubscription(ana.id, b.ports)).toEqual({
      plan: 'free',
      tier: 'free',
      subscription: null,
      usage: { live_secrets: 2, bytes_stored: 128, calls_this_month: 7 },
    });
  });

  it('gives a member of a Team workspace Team’s tier until they leave it', async () => {
    const b = billingWorld();
    const team = await b.boughtTeam(2, 3);
    const [member] = team.joined;
    expect((await readSubscription(member!.id, b.ports)).tier).toBe('team');
    await removeMember(team.id, member!.id, member!.id, b.ports);
    expect((await readSubscription(member!.id, b.ports)).tier).toBe('free');
  });
});

describe('the customer’s portal and invoices', () => {
  it('are not found before a checkout; then the portal of the caller’s own customer, back to a page of this site', async () => {
    const b = billingWorld();
    const ana = b.person('ana');
    await expect(openPortal(ana.id, undefined, b.ports)).rejects.toBeInstanceOf(NotFound);
    await expect(listInvoices(ana.id, 10, null, b.ports)).rejects.toMatchObject({ kind: 'not_found', code: 'not_found' });
    const subscription = await b.buy(ana, { plan: 'pro' });
    const from = b.provider.calls.length;
    expect(await openPortal(ana.id, '/billing?from=portal', b.ports)).toEqual({
      url: expect.stringContaining('https://billing.fake.invalid/portal/'),
    });
    expect(b.provider.calls.slice(from)).toEqual([
      { method: 'createPortalSession', args: [subscription.customerId, 'https://eu.hushlink.example/billing?from=portal'] },
    ]);
    await openPortal(ana.id, undefined, b.ports);
    expect(b.provider.calls.at(-1)!.args[1]).toBe('https://eu.hushlink.example/billing');
  });

  it('lists the caller’s invoices newest first, paged by the last one’s id; a cursor of no invoice of theirs is invalid', async () => {
    const b = billingWorld();
    const ana = b.person('ana');
    const subscription = await b.buy(ana, { plan: 'pro' });
    b.clock.advance(31 * 24 * 3600);
    await b.deliver(b.provider.account.endPeriod(subscription.id));
    const all = await listInvoices(ana.id, 10, null, b.ports);
    expect(all.items).toHaveLength(2);
    expect(all.items[0]).toMatchObject({ id: expect.stringMatching(/^in_/), status: 'paid', total: 1200, currency: 'usd' });
    expect(all.items[0]!.createdAt).toBeGreaterThan(all.items[1]!.createdAt);
    expect(all.nextCursor).toBeNull();
    const first = await listInvoices(ana.id, 1, null, b.ports);
    expect(first).toEqual({ items: [all.items[0]], nextCursor: all.items[0]!.id });
    expect(await listInvoices(ana.id, 1, first.nextCursor, b.ports)).toEqual({ items: [all.items[1]], nextCursor: null });
    // Another customer's invoice, or none at all, is not a cursor of this listing.
    const bo = b.person('bo');
    await b.buy(bo, { plan: 'pro' });
    const theirs = (await listInvoices(bo.id, 1, null, b.ports)).items[0]!.id;
    for (const cursor of ['nope', 'in_doesnotexist', theirs]) {
      await expect(listInvoices(ana.id, 10, cursor, b.ports)).rejects.toMatchObject({
        kind: 'invalid',
        fields: [{ field: 'cursor', in: 'query' }],
      });
    }
  });
});

describe('sendEnterpriseInquiry', () => {
  it('mails sales with the sender as the reply address, and asks the payment provider nothing', async () => {
    const b = billingWorld();
    await sendEnterpriseInquiry(
      { name: 'Ana Lopez', email: 'ana@corp.example', company: 'Corp Example', seats: 250, message: 'We need SSO.\nCan we talk?' },
      b.ports,
    );
    await sendEnterpriseInquiry({ name: 'Bo', email: 'bo@other.example', company: 'Other Co', message: 'Hello' }, b.ports);
    const [first, second] = b.mailer.to('sales@hushlink.example');
    expect(first).toEqual({
      to: 'sales@hushlink.example',
      replyTo: 'ana@corp.example',
      subject: 'Hushlink Enterprise enquiry: Corp Example',
      text: 'Name: Ana Lopez\nEmail: ana@corp.example\nCompany: Corp Example\nSeats: 250\n\nWe need SSO.\nCan we talk?',
    });
    expect(second!.text).toContain('Seats: not said');
    expect(b.provider.calls).toEqual([]);
  });
});
