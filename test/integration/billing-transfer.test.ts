import type Stripe from 'stripe';
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
// is refused with `not_payer` and takes billing over by buying Team once it has ended (the
// seats' side is test/usecases/billing-seats.test.ts's; the portals' is the emulator's, here).

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
let stripe: Stripe;
beforeAll(async () => {
  runtime = await startTestRuntime();
  api = apiClient(runtime);
  stripe = stripeClient({ secretKey: runtime.stripe.apiKey, apiUrl: runtime.stripe.url });
});
afterAll(() => runtime?.stop());

const changeSeats = (who: SignedIn, workspaceId: string, seats: number) =>
  send(runtime, 'PATCH', '/v1/billing/seats', { workspace_id: workspaceId, seats }, who.auth);
const workspacePlan = async (workspaceId: string) => (await runtime.functions.workspaces.workspaces.get(workspaceId))!.plan;
const quantityAtProvider = async (subscriptionId: string) => (await stripe.subscriptions.retrieve(subscriptionId)).items.data[0]!.quantity;

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
    const forged = await fetch(`${theirs.body.url}/subscriptions/${team.subscriptionId}/cancel`, {
      method: 'POST',
      body: new URLSearchParams(),
      redirect: 'manual',
    });
    expect(forged.status).toBe(404);
    expect((await stripe.subscriptions.retrieve(team.subscriptionId)).cancel_at_period_end).toBe(false);

    // The payer cancels in their own portal: Team until the period's end, then Free; the payer is mailed.
    const portal = await api.post('/v1/billing/portal', {}, team.payer.auth);
    const cancelled = await fetch(`${portal.body.url}/subscriptions/${team.subscriptionId}/cancel`, {
      method: 'POST',
      body: new URLSearchParams(),
      redirect: 'manual',
    });
    expect(cancelled.status).toBe(303);
    await runtime.stripe.settled();
    expect(await workspacePlan(team.id)).toBe('team');
    await runtime.stripe.endPeriod(team.subscriptionId);
    await runtime.stripe.settled();
    expect(await workspacePlan(team.id)).toBe('free');
    // Mailed by the delivery worker, from the queue.
    await runtime.drainWork();
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
