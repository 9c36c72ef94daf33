import { describe, expect, it } from 'vitest';
import { LocalHostnames } from '../../local/hostnames.ts';
import { domainLimits } from '../../shared/limits.ts';
import { CountingMetrics } from '../../shared/metrics.ts';
import { claimDomain, deleteDomain } from '../../shared/domain/domains/domains.ts';
import { hostVerifiedDomains } from '../../shared/domain/domains/hosting.ts';
import { world, type World } from './workspaces-world.ts';

// The schedule's host-domains run (issue 17) over the domain fakes' items and the local stand-in
// for CloudFront's tenants (local/hostnames.ts): claims verified and deleted through the use
// cases, then served, given up and stopped. The run's rules against a scripted CloudFront are
// test/unit/domain-hosting.test.ts's; its DynamoDB index and conditions workspaces-domain-hosting's.

function hostingWorld() {
  const w = world();
  const hostnames = new LocalHostnames(w.clock, 'localhost:3000');
  const metrics = new CountingMetrics();
  const ports = { ...w.ports, hosting: hostnames, metrics };
  const run = async () => {
    const totals = await hostVerifiedDomains(ports);
    metrics.flush();
    return totals;
  };
  const stepsOf = (hostname: string) =>
    hostnames
      .calls()
      .filter((call) => call.hostname === hostname)
      .map((call) => call.operation);
  return { w, hostnames, metrics, run, stepsOf };
}

async function scene() {
  const h = hostingWorld();
  const owner = h.w.person('owner');
  const id = await h.w.workspace(owner);
  return { ...h, owner, id };
}

const hostingOf = (w: World, domain: { id: string; hostname: string; workspaceId: string }) =>
  w.ports.domainHosting.hostingOf({ domainId: domain.id, hostname: domain.hostname, workspaceId: domain.workspaceId });

describe('a verified claim', () => {
  it('is served at the next run, live at once; a pending one is not; once live CloudFront is asked no more', async () => {
    const { w, run, stepsOf, hostnames, owner, id } = await scene();
    const pending = await claimDomain(id, 'pending.example.com', owner.id, w.ports);
    const claim = await w.verifiedDomain(id, owner, 'links.example.com');
    expect(await run()).toEqual({ steps: 1, live: 1, stopped: 0, gaveUp: 0, failed: 0 });
    expect(hostnames.serving()).toEqual(['links.example.com']);
    expect(stepsOf(pending.hostname)).toEqual([]);
    expect(await hostingOf(w, claim)).toMatchObject({
      step: 'live',
      certificate: 'issued',
      tenantId: `dt_local_${claim.id}`,
      checkedAt: w.clock.now(),
    });
    w.clock.advance(24 * 3600);
    expect((await run()).steps).toBe(0);
    expect(stepsOf(claim.hostname)).toEqual(['serve']);
  });

  it('waits for its CNAME, asking again every 5 minutes on the first day, and is served once CloudFront takes it', async () => {
    const { w, run, stepsOf, hostnames, owner, id } = await scene();
    const claim = await w.verifiedDomain(id, owner, 'links.example.com');
    hostnames.answer(claim.hostname, 'awaiting_cname');
    await run();
    expect(await hostingOf(w, claim)).toMatchObject({ step: 'awaiting_cname', tenantId: null });
    w.clock.advance(domainLimits.cnameWait.firstDayEverySeconds - 1);
    await run();
    expect(stepsOf(claim.hostname)).toEqual(['serve']);
    hostnames.answer(claim.hostname, null);
    w.clock.advance(1);
    await run();
    expect(stepsOf(claim.hostname)).toEqual(['serve', 'serve']);
    expect(await hostingOf(w, claim)).toMatchObject({ step: 'live' });
  });

  it('is given up when its certificate fails: its tenant stopped, counted, never served again', async () => {
    const { w, run, stepsOf, hostnames, metrics, owner, id } = await scene();
    const claim = await w.verifiedDomain(id, owner, 'links.example.com');
    hostnames.answer(claim.hostname, 'certificate_failed');
    expect(await run()).toMatchObject({ steps: 1, gaveUp: 1 });
    expect(await hostingOf(w, claim)).toMatchObject({ step: 'given_up', gaveUp: 'certificate_failed' });
    expect(stepsOf(claim.hostname)).toEqual(['serve', 'stop']);
    expect(hostnames.serving()).toEqual([]);
    expect(metrics.total('CustomHostnamesGivenUp')).toBe(1);
    hostnames.answer(claim.hostname, null);
    w.clock.advance(24 * 3600);
    await run();
    expect(stepsOf(claim.hostname)).toEqual(['serve', 'stop']);
  });

  it(`is served ${domainLimits.hostingStepsPerRun} at a time, the longest due first`, async () => {
    const { w, run, stepsOf, hostnames, owner, id } = await scene();
    w.setWorkspace(id, { seats: 30 });
    const claims = [];
    for (let i = 0; i < domainLimits.hostingStepsPerRun + 2; i++) {
      claims.push(await w.verifiedDomain(id, owner, `n${i}.example.com`));
      w.clock.advance(1);
    }
    expect((await run()).steps).toBe(domainLimits.hostingStepsPerRun);
    expect(claims.filter((claim) => stepsOf(claim.hostname).length > 0)).toEqual(claims.slice(0, domainLimits.hostingStepsPerRun));
    expect((await run()).steps).toBe(2);
    expect(hostnames.serving()).toHaveLength(claims.length);
  });
});

