import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { domainLimits } from '../../shared/limits.ts';
import { callFrom, signIn } from '../support/accounts.ts';
import { apiClient, startTestRuntime } from '../support/runtime.ts';
import { teamWorkspace, type TeamWorkspace } from '../support/workspaces.ts';

// Serving verified hostnames (issue 17) through the schedule's host-domains run, against
// DynamoDB Local and the stand-in for CloudFront's tenants (local/hostnames.ts): a verified claim
// is served at the next run and asked no more once live; a deleted one leaves a stop order that
// runs until its tenant is gone; the workspace's list of domains never changes shape for it.
// The run's rules over the domain fakes are test/usecases/workspaces-hosting.test.ts's.

/** Runs once, just before the schedule takes the claim of this hostname off the pending checks' list. */
let beforeChecksStop: { hostname: string; action: () => Promise<void> } | null = null;
function interceptChecksStop(client: DynamoDBDocumentClient): void {
  client.middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as { UpdateExpression?: string; Key?: { sk?: string } };
      const held = beforeChecksStop;
      if (held && input.UpdateExpression === 'REMOVE gsi2pk, gsi2sk' && input.Key?.sk === `DOMAIN#${held.hostname}`) {
        beforeChecksStop = null;
        await held.action();
      }
      return next(args);
    },
    { step: 'initialize', name: 'interceptChecksStop' },
  );
}

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
beforeAll(async () => {
  runtime = await startTestRuntime({ instrumentDynamo: interceptChecksStop });
  api = apiClient(runtime);
});
afterAll(() => runtime?.stop());

let names = 0;
const freshHostname = (label = 'links') => `${label}-${process.pid}-${++names}.hosting.example`;
const hostDomains = () => runtime.scheduler.run('host-domains');
const stepsOf = (hostname: string) =>
  runtime.hostnames
    .calls()
    .filter((call) => call.hostname === hostname)
    .map((call) => call.operation);

/** Runs host-domains until nothing is due, so each test starts from its own claims alone. */
async function settle(): Promise<void> {
  while ((await hostDomains()).processed > 0);
}
beforeEach(settle);

/** Claims a hostname for the workspace, publishes its TXT record and verifies it (through the routes). */
async function verifiedClaim(
  workspace: TeamWorkspace,
  hostname = freshHostname(),
): Promise<{ id: string; hostname: string; workspaceId: string; domainId: string }> {
  const claimed = await api.post('/v1/domains', { workspace_id: workspace.id, hostname }, workspace.owner.auth);
  expect(claimed.status).toBe(201);
  runtime.dns.setRecords(claimed.body.verification.name, [{ type: 'TXT', data: claimed.body.verification.value }]);
  expect((await api.post(`/v1/domains/${claimed.body.id}/verify`, undefined, workspace.owner.auth)).body.state).toBe('verified');
  return { id: claimed.body.id, domainId: claimed.body.id, hostname, workspaceId: workspace.id };
}
const hostingOf = (claim: { domainId: string; hostname: string; workspaceId: string }) =>
  runtime.functions.schedule.domainHosting.hostingOf(claim);
const stopOrderOf = (domainId: string) => runtime.functions.schedule.domainHosting.stopOrderOf(domainId);
/** A time of the run that began at `ran` (the clock follows real time, too). */
function expectDuring(at: number, ran: number): void {
  expect(at).toBeGreaterThanOrEqual(ran);
  expect(at).toBeLessThanOrEqual(runtime.clock.now());
}

