import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { stripeClient } from '../../shared/adapters/stripe.ts';
import { createDocumentClient } from '../../shared/store/client.ts';
import { newEmail, signIn, type SignedIn } from '../support/accounts.ts';
import { apiClient, startTestRuntime } from '../support/runtime.ts';
import { joinAs, send, teamWorkspace, type TeamWorkspace } from '../support/workspaces.ts';

// Sales' admin command for Enterprise (issue 16, scripts/set-plan.ts), run as sales run it: a
// process of its own (tsx, as `npm run admin:set-plan` runs it) against this runtime's DynamoDB
// Local through --endpoint. What it set is then read over HTTP, and the payment provider's
// events (the Stripe emulator) must leave it in place. Its command line alone is
// test/unit/set-plan-args.test.ts.

const root = fileURLToPath(new URL('../..', import.meta.url));

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
let stripe: Stripe;
let db: ReturnType<typeof createDocumentClient>;
beforeAll(async () => {
  runtime = await startTestRuntime();
  api = apiClient(runtime);
  stripe = stripeClient({ secretKey: runtime.stripe.apiKey, apiUrl: runtime.stripe.url });
  db = createDocumentClient({ region: 'local', endpoint: runtime.dynamo.endpoint });
});
afterAll(async () => {
  db?.destroy();
  await runtime?.stop();
});

interface Run {
  status: number;
  stdout: string;
  stderr: string;
}

/**
 * The command with these arguments, on this runtime's table; no AWS settings of this machine
 * reach it, and Node's warnings (the SDK's about this Node's version) stay out of its stderr.
 */
