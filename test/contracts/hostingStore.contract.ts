import { beforeEach, describe, expect, it } from 'vitest';
import type { Domain } from '../../shared/domain/domains/model.ts';
import type { ClaimToServe, HostingRecord } from '../../shared/domain/domains/ports.ts';
import { newDomainId } from '../../shared/ids.ts';
import { aDomain, newHostname } from './ssoStore.contract.ts';
import { audit, makeWorkspace, minute, t0, type MadeWorkspace } from './workspaceFixtures.ts';
import type { MakeWorkspaceWorld, WorkspaceWorld } from './workspaceWorld.ts';

/**
 * The HostingStore port's contract (shared/store/domainHosting.ts): where each verified claim's
 * hosting stands and when its next step is due, the stop orders of deleted claims, and versions
 * that keep an old order's finish from removing a newer one. `make` must give a world whose work
 * index is empty.
 */
export function describeHostingStoreContract(name: string, make: MakeWorkspaceWorld): void {
  describe(`HostingStore contract: ${name}`, () => {
    let world: WorkspaceWorld;
    let made: MadeWorkspace;
    beforeEach(async () => {
      world = await make();
      made = await makeWorkspace(world);
    });
    const verified = async (at = t0): Promise<Domain> => {
      const domain = aDomain(made.workspace.id, newHostname());
      await world.domains.claim(domain, made.ownerActs, audit(made.workspace.id));
      await world.domains.verify(domain, at, audit(made.workspace.id));
      return (await world.domains.get(domain.id))!;
    };
    const served = (domain: Domain): ClaimToServe => ({
      domainId: domain.id,
      hostname: domain.hostname,
      workspaceId: domain.workspaceId,
      verifiedAt: domain.verifiedAt!,
      hosting: {
        step: 'due',
        since: domain.verifiedAt!,
        checkedAt: null,
        tenantId: null,
        certificate: null,
        gaveUp: null,
        reported: false,
      },
    });
    const deploying = (at: number): HostingRecord => ({
      step: 'deploying',
      since: at,
      checkedAt: at,
      tenantId: 'tenant-1',
      certificate: 'pending',
      gaveUp: null,
      reported: false,
    });

    it('has a verified claim due at once, its hosting at its first step', async () => {
      const domain = await verified(t0);
      expect(await world.hosting.due(t0 - 1, 10)).toEqual([]);
      expect(await world.hosting.due(t0, 10)).toEqual([{ serve: served(domain) }]);
      expect(await world.hosting.hostingOf({ workspaceId: domain.workspaceId, hostname: domain.hostname, domainId: domain.id })).toEqual(
        served(domain).hosting,
      );
    });

    it('records where hosting stands and when it is due next; none when nothing is left to do', async () => {
      const domain = await verified();
      const claim = served(domain);
      expect(await world.hosting.record(claim, deploying(t0 + minute), t0 + 5 * minute)).toBe(true);
      expect(await world.hosting.hostingOf(claim)).toEqual(deploying(t0 + minute));
      expect(await world.hosting.due(t0 + 5 * minute - 1, 10)).toEqual([]);
      expect(await world.hosting.due(t0 + 5 * minute, 10)).toEqual([{ serve: { ...claim, hosting: deploying(t0 + minute) } }]);
      const live: HostingRecord = { ...deploying(t0 + 6 * minute), step: 'live', certificate: 'issued' };
      expect(await world.hosting.record(claim, live, null)).toBe(true);
      expect(await world.hosting.due(t0 + 60 * minute, 10)).toEqual([]);
      expect(await world.hosting.hostingOf(claim)).toEqual(live);
    });

    it('records nothing for a claim deleted meanwhile (or pending, or another claim of the hostname)', async () => {
      const domain = await verified();
      await world.domains.remove(domain, made.ownerActs, audit(made.workspace.id));
      expect(await world.hosting.record(served(domain), deploying(t0), t0)).toBe(false);
      expect(await world.hosting.hostingOf({ workspaceId: domain.workspaceId, hostname: domain.hostname, domainId: domain.id })).toBeNull();
      const pending = aDomain(made.workspace.id, newHostname());
      await world.domains.claim(pending, made.ownerActs, audit(made.workspace.id));
      expect(await world.hosting.record({ ...served({ ...pending, verifiedAt: t0 }) }, deploying(t0), t0)).toBe(false);
      expect(await world.hosting.record({ ...served(domain), domainId: newDomainId() }, deploying(t0), t0)).toBe(false);
    });

    it('keeps a stop order for a deleted claim; ordered again, the first time stays and the version moves on', async () => {
      const domain = await verified();
      await world.domains.remove(domain, made.ownerActs, audit(made.workspace.id, 'domain.deleted', t0 + minute));
      const first = (await world.hosting.stopOrderOf(domain.id))!;
      expect(await world.hosting.due(t0 + minute, 10)).toEqual([{ stop: first }]);
      await world.hosting.orderStop({ domainId: domain.id, hostname: domain.hostname, workspaceId: domain.workspaceId }, t0 + 3 * minute);
      const again = (await world.hosting.stopOrderOf(domain.id))!;
      expect(again).toEqual({ ...first, version: 2 });
      expect(await world.hosting.due(t0 + 2 * minute, 10)).toEqual([]);
      expect(await world.hosting.due(t0 + 3 * minute, 10)).toEqual([{ stop: again }]);
    });

    it('makes an order for a claim with none', async () => {
      const claim = { domainId: newDomainId(), hostname: newHostname(), workspaceId: made.workspace.id };
      await world.hosting.orderStop(claim, t0);
      expect(await world.hosting.stopOrderOf(claim.domainId)).toEqual({ ...claim, orderedAt: t0, version: 1, reported: false });
      expect(await world.hosting.stopOrderOf(newDomainId())).toBeNull();
    });

    it('retries and finishes an order only at its version: a newer order stands', async () => {
      const claim = { domainId: newDomainId(), hostname: newHostname(), workspaceId: made.workspace.id };
      await world.hosting.orderStop(claim, t0);
      const old = (await world.hosting.stopOrderOf(claim.domainId))!;
      await world.hosting.retryStop(old, t0 + 10 * minute, true);
      expect(await world.hosting.stopOrderOf(claim.domainId)).toEqual({ ...old, reported: true });
      expect(await world.hosting.due(t0 + 9 * minute, 10)).toEqual([]);
      await world.hosting.orderStop(claim, t0 + minute);
      await world.hosting.retryStop(old, t0 + 30 * minute, false);
      await world.hosting.stopDone(old);
      const current = (await world.hosting.stopOrderOf(claim.domainId))!;
      expect(current).toEqual({ ...old, reported: true, version: 2 });
      expect(await world.hosting.due(t0 + minute, 10)).toEqual([{ stop: current }]);
      await world.hosting.stopDone(current);
      expect(await world.hosting.stopOrderOf(claim.domainId)).toBeNull();
    });

    it('gives claims and stops together, the longest due first, at most `limit`', async () => {
      const a = await verified(t0 + 2 * minute);
      const stop = { domainId: newDomainId(), hostname: newHostname(), workspaceId: made.workspace.id };
      await world.hosting.orderStop(stop, t0 + minute);
      const b = await verified(t0 + 3 * minute);
      const due = await world.hosting.due(t0 + 10 * minute, 2);
      expect(due).toEqual([{ stop: (await world.hosting.stopOrderOf(stop.domainId))! }, { serve: served(a) }]);
      expect(await world.hosting.due(t0 + 10 * minute, 10)).toHaveLength(3);
      expect((await world.hosting.due(t0 + 10 * minute, 10)).at(-1)).toEqual({ serve: served(b) });
    });
  });
}
