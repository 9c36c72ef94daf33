import { describe, expect, it } from 'vitest';
import { domainLimits } from '../../shared/limits.ts';
import { challengeName, challengeValue } from '../../shared/domain/domains/hostname.ts';
import { claimDomain, deleteDomain, listDomains, recheckPendingDomains, verifyDomain } from '../../shared/domain/domains/domains.ts';
import { Conflict, Forbidden, NotFound } from '../../shared/domain/refusals.ts';
import { world } from './workspaces-world.ts';

// Custom domains (issue 17, rule 5): a claim proved by its own TXT record, one verified claim
// per hostname, the schedule's re-checks, deletion (links on a hostname: workspaces-link-hosts).

const day = 24 * 3600;

async function withTeam() {
  const w = world();
  const owner = w.person('owner');
  const id = await w.workspace(owner, { seats: 4 });
  return { w, owner, id };
}

describe('claimDomain', () => {
  it('claims a hostname, normalised (lower case, punycode): pending, with a challenge of its own, recorded', async () => {
    const { w, owner, id } = await withTeam();
    const domain = await claimDomain(id, '  Links.BÜCHER.example.com. ', owner.id, w.ports);
    expect(domain).toMatchObject({
      id: expect.stringMatching(/^dom_/),
      workspaceId: id,
      hostname: 'links.xn--bcher-kva.example.com',
      state: 'pending',
      verifiedAt: null,
      lastError: null,
      checkUntil: w.clock.now() + domainLimits.recheckSeconds * 1000,
    });
    expect(domain.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await w.rowOf(id, 'domain.claimed')).toMatchObject({ target: domain.id, details: { hostname: domain.hostname } });
    // Another workspace may claim it too (a squatter blocks no one), with its own challenge.
    const bo = w.person('bo');
    const second = await claimDomain(await w.workspace(bo), 'links.xn--bcher-kva.example.com', bo.id, w.ports);
    expect(second.token).not.toBe(domain.token);
    // The same workspace twice: a conflict.
    await expect(claimDomain(id, 'links.bücher.example.com', owner.id, w.ports)).rejects.toMatchObject({
      kind: 'conflict',
      facts: { reason: 'already_claimed' },
    });
  });

  it('refuses what is not a hostname a workspace may claim, at hostname', async () => {
    const { w, owner, id } = await withTeam();
    for (const hostname of [
      '192.0.2.1',
      '0x7f.1',
      'intranet',
      'https://a.example.com',
      'a.example.com:8443',
      '*.example.com',
      'eu.hushlink.example',
      'sub.eu.hushlink.example',
      'links.test',
    ]) {
      await expect(claimDomain(id, hostname, owner.id, w.ports), hostname).rejects.toMatchObject({
        kind: 'invalid',
        fields: [{ field: 'hostname', message: expect.any(String) }],
      });
    }
    expect(await listDomains(id, owner.id, w.ports)).toEqual([]);
  });

  it('refuses a hostname another workspace verified (hostname_verified), and more than the workspace may hold (domain_limit)', async () => {
    const { w, owner, id } = await withTeam();
    const bo = w.person('bo');
    const theirs = await w.workspace(bo);
    await w.verifiedDomain(theirs, bo, 'held.example.com');
    const taken = claimDomain(id, 'held.example.com', owner.id, w.ports);
    await expect(taken).rejects.toBeInstanceOf(Conflict);
    await expect(claimDomain(id, 'held.example.com', owner.id, w.ports)).rejects.toMatchObject({ facts: { reason: 'hostname_verified' } });
    for (let i = 0; i < domainLimits.perWorkspace; i++) await claimDomain(id, `n${i}.example.com`, owner.id, w.ports);
    await expect(claimDomain(id, 'one-more.example.com', owner.id, w.ports)).rejects.toMatchObject({
      kind: 'conflict',
      facts: { reason: 'domain_limit' },
    });
  });

  it('is Team’s (forbidden, plan), the owners’ and admins’ (forbidden, role); not found outside the workspace', async () => {
    const { w, owner, id } = await withTeam();
    const member = await w.join(id, owner, 'member');
    const admin = await w.join(id, owner, 'admin');
    await expect(claimDomain(id, 'a.example.com', member.id, w.ports)).rejects.toMatchObject({
      kind: 'forbidden',
      facts: { reason: 'role' },
    });
    expect((await claimDomain(id, 'b.example.com', admin.id, w.ports)).state).toBe('pending');
    await expect(claimDomain(id, 'c.example.com', w.person('outsider').id, w.ports)).rejects.toBeInstanceOf(NotFound);
    await expect(claimDomain('wks_AAAAAAAAAAAAAAAAAAAAAA', 'c.example.com', owner.id, w.ports)).rejects.toBeInstanceOf(NotFound);
    w.setWorkspace(id, { plan: 'free' });
    await expect(claimDomain(id, 'd.example.com', owner.id, w.ports)).rejects.toMatchObject({
      kind: 'forbidden',
      facts: { reason: 'plan', plan: 'free', required: 'team' },
    });
  });
});

