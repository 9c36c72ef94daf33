import { describe, expect, it } from 'vitest';
import { domainLimits } from '../../shared/limits.ts';
import { claimDomain, deleteDomain, verifyDomain } from '../../shared/domain/domains/domains.ts';
import { checkHost, HostDirectory } from '../../shared/domain/domains/hosts.ts';
import { linkHostOf, servedOn } from '../../shared/domain/domains/linkHosts.ts';
import { config, world } from './workspaces-world.ts';

// Links on a workspace's own hostname (issue 17, rule 5): made only on a hostname the workspace
// verified, while Team; served there only under that very claim; a deleted claim refused at once.

async function withTeam() {
  const w = world();
  const owner = w.person('owner');
  const id = await w.workspace(owner, { seats: 4 });
  return { w, owner, id };
}

describe('a hostname’s links (linkHostOf, checkHost)', () => {
  it('makes links only on a hostname the workspace verified, and only while Team', async () => {
    const { w, owner, id } = await withTeam();
    const held = await w.verifiedDomain(id, owner, 'links.example.com');
    const ports = { ...w.ports, hostClaims: w.ports.domains };
    expect(await linkHostOf(id, 'LINKS.example.com.', ports)).toEqual({ hostname: 'links.example.com', domainId: held.id });
    const bo = w.person('bo');
    const theirs = await w.workspace(bo);
    await w.verifiedDomain(theirs, bo, 'theirs.example.com');
    await claimDomain(id, 'pending.example.com', owner.id, w.ports);
    for (const hostname of ['theirs.example.com', 'pending.example.com', 'not a hostname']) {
      await expect(linkHostOf(id, hostname, ports), hostname).rejects.toMatchObject({
        kind: 'invalid',
        fields: [{ field: 'hostname', message: expect.any(String) }],
      });
    }
    w.setWorkspace(id, { plan: 'free' });
    await expect(linkHostOf(id, 'links.example.com', ports)).rejects.toMatchObject({
      kind: 'forbidden',
      facts: { reason: 'plan', plan: 'free', required: 'team' },
    });
  });

  it('serves on a hostname only its verified claim’s links, and refuses (unknown_host) a hostname never verified or deleted', async () => {
    const { w, owner, id } = await withTeam();
    const held = await w.verifiedDomain(id, owner, 'served.example.com');
    const hosts = new HostDirectory(w.ports.domains, w.clock);
    const claim = await checkHost('served.example.com:443', config.WEB_ORIGIN, false, hosts);
    expect(claim).toEqual({ hostname: 'served.example.com', domainId: held.id, workspaceId: id });
    expect(servedOn({ linkHost: { hostname: 'served.example.com', domainId: held.id } }, claim)).toBe(true);
    expect(servedOn({}, claim)).toBe(false);
    expect(servedOn({ linkHost: { hostname: 'served.example.com', domainId: 'dom_earlier' } }, claim)).toBe(false);
    expect(servedOn({}, null)).toBe(true);
    expect(await checkHost('eu.hushlink.example', config.WEB_ORIGIN, false, hosts)).toBeNull();
    await expect(checkHost('never.example.com', config.WEB_ORIGIN, false, hosts)).rejects.toMatchObject({
      kind: 'not_found',
      facts: { reason: 'unknown_host' },
    });
    // Deleted: refused at once, though this instance read the claim a moment ago.
    await deleteDomain(held.id, owner.id, w.ports);
    await expect(checkHost('served.example.com', config.WEB_ORIGIN, false, hosts)).rejects.toMatchObject({
      facts: { reason: 'unknown_host' },
    });
  });

  it('remembers only that a hostname has no claim, for 5 seconds at most, unless told it changed', async () => {
    const { w, owner, id } = await withTeam();
    const hosts = new HostDirectory(w.ports.domains, w.clock);
    const domain = await claimDomain(id, 'late.example.com', owner.id, w.ports);
    await expect(checkHost('late.example.com', config.WEB_ORIGIN, false, hosts)).rejects.toMatchObject({
      facts: { reason: 'unknown_host' },
    });
    w.publish(domain);
    await verifyDomain(domain.id, owner.id, w.ports);
    // Another instance's verification: this one may answer from what it read, within the bound.
    w.clock.advance(domainLimits.hostCacheSeconds - 1);
    await expect(checkHost('late.example.com', config.WEB_ORIGIN, false, hosts)).rejects.toMatchObject({
      facts: { reason: 'unknown_host' },
    });
    w.clock.advance(1);
    expect(await checkHost('late.example.com', config.WEB_ORIGIN, false, hosts)).toMatchObject({ domainId: domain.id });
    // On the instance that changed it (hostsChanged → forget), at once.
    const fresh = new HostDirectory(w.ports.domains, w.clock);
    await expect(checkHost('other.example.com', config.WEB_ORIGIN, false, fresh)).rejects.toMatchObject({
      facts: { reason: 'unknown_host' },
    });
    await w.verifiedDomain(id, owner, 'other.example.com');
    fresh.forget('other.example.com');
    expect(await checkHost('other.example.com', config.WEB_ORIGIN, false, fresh)).toMatchObject({ hostname: 'other.example.com' });
  });
});