describe('a deleted claim', () => {
  it('leaves a stop order, due at once, carried out until its tenant is gone', async () => {
    const { w, run, stepsOf, hostnames, owner, id } = await scene();
    const claim = await w.verifiedDomain(id, owner, 'links.example.com');
    await run();
    await deleteDomain(claim.id, owner.id, w.ports);
    expect(await w.ports.domainHosting.stopOrderOf(claim.id)).toMatchObject({
      domainId: claim.id,
      hostname: claim.hostname,
      workspaceId: id,
      version: 1,
    });
    expect(await run()).toMatchObject({ steps: 1, stopped: 1 });
    expect(stepsOf(claim.hostname)).toEqual(['serve', 'stop']);
    expect(hostnames.serving()).toEqual([]);
    expect(await w.ports.domainHosting.stopOrderOf(claim.id)).toBeNull();
    expect((await run()).steps).toBe(0);
  });

  it('leaves nothing to stop when it was never verified', async () => {
    const { w, run, owner, id } = await scene();
    const pending = await claimDomain(id, 'pending.example.com', owner.id, w.ports);
    await deleteDomain(pending.id, owner.id, w.ports);
    expect(await w.ports.domainHosting.stopOrderOf(pending.id)).toBeNull();
    expect((await run()).steps).toBe(0);
  });

  it('deleted while its tenant was being made: its stop is ordered again, and the tenant goes', async () => {
    const { w, run, stepsOf, hostnames, owner, id } = await scene();
    const claim = await w.verifiedDomain(id, owner, 'links.example.com');
    hostnames.whileServing(claim.hostname, () => deleteDomain(claim.id, owner.id, w.ports));
    await run();
    expect(await w.ports.domainHosting.stopOrderOf(claim.id)).toMatchObject({ version: 2 });
    await run();
    expect(stepsOf(claim.hostname)).toEqual(['serve', 'stop']);
    expect(hostnames.serving()).toEqual([]);
    expect(await w.ports.domainHosting.stopOrderOf(claim.id)).toBeNull();
  });

  it('frees its hostname for the next claim, by another workspace, whose tenant is its own', async () => {
    const { w, run, hostnames, owner, id } = await scene();
    const old = await w.verifiedDomain(id, owner, 'links.example.com');
    await run();
    await deleteDomain(old.id, owner.id, w.ports);
    const bo = w.person('bo');
    const next = await w.verifiedDomain(await w.workspace(bo), bo, 'links.example.com');
    // The old tenant's stop is due first; the new claim is served once the hostname is free.
    while ((await run()).steps > 0);
    w.clock.advance(domainLimits.hostingRetrySeconds.hostnameTaken);
    while ((await run()).steps > 0);
    expect(await hostingOf(w, next)).toMatchObject({ step: 'live', tenantId: `dt_local_${next.id}` });
    expect(hostnames.list().map((tenant) => [tenant.domainId, tenant.stoppedAt === null])).toEqual([
      [next.id, true],
      [old.id, false],
    ]);
  });
});