describe('verifyDomain', () => {
  it('looks the record up now: not there, beside others, wrong, servers failing, then found; verified stays verified without a lookup', async () => {
    const { w, owner, id } = await withTeam();
    const domain = await claimDomain(id, 'links.example.com', owner.id, w.ports);
    const name = challengeName(domain.hostname);
    const check = () => verifyDomain(domain.id, owner.id, w.ports);
    expect(await check()).toMatchObject({ state: 'pending', lastError: 'txt_not_found', lastCheckedAt: w.clock.now() });
    w.dns.publish(name, 'v=spf1 -all', 'hushlink-verification=someone-elses-token');
    expect((await check()).lastError).toBe('txt_mismatch');
    w.dns.fail(name, 'servfail');
    expect((await check()).lastError).toBe('dns_unavailable');
    w.dns.fail(name, 'timeout');
    expect((await check()).lastError).toBe('dns_unavailable');
    w.dns.fail(name, null);
    w.clock.advance(60);
    w.dns.publish(name, 'v=spf1 -all', ` ${challengeValue(domain.token)} `);
    const done = await check();
    expect(done).toMatchObject({ state: 'verified', verifiedAt: w.clock.now(), lastError: null });
    expect(w.hostsChanged).toEqual([domain.hostname]);
    expect(await w.rowOf(id, 'domain.verified')).toMatchObject({ actor: { userId: owner.id, via: 'session' } });
    const asked = w.dns.asked.length;
    expect((await check()).state).toBe('verified');
    expect(w.dns.asked).toHaveLength(asked);
    expect(await listDomains(id, owner.id, w.ports)).toEqual([expect.objectContaining({ id: domain.id, state: 'verified' })]);
  });

  it('gives a hostname to the first claim whose own record is found: the other stays pending (verified_elsewhere)', async () => {
    const { w, owner, id } = await withTeam();
    const bo = w.person('bo');
    const theirs = await w.workspace(bo);
    const a = await claimDomain(id, 'contested.example.com', owner.id, w.ports);
    const b = await claimDomain(theirs, 'contested.example.com', bo.id, w.ports);
    // Both records at the name: each claim proves only itself.
    w.dns.publish(challengeName(a.hostname), challengeValue(a.token), challengeValue(b.token));
    expect((await verifyDomain(b.id, bo.id, w.ports)).state).toBe('verified');
    expect(await verifyDomain(a.id, owner.id, w.ports)).toMatchObject({ state: 'pending', lastError: 'verified_elsewhere' });
  });

  it('needs Team for a pending claim, not for one verified already; the owners’ and admins’ only; not found outside', async () => {
    const { w, owner, id } = await withTeam();
    const member = await w.join(id, owner, 'member');
    const done = await w.verifiedDomain(id, owner, 'done.example.com');
    const pending = await claimDomain(id, 'pending.example.com', owner.id, w.ports);
    await expect(verifyDomain(pending.id, member.id, w.ports)).rejects.toMatchObject({ kind: 'forbidden', facts: { reason: 'role' } });
    await expect(verifyDomain(pending.id, w.person('outsider').id, w.ports)).rejects.toMatchObject({
      kind: 'not_found',
      detail: 'No such domain.',
    });
    await expect(verifyDomain('dom_AAAAAAAAAAAAAAAAAAAAAA', owner.id, w.ports)).rejects.toBeInstanceOf(NotFound);
    await expect(verifyDomain('nonsense', owner.id, w.ports)).rejects.toBeInstanceOf(NotFound);
    w.setWorkspace(id, { plan: 'free' });
    await expect(verifyDomain(pending.id, owner.id, w.ports)).rejects.toMatchObject({ kind: 'forbidden', facts: { reason: 'plan' } });
    expect((await verifyDomain(done.id, owner.id, w.ports)).state).toBe('verified');
  });
});

