import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { createKey, newEmail, signIn, type SignedIn } from '../support/accounts.ts';
import { expectProblem } from '../support/problem.ts';
import { apiClient, startTestRuntime } from '../support/runtime.ts';
import { invitationToken, joinAs, send, teamWorkspace, type TeamWorkspace } from '../support/workspaces.ts';

// A Team workspace's seats (PATCH /v1/billing/seats) against the local Stripe emulator: bought
// through the checkout route, paid, seats changed (prorated at the provider, never below the
// members, even racing a join). A Team's whole life is test/usecases/billing-seats.test.ts's.

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
beforeAll(async () => {
  runtime = await startTestRuntime();
  api = apiClient(runtime);
});
afterAll(() => runtime?.stop());

const roster = async (workspaceId: string) => (await runtime.functions.workspaces.workspaces.roster(workspaceId))!;
/** The seats on the service's copy of the workspace's subscription. */
const billedSeats = async (workspaceId: string) =>
  (await runtime.functions.billing.billing.subscriptionOf({ kind: 'workspace', workspaceId }))!.seats;
const changeSeats = (who: Pick<SignedIn, 'auth'> | Record<string, string>, body: Record<string, unknown>) =>
  send(runtime, 'PATCH', '/v1/billing/seats', body, 'auth' in who ? (who as SignedIn).auth : (who as Record<string, string>));

/** A free workspace with `members` members (its owner among them), bought Team for `seats` through the checkout route and paid. */
async function boughtTeam(members: number, seats: number): Promise<TeamWorkspace & { subscriptionId: string }> {
  const workspace = await teamWorkspace(runtime, Math.max(members, 1), 'free');
  for (let i = 1; i < members; i++) await joinAs(runtime, workspace, workspace.owner, 'member');
  const started = await api.post('/v1/billing/checkout', { plan: 'team', workspace_id: workspace.id, seats }, workspace.owner.auth);
  expect(started.status).toBe(201);
  await runtime.stripe.completeCheckout(started.body.id);
  await runtime.stripe.settled();
  const subscription = await runtime.functions.billing.billing.subscriptionOf({ kind: 'workspace', workspaceId: workspace.id });
  return { ...workspace, subscriptionId: subscription!.id };
}

/** Every delivery the emulator made was answered 200. */
function expectAllDelivered(): void {
  for (const record of runtime.stripe.events())
    for (const delivery of record.deliveries) expect(delivery.status, `${record.event.type} ${record.event.id}`).toBe(200);
}

