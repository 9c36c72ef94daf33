import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { stripeClient } from '../../shared/adapters/stripe.ts';
import { mailsTo, type SignedIn } from '../support/accounts.ts';
import { expectProblem } from '../support/problem.ts';
import { apiClient, startTestRuntime } from '../support/runtime.ts';
import { joinAs, send, teamWorkspace, type TeamWorkspace } from '../support/workspaces.ts';

// Issue 26, item 4: a workspace's Team subscription stays billed to the account that bought it
// (its payer) when the workspace is handed over. Only the payer changes its seats (PATCH
// /v1/billing/seats) or cancels it (in the billing portal of their own customer); the new owner
// is refused with `not_payer` and takes billing over by buying Team once it has ended.

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
let stripe: Stripe;
beforeAll(async () => {
  runtime = await startTestRuntime();
  api = apiClient(runtime);
  stripe = stripeClient({ secretKey: runtime.stripe.apiKey, apiUrl: runtime.stripe.url });
});
afterAll(() => runtime?.stop());

const changeSeats = (who: SignedIn, workspaceId: string, seats: number) => send(runtime, 'PATCH', '/v1/billing/seats', { workspace_id: workspaceId, seats }, who.auth);
const roster = async (workspaceId: string) => (await runtime.functions.workspaces.workspaces.roster(workspaceId))!;
const workspacePlan = async (workspaceId: string) => (await runtime.functions.workspaces.workspaces.get(workspaceId))!.plan;
const quantityAtProvider = async (subscriptionId: string) => (await stripe.subscriptions.retrieve(subscriptionId)).items.data[0]!.quantity;
const subscriptionWrites = () => runtime.stripe.requests().filter((request) => request.method !== 'GET' && request.path.startsWith('/v1/subscriptions/'));

/** A Team workspace of two (owner and a member) bought by its owner for 3 seats and paid, then handed over to the member. */
async function transferredTeam(): Promise<TeamWorkspace & { payer: SignedIn; newOwner: SignedIn; subscriptionId: string }> {
  const workspace = await teamWorkspace(runtime, 2, 'free');
  const member = await joinAs(runtime, workspace, workspace.owner, 'member');
  const started = await api.post('/v1/billing/checkout', { plan: 'team', workspace_id: workspace.id, seats: 3 }, workspace.owner.auth);
  expect(started.status).toBe(201);
  const paid = await runtime.stripe.completeCheckout(started.body.id);
  await runtime.stripe.settled();
  const moved = await api.post(`/v1/workspaces/${workspace.id}/transfer`, { user_id: member.user.id }, workspace.owner.auth);
  expect(moved.status).toBe(200);
  return { ...workspace, payer: workspace.owner, newOwner: member, subscriptionId: String(paid.subscription) };
}

describe('after a transfer, the payer alone changes the subscription', () => {
  it('transfer then seats: the new owner is refused (not_payer) and nothing is billed; the payer, now an admin, still changes them', async () => {
    const team = await transferredTeam();
    runtime.stripe.clearRequests();
    // The review's request: 500 seats as the new owner, billed to the previous owner's customer.
    const refused = await changeSeats(team.newOwner, team.id, 500);
    expectProblem(refused, 403, 'forbidden');
    expect(refused.body.reason).toBe('not_payer');
    expect(refused.body.detail).toContain('paid by the account that bought it');
    expect(subscriptionWrites()).toEqual([]);
    expect(await quantityAtProvider(team.subscriptionId)).toBe(3);
    expect(await roster(team.id)).toMatchObject({ seats: 3, members: 2 });

    // The payer (an admin now) changes them, billed to their own customer as before.
    const changed = await changeSeats(team.payer, team.id, 4);
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({ workspace_id: team.id, seats: 4 });
    expect(subscriptionWrites()).toMatchObject([{ method: 'POST', path: `/v1/subscriptions/${team.subscriptionId}`, status: 200 }]);
    expect(await quantityAtProvider(team.subscriptionId)).toBe(4);
    await runtime.stripe.settled();
    expect(await roster(team.id)).toMatchObject({ seats: 4 });
    // Another admin, neither owner nor payer, is refused as before.
    const admin = await joinAs(runtime, team, team.newOwner, 'admin');
    expect((await changeSeats(admin, team.id, 5)).body.reason).toBe('not_owner');
    // A second Team checkout by the new owner is refused while the payer's runs, and says who pays.
    const again = await api.post('/v1/billing/checkout', { plan: 'team', workspace_id: team.id }, team.newOwner.auth);
    expectProblem(again, 409, 'conflict');
    expect(again.body).toMatchObject({ reason: 'active_subscription', detail: expect.stringContaining('paid by the account that bought it') });
  }, 45_000);

  it('transfer then cancel: only the payer’s portal cancels it; at its end the workspace is Free and the new owner buys Team, then changes the seats', async () => {
    const team = await transferredTeam();
    // The new owner has no customer: no portal. With one (a Pro of their own), their portal does not reach the payer's subscription.
    expectProblem(await api.post('/v1/billing/portal', {}, team.newOwner.auth), 404, 'not_found');
    const pro = await api.post('/v1/billing/checkout', { plan: 'pro' }, team.newOwner.auth);
    await runtime.stripe.completeCheckout(pro.body.id);
    await runtime.stripe.settled();
    const theirs = await api.post('/v1/billing/portal', {}, team.newOwner.auth);
    expect(theirs.status).toBe(201);
    expect(await (await fetch(theirs.body.url)).text()).not.toContain(team.subscriptionId);
    const forged = await fetch(`${theirs.body.url}/subscriptions/${team.subscriptionId}/cancel`, { method: 'POST', body: new URLSearchParams(), redirect: 'manual' });
    expect(forged.status).toBe(404);
    expect((await stripe.subscriptions.retrieve(team.subscriptionId)).cancel_at_period_end).toBe(false);

    // The payer cancels in their own portal: Team until the period's end, then Free; the payer is mailed.
    const portal = await api.post('/v1/billing/portal', {}, team.payer.auth);
    const cancelled = await fetch(`${portal.body.url}/subscriptions/${team.subscriptionId}/cancel`, { method: 'POST', body: new URLSearchParams(), redirect: 'manual' });
    expect(cancelled.status).toBe(303);
    await runtime.stripe.settled();
    expect(await workspacePlan(team.id)).toBe('team');
    await runtime.stripe.endPeriod(team.subscriptionId);
    await runtime.stripe.settled();
    expect(await workspacePlan(team.id)).toBe('free');
    expect(mailsTo(runtime, team.payer.user.email)[0]!.subject).toBe('Hushlink: your subscription ended');
    expectProblem(await changeSeats(team.payer, team.id, 4), 403, 'forbidden');

    // The new owner takes billing over: their own checkout, their customer, and the seats are theirs to change.
    const bought = await api.post('/v1/billing/checkout', { plan: 'team', workspace_id: team.id, seats: 2 }, team.newOwner.auth);
    expect(bought.status).toBe(201);
    const paid = await runtime.stripe.completeCheckout(bought.body.id);
    await runtime.stripe.settled();
    expect(paid.customer).toBe(await runtime.functions.billing.billing.customerOf(team.newOwner.user.id));
    expect(await workspacePlan(team.id)).toBe('team');
    expect((await changeSeats(team.newOwner, team.id, 3)).status).toBe(200);
    expect(await quantityAtProvider(String(paid.subscription))).toBe(3);
    // The previous owner pays nothing any more, and changes nothing.
    expect((await changeSeats(team.payer, team.id, 6)).body.reason).toBe('not_owner');
  });
});