function setPlan(...args: string[]): Promise<Run> {
  const env = { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_'))), NODE_NO_WARNINGS: '1' };
  const argv = [
    '--import',
    'tsx',
    'scripts/set-plan.ts',
    ...args,
    '--table',
    runtime.config.TABLE_NAME,
    '--endpoint',
    runtime.dynamo.endpoint,
  ];
  return new Promise((resolve) => {
    execFile(process.execPath, argv, { cwd: root, env }, (error, stdout, stderr) => {
      resolve({ status: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

const why = (note = 'Contract HL-2025-014') => ['--note', note, '--by', 'ana (sales)'];
const userItem = async (who: SignedIn) =>
  (
    await db.send(
      new GetCommand({ TableName: runtime.config.TABLE_NAME, Key: { pk: `USER#${who.user.id}`, sk: 'PROFILE' }, ConsistentRead: true }),
    )
  ).Item!;
const subscriptionOf = async (who: SignedIn) => (await api.get('/v1/billing/subscription', who.auth)).body;
const workspaceAs = async (workspace: TeamWorkspace, who: SignedIn) =>
  ((await api.get('/v1/workspaces', who.auth)).body.items as any[]).find((item) => item.id === workspace.id);
const auditOf = async (workspace: TeamWorkspace) =>
  (await api.get(`/v1/workspaces/${workspace.id}/audit?limit=200`, workspace.owner.auth)).body.items as any[];
const roster = (workspace: TeamWorkspace) => runtime.functions.workspaces.workspaces.roster(workspace.id);

/** A subscription bought through the checkout route and paid on the emulator, its events delivered. */
async function buy(who: SignedIn, body: Record<string, unknown>): Promise<string> {
  const started = await api.post('/v1/billing/checkout', body, who.auth);
  expect(started.status).toBe(201);
  const completed = await runtime.stripe.completeCheckout(started.body.id);
  await runtime.stripe.settled();
  return String(completed.subscription);
}

/** The subscription cancelled at its period's end, and that end reached, its events delivered. */
async function end(subscription: string): Promise<void> {
  await stripe.subscriptions.update(subscription, { cancel_at_period_end: true });
  await runtime.stripe.endPeriod(subscription);
  await runtime.stripe.settled();
  expect((await stripe.subscriptions.retrieve(subscription)).status).toBe('canceled');
}

describe('npm run admin:set-plan, for an account', () => {
  it('gives the account Enterprise, read over HTTP, with who and why on the account; --plan none takes it away', async () => {
    const person = await signIn(runtime, newEmail('enterprise'));
    expect(await subscriptionOf(person)).toMatchObject({ plan: 'free', tier: 'free' });

    const run = await setPlan('--email', person.user.email.toUpperCase(), '--plan', 'enterprise', ...why());
    expect(run).toEqual({
      status: 0,
      stdout: [
        `account ${person.user.email} (${person.user.id})`,
        '  contract plan  none → enterprise',
        '  plan in use    free → enterprise',
        '  by ana (sales): Contract HL-2025-014',
        'Done.',
        '',
      ].join('\n'),
      stderr: '',
    });
    expect(await subscriptionOf(person)).toMatchObject({ plan: 'enterprise', tier: 'enterprise', status: null });
    expect((await api.get('/v1/usage', person.auth)).body.plan).toBe('enterprise');
    expect((await api.get('/v1/flags', person.auth)).body.flags).toMatchObject({ receipts_location: true, sso: true, audit: true });
    const item = await userItem(person);
    expect(item).toMatchObject({
      plan: 'free',
      contract_plan: 'enterprise',
      contract_plan_note: 'Contract HL-2025-014',
      contract_plan_changed_by: 'ana (sales)',
    });
    expect(Math.abs(item.contract_plan_changed_at - Date.now())).toBeLessThan(60_000);

    const removed = await setPlan('--email', person.user.email, '--plan', 'none', ...why('Contract HL-2025-014 ended'));
    expect(removed.status).toBe(0);
    expect(removed.stdout).toContain('  contract plan  enterprise → none\n  plan in use    enterprise → free\n');
    expect(await subscriptionOf(person)).toMatchObject({ plan: 'free', tier: 'free' });
    const after = await userItem(person);
    expect(after.contract_plan).toBeUndefined();
    expect(after).toMatchObject({ contract_plan_note: 'Contract HL-2025-014 ended', contract_plan_changed_by: 'ana (sales)' });
    // Nothing left to take away: nothing written.
    const again = await setPlan('--email', person.user.email, '--plan', 'none', ...why('again'));
    expect(again).toMatchObject({ status: 0, stdout: expect.stringContaining('has no contract plan to take away: nothing written.') });
    expect((await userItem(person)).contract_plan_note).toBe('Contract HL-2025-014 ended');
  });

  it('keeps Enterprise through a Pro subscription’s end and a new Pro checkout (the provider’s events write only their own plan)', async () => {
    const person = await signIn(runtime, newEmail('pro-then-enterprise'));
    const first = await buy(person, { plan: 'pro' });
    expect(await subscriptionOf(person)).toMatchObject({ plan: 'pro', tier: 'pro', status: 'active' });
    expect((await setPlan('--email', person.user.email, '--plan', 'enterprise', ...why())).status).toBe(0);
    expect(await subscriptionOf(person)).toMatchObject({ plan: 'enterprise', tier: 'enterprise', status: 'active' });

    // The Pro subscription ends: the provider's events set `plan` to free, and Enterprise stays.
    await end(first);
    expect(await subscriptionOf(person)).toMatchObject({ plan: 'enterprise', tier: 'enterprise', status: 'canceled' });
    expect(await userItem(person)).toMatchObject({ plan: 'free', contract_plan: 'enterprise' });
    expect((await api.get('/v1/flags', person.auth)).body.flags).toMatchObject({ sso: true });

    // A new Pro checkout, paid: Pro is what the provider gives, Enterprise what the account uses.
    await buy(person, { plan: 'pro' });
    expect(await subscriptionOf(person)).toMatchObject({ plan: 'enterprise', tier: 'enterprise', status: 'active' });
    expect(await userItem(person)).toMatchObject({ plan: 'pro', contract_plan: 'enterprise' });
    // Taken away, the account has what it pays for.
    expect((await setPlan('--email', person.user.email, '--plan', 'none', ...why('ended'))).status).toBe(0);
    expect(await subscriptionOf(person)).toMatchObject({ plan: 'pro', tier: 'pro' });
  });

  it('refuses an account that does not exist (status 1) and a wrong command line (status 2), writing nothing', async () => {
    const unknown = newEmail('nobody');
    expect(await setPlan('--email', unknown, '--plan', 'enterprise', ...why())).toEqual({
      status: 1,
      stdout: '',
      stderr: `set-plan: No account signs in with ${unknown}: nothing written.\n`,
    });
    const missing = await setPlan('--email', unknown, '--plan', 'enterprise', '--by', 'ana');
    expect(missing).toMatchObject({ status: 2, stdout: '' });
    expect(missing.stderr).toBe('set-plan: --note is required: why (the contract, the ticket).\nRun with --help for the options.\n');
    expect((await setPlan('--plan', 'enterprise', ...why())).stderr).toMatch(
      /^set-plan: Name one account \(--email\) or one workspace \(--workspace\)\./,
    );
  });
});

describe('npm run admin:set-plan, for a workspace', () => {
  it('gives the workspace Enterprise and its seats, never below its members; every member uses it; the audit trail says who and why', async () => {
    const workspace = await teamWorkspace(runtime, 5, 'free');
    const admin = await joinAs(runtime, workspace, workspace.owner, 'admin');
    const member = await joinAs(runtime, workspace, workspace.owner, 'member');
    const rowsBefore = (await auditOf(workspace)).length;

    const few = await setPlan('--workspace', workspace.id, '--plan', 'enterprise', '--seats', '2', ...why());
    expect(few.status).toBe(1);
    expect(few.stderr).toContain(`Refused: workspace "`);
    expect(few.stderr).toContain('3 members; 2 seats would leave members without one. Ask for at least 3 seats');
    expect(await roster(workspace)).toMatchObject({ seats: 5, members: 3 });
    expect((await workspaceAs(workspace, member)).plan).toBe('free');
    expect(await auditOf(workspace)).toHaveLength(rowsBefore);

    const run = await setPlan('--workspace', workspace.id, '--plan', 'enterprise', '--seats', '40', ...why());
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('  contract plan  none → enterprise\n  plan in use    free → enterprise\n  seats          5 → 40\n');
    expect(await workspaceAs(workspace, member)).toMatchObject({ plan: 'enterprise', seats: 40, members: 3 });
    for (const who of [workspace.owner, admin, member]) expect((await subscriptionOf(who)).tier).toBe('enterprise');
    // Team's features come with it: the policy.
    expect((await send(runtime, 'PUT', `/v1/workspaces/${workspace.id}/policy`, { max_views: 3 }, admin.auth)).status).toBe(200);
    const [, row] = await auditOf(workspace);
    expect(row).toMatchObject({
      action: 'plan.contract_set',
      target: workspace.id,
      actor: { user_id: null, email: null, via: 'system' },
      details: { plan: 'enterprise', seats: 40, previous_plan: null, previous_seats: 5, note: 'Contract HL-2025-014', by: 'ana (sales)' },
    });
    expect(await roster(workspace)).toMatchObject({ seats: 40 });

    // Taken away without a Team subscription: Free, and the seats of an ended Team (its members).
    const removed = await setPlan('--workspace', workspace.id, '--plan', 'none', ...why('Contract HL-2025-014 ended'));
    expect(removed.status).toBe(0);
    expect(removed.stdout).toContain('  seats          40 → 3\n');
    expect(await workspaceAs(workspace, member)).toMatchObject({ plan: 'free', seats: 3, members: 3 });
    expect((await subscriptionOf(member)).tier).toBe('free');
    expect((await auditOf(workspace))[0]).toMatchObject({
      action: 'plan.contract_removed',
      details: { plan: null, seats: 3, previous_plan: 'enterprise', previous_seats: 40, note: 'Contract HL-2025-014 ended' },
    });
  });

  it('keeps Enterprise when the workspace’s Team subscription ends, and gives back the seats Team pays for when the contract goes', async () => {
    const workspace = await teamWorkspace(runtime, 2, 'free');
    const member = await joinAs(runtime, workspace, workspace.owner, 'member');
    const team = await buy(workspace.owner, { plan: 'team', workspace_id: workspace.id, seats: 6 });
    expect(await workspaceAs(workspace, member)).toMatchObject({ plan: 'team', seats: 6 });

    // The contract ends while Team still pays: the seats Team pays for come back.
    expect((await setPlan('--workspace', workspace.id, '--plan', 'enterprise', '--seats', '25', ...why())).status).toBe(0);
    expect(await workspaceAs(workspace, member)).toMatchObject({ plan: 'enterprise', seats: 25 });
    expect((await setPlan('--workspace', workspace.id, '--plan', 'none', ...why('moved back to Team'))).stdout).toContain(
      '  seats          25 → 6\n',
    );
    expect(await workspaceAs(workspace, member)).toMatchObject({ plan: 'team', seats: 6 });

    // Enterprise again, then Team ends at the provider: the plan stays Enterprise.
    expect((await setPlan('--workspace', workspace.id, '--plan', 'enterprise', '--seats', '25', ...why())).status).toBe(0);
    await end(team);
    expect((await workspaceAs(workspace, member)).plan).toBe('enterprise');
    expect((await subscriptionOf(member)).tier).toBe('enterprise');
  });

  it('keeps a workspace’s contract seats when its Team subscription’s events arrive', async () => {
    const workspace = await teamWorkspace(runtime, 2, 'free');
    const member = await joinAs(runtime, workspace, workspace.owner, 'member');
    const team = await buy(workspace.owner, { plan: 'team', workspace_id: workspace.id, seats: 6 });
    expect((await setPlan('--workspace', workspace.id, '--plan', 'enterprise', '--seats', '25', ...why())).status).toBe(0);
    const item = (await stripe.subscriptions.retrieve(team)).items.data[0]!;
    await stripe.subscriptions.update(team, { items: [{ id: item.id, quantity: 4 }], proration_behavior: 'create_prorations' });
    await runtime.stripe.settled();
    expect(await workspaceAs(workspace, member)).toMatchObject({ plan: 'enterprise', seats: 25 });
    // Its seats are the contract's: the owner's seat change and a new Team checkout are refused.
    const seats = await send(runtime, 'PATCH', '/v1/billing/seats', { workspace_id: workspace.id, seats: 30 }, workspace.owner.auth);
    expect(seats.status).toBe(403);
    expect(seats.body.reason).toBe('contract_plan');
    await end(team);
    const again = await api.post('/v1/billing/checkout', { plan: 'team', workspace_id: workspace.id }, workspace.owner.auth);
    expect(again.status).toBe(409);
    expect(again.body.reason).toBe('contract_plan');
    expect(await workspaceAs(workspace, member)).toMatchObject({ plan: 'enterprise', seats: 25 });
    expect((await setPlan('--workspace', workspace.id, '--plan', 'none', ...why('ended'))).stdout).toContain('  seats          25 → 2\n');
  });

  it('writes nothing on a dry run, which refuses what the run would; an unknown workspace is status 1', async () => {
    const workspace = await teamWorkspace(runtime, 4, 'free');
    const member = await joinAs(runtime, workspace, workspace.owner, 'member');
    const rowsBefore = (await auditOf(workspace)).length;
    const dry = await setPlan('--workspace', workspace.id, '--plan', 'enterprise', '--seats', '12', '--dry-run', ...why());
    expect(dry.status).toBe(0);
    expect(dry.stdout).toContain('  contract plan  none → enterprise\n  plan in use    free → enterprise\n  seats          4 → 12\n');
    expect(dry.stdout).toMatch(/Dry run: nothing written\.\n$/);
    expect(await workspaceAs(workspace, member)).toMatchObject({ plan: 'free', seats: 4 });
    expect((await subscriptionOf(member)).tier).toBe('free');
    expect(await auditOf(workspace)).toHaveLength(rowsBefore);
    expect((await setPlan('--workspace', workspace.id, '--plan', 'enterprise', '--seats', '1', '--dry-run', ...why())).status).toBe(1);

    const person = await signIn(runtime, newEmail('dry'));
    expect((await setPlan('--email', person.user.email, '--plan', 'enterprise', '--dry-run', ...why())).stdout).toContain(
      'Dry run: nothing written.',
    );
    expect((await userItem(person)).contract_plan).toBeUndefined();

    const unknown = 'wks_AAAAAAAAAAAAAAAAAAAAAA';
    expect(await setPlan('--workspace', unknown, '--plan', 'enterprise', '--seats', '3', ...why())).toMatchObject({
      status: 1,
      stderr: `set-plan: No workspace ${unknown}: nothing written.\n`,
    });
  });
});