describe('PATCH /v1/billing/seats', () => {
  it('changes a Team’s seats at the provider, prorated, and in the roster at once; the next invoice carries the proration', async () => {
    const team = await boughtTeam(2, 3);
    expect(await roster(team.id)).toMatchObject({ seats: 3, members: 2 });
    runtime.stripe.clearRequests();
    const more = await changeSeats(team.owner, { workspace_id: team.id, seats: 6 });
    expect(more.status).toBe(200);
    expect(more.body).toEqual({ workspace_id: team.id, seats: 6 });
    // Applied before the answer: the roster and the subscription's copy say 6 already.
    expect(await roster(team.id)).toMatchObject({ seats: 6, members: 2 });
    expect(await billedSeats(team.id)).toBe(6);
    // What the provider was asked: the subscription read (its item), then one update of that item's quantity, prorated.
    const [read, update] = runtime.stripe.requests();
    expect(read).toMatchObject({ method: 'GET', path: `/v1/subscriptions/${team.subscriptionId}`, stripe_version: Stripe.API_VERSION });
    expect(update).toMatchObject({
      method: 'POST',
      path: `/v1/subscriptions/${team.subscriptionId}`,
      idempotency_key: expect.stringMatching(new RegExp(`^seats-${team.id}-[0-9a-f-]{36}$`)),
      stripe_version: Stripe.API_VERSION,
      status: 200,
    });
    expect(update!.form).toEqual({
      items: [{ id: expect.stringMatching(/^si_/), quantity: '6' }],
      proration_behavior: 'create_prorations',
    });
    await runtime.stripe.settled();
    expect(await roster(team.id)).toMatchObject({ seats: 6 });

    // Fewer, down to the members exactly.
    const fewer = await changeSeats(team.owner, { workspace_id: team.id, seats: 2 });
    expect(fewer.body).toEqual({ workspace_id: team.id, seats: 2 });
    await runtime.stripe.settled();
    expect(await roster(team.id)).toMatchObject({ seats: 2, members: 2 });
    // The same count again changes nothing and asks the provider nothing.
    runtime.stripe.clearRequests();
    expect((await changeSeats(team.owner, { workspace_id: team.id, seats: 2 })).body).toEqual({ workspace_id: team.id, seats: 2 });
    expect(runtime.stripe.requests()).toEqual([]);

    // The period ends: the renewal invoice charges 2 seats and carries the prorations of both changes.
    await runtime.stripe.endPeriod(team.subscriptionId);
    await runtime.stripe.settled();
    const invoices = await api.get('/v1/billing/invoices', team.owner.auth);
    expect(invoices.status).toBe(200);
    expect(invoices.body.items).toHaveLength(2);
    expect(invoices.body.items[1].total).toBe(3 * 800);
    expect(invoices.body.items[0].total).not.toBe(2 * 800);
    expectAllDelivered();
  });

  it('answers 400 below the member count, and for a bad body', async () => {
    const team = await boughtTeam(3, 4);
    await api.post(`/v1/workspaces/${team.id}/invitations`, { email: newEmail('pending'), role: 'member' }, team.owner.auth);
    runtime.stripe.clearRequests();
    const below = await changeSeats(team.owner, { workspace_id: team.id, seats: 2 });
    expectProblem(below, 400, 'invalid_request');
    expect(below.body.errors).toEqual([{ path: 'body.seats', message: 'must be at least the member count, 3' }]);
    expect(runtime.stripe.requests()).toEqual([]);
    // Down to the members is allowed, though an invitation is pending: it then cannot be accepted.
    expect((await changeSeats(team.owner, { workspace_id: team.id, seats: 3 })).status).toBe(200);
    for (const body of [
      {},
      { workspace_id: team.id },
      { seats: 3 },
      { workspace_id: team.id, seats: 0 },
      { workspace_id: team.id, seats: 2.5 },
      { workspace_id: team.id, seats: '4' },
      { workspace_id: team.id, seats: 4, extra: true },
    ]) {
      expectProblem(await changeSeats(team.owner, body), 400, 'invalid_request');
    }
    expect(await roster(team.id)).toMatchObject({ seats: 3, members: 3 });
  });

  it('answers 403 to anyone but the owner, 404 without a Team subscription, 401 without a session, 403 to an API key', async () => {
    const team = await boughtTeam(1, 2);
    const admin = await joinAs(runtime, team, team.owner, 'admin');
    expectProblem(await changeSeats(admin, { workspace_id: team.id, seats: 5 }), 403, 'forbidden');
    expectProblem(await changeSeats(await signIn(runtime, newEmail('outsider')), { workspace_id: team.id, seats: 5 }), 403, 'forbidden');
    const unpaid = await teamWorkspace(runtime, 1, 'free');
    const none = await changeSeats(unpaid.owner, { workspace_id: unpaid.id, seats: 5 });
    expectProblem(none, 404, 'not_found');
    expect(none.body.reason).toBe('no_subscription');
    expectProblem(await changeSeats({}, { workspace_id: team.id, seats: 5 }), 401, 'unauthorized');
    const key = await createKey(runtime, team.owner, ['secrets:write', 'secrets:read', 'receipts:read']);
    expectProblem(await changeSeats(key.auth, { workspace_id: team.id, seats: 5 }), 403, 'forbidden');
    expect(await roster(team.id)).toMatchObject({ seats: 2, members: 2 });
  });

  it('never leaves members above seats when a decrease races an invitation’s acceptance', async () => {
    // Each workspace: owner and one member, 3 seats, one invitation out; then at once the owner
    // goes down to 2 seats and the invited person accepts. One of the two wins.
    const rounds = await Promise.all(
      Array.from({ length: 6 }, async () => {
        const team = await boughtTeam(2, 3);
        const email = newEmail('racer');
        expect((await api.post(`/v1/workspaces/${team.id}/invitations`, { email, role: 'member' }, team.owner.auth)).status).toBe(201);
        const invited = await signIn(runtime, email);
        return { team, invited, token: invitationToken(runtime, email) };
      }),
    );
    const outcomes = await Promise.all(
      rounds.map(async ({ team, invited, token }) => {
        const [seats, join] = await Promise.all([
          changeSeats(team.owner, { workspace_id: team.id, seats: 2 }),
          api.post('/v1/workspaces/invitations/accept', { token }, invited.auth),
        ]);
        return { team, seats, join };
      }),
    );
    await runtime.stripe.settled();
    for (const { team, seats, join } of outcomes) {
      const after = await roster(team.id);
      expect(after.members).toBeLessThanOrEqual(after.seats);
      if (seats.status === 200) {
        // The decrease came first: the join found no seat.
        expectProblem(join, 403, 'forbidden');
        expect(after).toMatchObject({ seats: 2, members: 2 });
      } else {
        expectProblem(seats, 400, 'invalid_request');
        expect(join.status).toBe(200);
        expect(after).toMatchObject({ seats: 3, members: 3 });
      }
      // The provider bills what the roster holds.
      expect(await billedSeats(team.id)).toBe(after.seats);
    }
    expectAllDelivered();
  });
});
