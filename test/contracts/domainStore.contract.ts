import { beforeEach, describe, expect, it } from 'vitest';
import { newDomainId } from '../../shared/ids.ts';
import { aDomain, newHostname } from './ssoStore.contract.ts';
import { actorOf, admins, audit, join, makeWorkspace, minute, t0, type MadeWorkspace } from './workspaceFixtures.ts';
import type { MakeWorkspaceWorld, WorkspaceWorld } from './workspaceWorld.ts';

/**
 * The DomainStore port's contract (shared/store/workspaceDomains.ts): one claim of a hostname per
 * workspace, many pending claims of it across workspaces, one verified claim per hostname (the
 * first found), the schedule's list of pending claims, and a claim's removal taking its hostname
 * (and a stop order for its tenant) with it. `make` must give a world whose work index is empty.
 */
export function describeDomainStoreContract(name: string, make: MakeWorkspaceWorld): void {
  describe(`DomainStore contract: ${name}`, () => {
    let world: WorkspaceWorld;
    let made: MadeWorkspace;
    let ws: string;
    beforeEach(async () => {
      world = await make();
      made = await makeWorkspace(world, { seats: 2 });
      ws = made.workspace.id;
    });
    const claim = async (hostname = newHostname(), workspace = made, at = t0) => {
      const domain = aDomain(workspace.workspace.id, hostname, { createdAt: at });
      return { domain, outcome: await world.domains.claim(domain, workspace.ownerActs, audit(workspace.workspace.id, 'domain.claimed')) };
    };

    it('claims a hostname: read by id and listed, due for its first check at once', async () => {
      const { domain, outcome } = await claim();
      expect(outcome).toBe('claimed');
      expect(await world.domains.get(domain.id)).toEqual(domain);
      expect(await world.domains.list(ws)).toEqual([domain]);
      expect(await world.domains.pendingDue(t0, 10)).toEqual([domain]);
      expect(await world.domains.pendingDue(t0 - 1, 10)).toEqual([]);
      expect(await world.domains.get(newDomainId())).toBeNull();
      expect(await world.domains.verifiedClaim(domain.hostname)).toBeNull();
    });

    it('refuses a hostname the workspace claimed already, and an actor whose role went', async () => {
      const { domain } = await claim();
      expect((await claim(domain.hostname)).outcome).toBe('duplicate');
      const member = await join(world, made);
      const other = aDomain(ws, newHostname());
      expect(await world.domains.claim(other, actorOf(member, admins), audit(ws))).toBe('refused');
      expect(await world.domains.get(other.id)).toBeNull();
      expect(await world.domains.list(ws)).toHaveLength(1);
    });

    it('lets several workspaces claim a hostname; the first verified holds it, the others are taken', async () => {
      const hostname = newHostname();
      const other = await makeWorkspace(world);
      const mine = (await claim(hostname)).domain;
      const theirs = (await claim(hostname, other)).domain;
      const outcomes = await Promise.all(
        [mine, theirs].map((domain) => world.domains.verify(domain, t0 + minute, audit(domain.workspaceId, 'domain.verified'))),
      );
      const holder = outcomes[0] === 'verified' ? mine : theirs;
      expect([...outcomes].sort()).toEqual(['taken', 'verified']);
      expect(await world.domains.verifiedClaim(hostname)).toEqual({ hostname, domainId: holder.id, workspaceId: holder.workspaceId });
    });

    it('verifies once: the claim verified, off the checks, then `already`; a deleted claim is `gone`', async () => {
      const { domain } = await claim();
      expect(await world.domains.verify(domain, t0 + minute, audit(ws))).toBe('verified');
      expect(await world.domains.get(domain.id)).toEqual({
        ...domain,
        state: 'verified',
        verifiedAt: t0 + minute,
        lastCheckedAt: t0 + minute,
        lastError: null,
      });
      expect(await world.domains.pendingDue(t0 + 60 * minute, 10)).toEqual([]);
      expect(await world.domains.verify(domain, t0 + 2 * minute, audit(ws))).toBe('already');
      const gone = (await claim()).domain;
      await world.domains.remove(gone, made.ownerActs, audit(ws));
      expect(await world.domains.verify(gone, t0, audit(ws))).toBe('gone');
    });

    it('records a failed check and checks again ten minutes later', async () => {
      const { domain } = await claim();
      await world.domains.recordCheck(domain, t0 + minute, 'txt_mismatch');
      expect(await world.domains.get(domain.id)).toMatchObject({ lastCheckedAt: t0 + minute, lastError: 'txt_mismatch', state: 'pending' });
      expect(await world.domains.pendingDue(t0 + 10 * minute, 10)).toEqual([]);
      expect((await world.domains.pendingDue(t0 + 11 * minute, 10)).map((due) => due.id)).toEqual([domain.id]);
    });

    it('takes a claim off the schedule: later checks are recorded without putting it back', async () => {
      const { domain } = await claim();
      await world.domains.stopChecking(domain);
      expect(await world.domains.pendingDue(t0 + 60 * minute, 10)).toEqual([]);
      await world.domains.recordCheck(domain, t0 + minute, 'dns_unavailable');
      expect(await world.domains.get(domain.id)).toMatchObject({ lastError: 'dns_unavailable', state: 'pending' });
      expect(await world.domains.pendingDue(t0 + 60 * minute, 10)).toEqual([]);
      expect(await world.domains.list(ws)).toHaveLength(1);
    });

    it('gives the due claims oldest first, at most `limit`', async () => {
      const claims = [];
      for (const at of [t0 + 2 * minute, t0, t0 + minute]) claims.push((await claim(newHostname(), made, at)).domain);
      expect((await world.domains.pendingDue(t0 + 5 * minute, 2)).map((due) => due.id)).toEqual([claims[1]!.id, claims[2]!.id]);
    });

    it('lists a workspace’s claims by creation, then hostname', async () => {
      const late = (await claim(`b-${newHostname()}`, made, t0 + minute)).domain;
      const b = (await claim(`b-${newHostname()}`)).domain;
      const a = (await claim(`a-${newHostname()}`)).domain;
      expect((await world.domains.list(ws)).map((domain) => domain.id)).toEqual([a.id, b.id, late.id]);
    });

    describe('remove', () => {
      it('removes a pending claim; again, it is done already', async () => {
        const { domain } = await claim();
        expect(await world.domains.remove(domain, made.ownerActs, audit(ws))).toBe(true);
        expect(await world.domains.get(domain.id)).toBeNull();
        expect(await world.domains.list(ws)).toEqual([]);
        expect(await world.domains.pendingDue(t0 + minute, 10)).toEqual([]);
        expect(await world.domains.remove(domain, made.ownerActs, audit(ws))).toBe(true);
        expect(await world.hosting.stopOrderOf(domain.id)).toBeNull();
      });

      it('removes a verified claim with its hostname, leaving a stop order for its tenant', async () => {
        const { domain } = await claim();
        await world.domains.verify(domain, t0, audit(ws));
        const row = audit(ws, 'domain.deleted', t0 + minute);
        expect(await world.domains.remove({ ...domain, state: 'verified' }, made.ownerActs, row)).toBe(true);
        expect(await world.domains.verifiedClaim(domain.hostname)).toBeNull();
        expect(await world.hosting.stopOrderOf(domain.id)).toEqual({
          domainId: domain.id,
          workspaceId: ws,
          hostname: domain.hostname,
          orderedAt: t0 + minute,
          version: 1,
          reported: false,
        });
        expect((await claim(domain.hostname)).outcome).toBe('claimed');
      });

      it('removes a claim read before its verification with the hostname it took since', async () => {
        const { domain } = await claim();
        await world.domains.verify(domain, t0, audit(ws));
        expect(await world.domains.remove(domain, made.ownerActs, audit(ws))).toBe(true);
        expect(await world.domains.verifiedClaim(domain.hostname)).toBeNull();
        expect(await world.hosting.stopOrderOf(domain.id)).not.toBeNull();
      });

      it('leaves another workspace’s hold on the hostname alone', async () => {
        const hostname = newHostname();
        const other = await makeWorkspace(world);
        const theirs = (await claim(hostname, other)).domain;
        await world.domains.verify(theirs, t0, audit(other.workspace.id));
        const mine = (await claim(hostname)).domain;
        expect(await world.domains.remove(mine, made.ownerActs, audit(ws))).toBe(true);
        expect((await world.domains.verifiedClaim(hostname))!.domainId).toBe(theirs.id);
        expect(await world.hosting.stopOrderOf(mine.id)).toBeNull();
      });

      it('refuses an actor whose role went', async () => {
        const { domain } = await claim();
        const member = await join(world, made);
        expect(await world.domains.remove(domain, actorOf(member, admins), audit(ws))).toBe(false);
        expect(await world.domains.get(domain.id)).not.toBeNull();
      });

      it('answers a later claim of the hostname by its own id, never the removed one’s', async () => {
        const { domain } = await claim();
        await world.domains.remove(domain, made.ownerActs, audit(ws));
        const again = (await claim(domain.hostname)).domain;
        expect(await world.domains.get(domain.id)).toBeNull();
        expect((await world.domains.get(again.id))!.id).toBe(again.id);
      });
    });
  });
}