describe('deleteDomain', () => {
  it('deletes a pending or a verified claim, recorded; the hostname stops being this workspace’s and is free to claim again', async () => {
    const { w, owner, id } = await withTeam();
    const held = await claimDomain(id, 'released.example.com', owner.id, w.ports);
    w.clock.advance(1);
    w.publish(held);
    await verifyDomain(held.id, owner.id, w.ports);
    w.clock.advance(1);
    const pending = await claimDomain(id, 'pending.example.com', owner.id, w.ports);
    w.clock.advance(1);
    await deleteDomain(pending.id, owner.id, w.ports);
    w.clock.advance(1);
    await deleteDomain(held.id, owner.id, w.ports);
    expect(await listDomains(id, owner.id, w.ports)).toEqual([]);
    expect(await w.ports.domains.verifiedClaim(held.hostname)).toBeNull();
    expect(w.hostsChanged).toEqual([held.hostname, pending.hostname, held.hostname]);
    const rows = (await w.ports.workspaces.auditPage(id, 10, null)).items.filter((row) => row.action.startsWith('domain.'));
    expect(rows.map((row) => [row.action, row.details.hostname, row.details.state ?? null])).toEqual([
      ['domain.deleted', held.hostname, 'verified'],
      ['domain.deleted', pending.hostname, 'pending'],
      ['domain.claimed', pending.hostname, null],
      ['domain.verified', held.hostname, null],
      ['domain.claimed', held.hostname, null],
    ]);
    await expect(deleteDomain(held.id, owner.id, w.ports)).rejects.toBeInstanceOf(NotFound);
    // Claimed again by another workspace: the first claim's record, still published, proves nothing for it.
    const bo = w.person('bo');
    const taker = await w.workspace(bo);
    const again = await claimDomain(taker, held.hostname, bo.id, w.ports);
    expect(await verifyDomain(again.id, bo.id, w.ports)).toMatchObject({ state: 'pending', lastError: 'txt_mismatch' });
  });

  it('is the owners’ and admins’ (a member is forbidden); needs no plan to stop serving', async () => {
    const { w, owner, id } = await withTeam();
    const member = await w.join(id, owner, 'member');
    const held = await w.verifiedDomain(id, owner, 'held.example.com');
    const refused = deleteDomain(held.id, member.id, w.ports);
    await expect(refused).rejects.toBeInstanceOf(Forbidden);
    expect(await listDomains(id, member.id, w.ports)).toHaveLength(1);
    await expect(listDomains(id, w.person('outsider').id, w.ports)).rejects.toBeInstanceOf(NotFound);
    w.setWorkspace(id, { plan: 'free' });
    await deleteDomain(held.id, owner.id, w.ports);
    expect(await listDomains(id, owner.id, w.ports)).toEqual([]);
  });
});

describe('recheckPendingDomains (the schedule)', () => {
  it('verifies a claim whose record appears later, and stops checking a claim a week after it was made', async () => {
    const { w, owner, id } = await withTeam();
    const late = await claimDomain(id, 'late.example.com', owner.id, w.ports);
    const never = await claimDomain(id, 'never.example.com', owner.id, w.ports);
    expect(await recheckPendingDomains(w.ports)).toEqual({ checked: 2, verified: 0, expired: 0 });
    w.publish(late);
    w.clock.advance(10 * 60);
    expect(await recheckPendingDomains(w.ports)).toEqual({ checked: 2, verified: 1, expired: 0 });
    const listed = await listDomains(id, owner.id, w.ports);
    expect(listed.find((domain) => domain.id === late.id)).toMatchObject({ state: 'verified' });
    expect(await w.rowOf(id, 'domain.verified')).toMatchObject({ actor: { via: 'system' } });
    expect(listed.find((domain) => domain.id === never.id)).toMatchObject({ state: 'pending', lastError: 'txt_not_found' });
    w.clock.advance(7 * day);
    expect(await recheckPendingDomains(w.ports)).toEqual({ checked: 0, verified: 0, expired: 1 });
    const asked = w.dns.asked.length;
    w.clock.advance(10 * 60);
    expect(await recheckPendingDomains(w.ports)).toEqual({ checked: 0, verified: 0, expired: 0 });
    expect(w.dns.asked).toHaveLength(asked);
    // Off the schedule's list, it stays listed, and verify still checks it.
    expect((await verifyDomain(never.id, owner.id, w.ports)).state).toBe('pending');
  });
});