describe('a verified claim', () => {
  it('is served at the schedule’s next run, and once live CloudFront is asked no more; the list of domains keeps its shape', async () => {
    const workspace = await teamWorkspace(runtime);
    const pending = (
      await api.post('/v1/domains', { workspace_id: workspace.id, hostname: freshHostname('pending') }, workspace.owner.auth)
    ).body;
    const claim = await verifiedClaim(workspace);
    const before = (await api.get(`/v1/domains?workspace_id=${workspace.id}`, workspace.owner.auth)).body;

    const ran = runtime.clock.now();
    expect(await hostDomains()).toEqual({ task: 'host-domains', processed: 1 });
    expect(runtime.hostnames.serving()).toContain(claim.hostname);
    expect(stepsOf(claim.hostname)).toEqual(['serve']);
    // Only verified claims are served.
    expect(stepsOf(pending.hostname)).toEqual([]);
    const hosting = await hostingOf(claim);
    expect(hosting).toMatchObject({ step: 'live', certificate: 'issued', tenantId: `dt_local_${claim.domainId}` });
    expectDuring(hosting!.checkedAt!, ran);

    // The list is the same reply as before, read from the table alone.
    const calls = runtime.hostnames.calls().length;
    const after = await api.get(`/v1/domains?workspace_id=${workspace.id}`, workspace.owner.auth);
    expect(after.status).toBe(200);
    expect(after.body).toEqual(before);
    for (const item of after.body.items)
      expect(Object.keys(item).sort()).toEqual(['hostname', 'id', 'last_checked_at', 'last_error', 'state', 'verification', 'verified_at']);

    runtime.clock.advance(24 * 3600);
    await settle();
    expect(runtime.hostnames.calls()).toHaveLength(calls);
  });

  it('is listed at /_dev/hostnames with the routing endpoint its CNAME would name', async () => {
    const claim = await verifiedClaim(await teamWorkspace(runtime));
    const ran = runtime.clock.now();
    await hostDomains();
    const listed = await fetch(`${runtime.url}/_dev/hostnames`);
    expect(listed.status).toBe(200);
    const body = (await listed.json()) as { routing_endpoint: string; tenants: Array<Record<string, unknown>> };
    expect(body.routing_endpoint).toBe(new URL(runtime.url).host);
    expect(body.tenants.find((tenant) => tenant.hostname === claim.hostname)).toEqual({
      hostname: claim.hostname,
      domain_id: claim.domainId,
      tenant_id: `dt_local_${claim.domainId}`,
      served_at: expect.any(String),
      stopped_at: null,
    });
    expectDuring(Date.parse(String(body.tenants.find((tenant) => tenant.hostname === claim.hostname)!.served_at)), ran);
    // Only to this machine's names, like the other local routes.
    expect(
      (await callFrom(runtime, '127.0.0.1', 'GET', '/_dev/hostnames', undefined, { host: `rebind.attacker.example:${runtime.port}` }))
        .status,
    ).toBe(404);
  });

  it('is served when verified just as the schedule’s checks of it ran out', async () => {
    const workspace = await teamWorkspace(runtime);
    const hostname = freshHostname('late');
    const claimed = (await api.post('/v1/domains', { workspace_id: workspace.id, hostname }, workspace.owner.auth)).body;
    runtime.clock.advance(domainLimits.recheckSeconds + 1);
    runtime.dns.setRecords(claimed.verification.name, [{ type: 'TXT', data: claimed.verification.value }]);
    // Its owner verifies it between the schedule reading it as pending and taking it off the list.
    const owner = await signIn(runtime, workspace.owner.user.email);
    beforeChecksStop = {
      hostname,
      action: async () => expect((await api.post(`/v1/domains/${claimed.id}/verify`, undefined, owner.auth)).body.state).toBe('verified'),
    };
    await runtime.scheduler.run('check-domains');
    expect(beforeChecksStop).toBeNull();
    await settle();
    expect(runtime.hostnames.serving()).toContain(hostname);
  });
});

describe('a deleted claim', () => {
  it('leaves a stop order that runs until its tenant is gone', async () => {
    const workspace = await teamWorkspace(runtime);
    const claim = await verifiedClaim(workspace);
    await hostDomains();
    expect((await api.delete(`/v1/domains/${claim.id}`, workspace.owner.auth)).status).toBe(200);
    // Written with the claim's removal, due at once.
    expect(await stopOrderOf(claim.domainId)).toMatchObject({
      domainId: claim.domainId,
      hostname: claim.hostname,
      workspaceId: workspace.id,
      version: 1,
    });
    const ran = runtime.clock.now();
    expect(await hostDomains()).toEqual({ task: 'host-domains', processed: 1 });
    expect(stepsOf(claim.hostname)).toEqual(['serve', 'stop']);
    expect(runtime.hostnames.serving()).not.toContain(claim.hostname);
    expectDuring(runtime.hostnames.list().find((tenant) => tenant.domainId === claim.domainId)!.stoppedAt!, ran);
    expect(await stopOrderOf(claim.domainId)).toBeNull();
    expect((await hostDomains()).processed).toBe(0);
  });

  it('deleted while its tenant was being made: the tenant is stopped too', async () => {
    const workspace = await teamWorkspace(runtime);
    const claim = await verifiedClaim(workspace);
    runtime.hostnames.whileServing(claim.hostname, async () => {
      expect((await api.delete(`/v1/domains/${claim.id}`, workspace.owner.auth)).status).toBe(200);
    });
    await hostDomains();
    // Recording the served claim found it gone, and ordered its stop again (version 2).
    expect(await stopOrderOf(claim.domainId)).toMatchObject({ version: 2 });
    await hostDomains();
    expect(stepsOf(claim.hostname)).toEqual(['serve', 'stop']);
    expect(runtime.hostnames.serving()).not.toContain(claim.hostname);
    expect(await stopOrderOf(claim.domainId)).toBeNull();
  });
});
