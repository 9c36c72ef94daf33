import { beforeEach, describe, expect, it } from 'vitest';
import type { Domain } from '../../shared/domain/domains/model.ts';
import type { SsoDirectory } from '../../shared/domain/sso/directory.ts';
import { newDirectoryKey, newDomainChallenge, newDomainId, newUserId, sha256Base64Url } from '../../shared/ids.ts';
import { actorOf, admins, audit, day, join, makeWorkspace, minute, t0, type MadeWorkspace } from './workspaceFixtures.ts';
import type { MakeWorkspaceWorld, WorkspaceWorld } from './workspaceWorld.ts';

/** A hostname no other test uses. */
export const newHostname = (label = 'corp') => `${label}-${newDomainId().slice(4).toLowerCase()}.example`;

/** A pending claim of the hostname by the workspace, as claimDomain makes one. */
export function aDomain(workspaceId: string, hostname: string, overrides: Partial<Domain> = {}): Domain {
  return {
    id: newDomainId(),
    workspaceId,
    hostname,
    state: 'pending',
    token: newDomainChallenge(),
    createdAt: t0,
    verifiedAt: null,
    lastCheckedAt: null,
    lastError: null,
    checkUntil: t0 + 7 * day,
    ...overrides,
  };
}

/** The workspace's verified claim of a new hostname (the proof a directory needs). */
export async function verifiedDomain(world: WorkspaceWorld, made: MadeWorkspace, hostname = newHostname()): Promise<Domain> {
  const domain = aDomain(made.workspace.id, hostname);
  await world.domains.claim(domain, made.ownerActs, audit(made.workspace.id, 'domain.claimed'));
  if ((await world.domains.verify(domain, t0, audit(made.workspace.id, 'domain.verified'))) !== 'verified')
    throw new Error('the domain was not verified');
  return (await world.domains.get(domain.id))!;
}

/**
 * The SsoStore port's contract (shared/store/workspaceSso.ts), with the directory keys' lookup
 * (directoryKeys.ts) and sign-in's SSO policy (ssoPolicy.ts) that read what it writes: one
 * directory per email domain, written over the directory read and while its proof is verified;
 * a rotated key stops at once.
 */
export function describeSsoStoreContract(name: string, make: MakeWorkspaceWorld): void {
  describe(`SsoStore contract: ${name}`, () => {
    let world: WorkspaceWorld;
    let made: MadeWorkspace;
    let ws: string;
    let proof: Domain;
    beforeEach(async () => {
      world = await make();
      made = await makeWorkspace(world, { seats: 2 });
      ws = made.workspace.id;
      proof = await verifiedDomain(world, made);
    });
    const directory = (overrides: Partial<SsoDirectory> = {}): SsoDirectory => ({
      workspaceId: ws,
      issuer: 'https://idp.example/oauth2',
      emailDomain: proof.hostname,
      keyHash: sha256Base64Url(newDirectoryKey()),
      keyCreatedAt: t0,
      client: null,
      enforce: false,
      updatedAt: t0,
      ...overrides,
    });
    const client = { id: '0oa1client', sealedSecret: 'local:sealed-secret-bytes' };

    it('saves a directory: read back, speaking for its domain, its key leading to the workspace', async () => {
      const saved = directory();
      expect(await world.sso.directory(ws)).toBeNull();
      expect(await world.sso.save(saved, null, proof, made.ownerActs, audit(ws, 'sso.updated'))).toBe('saved');
      expect(await world.sso.directory(ws)).toEqual(saved);
      expect(await world.sso.speakingFor(proof.hostname)).toEqual({ workspaceId: ws, issuer: saved.issuer });
      expect(await world.directoryKeys.workspaceOf(saved.keyHash)).toBe(ws);
      expect(await world.directoryKeys.workspaceOf(sha256Base64Url(newDirectoryKey()))).toBeNull();
      expect(await world.sso.speakingFor(`other-${proof.hostname}`)).toBeNull();
    });

    it('lets one directory speak for a domain: another workspace’s is refused', async () => {
      await world.sso.save(directory(), null, proof, made.ownerActs, audit(ws));
      const other = await makeWorkspace(world);
      const otherProof = await verifiedDomain(world, other, `sub.${proof.hostname}`);
      const theirs = { ...directory({ workspaceId: other.workspace.id, emailDomain: proof.hostname }) };
      expect(await world.sso.save(theirs, null, otherProof, other.ownerActs, audit(other.workspace.id))).toBe('domain_claimed');
      expect(await world.sso.directory(other.workspace.id)).toBeNull();
      expect(await world.directoryKeys.workspaceOf(theirs.keyHash)).toBeNull();
    });

    it('refuses an actor whose role went, and a proof no longer verified', async () => {
      const member = await join(world, made);
      expect(await world.sso.save(directory(), null, proof, actorOf(member, admins), audit(ws))).toBe('refused');
      const pending = aDomain(ws, newHostname());
      await world.domains.claim(pending, made.ownerActs, audit(ws));
      expect(await world.sso.save(directory({ emailDomain: pending.hostname }), null, pending, made.ownerActs, audit(ws))).toBe(
        'unverified',
      );
      await world.domains.remove(proof, made.ownerActs, audit(ws));
      expect(await world.sso.save(directory(), null, proof, made.ownerActs, audit(ws))).toBe('unverified');
      expect(await world.sso.directory(ws)).toBeNull();
      expect(await world.sso.speakingFor(proof.hostname)).toBeNull();
    });

    it('writes only over the directory read: a stale one is refused, and of two saves at once one wins', async () => {
      const first = directory();
      await world.sso.save(first, null, proof, made.ownerActs, audit(ws));
      expect(await world.sso.save(directory(), null, proof, made.ownerActs, audit(ws))).toBe('stale');
      const outcomes = await Promise.all(
        [directory(), directory()].map((next) => world.sso.save(next, first, proof, made.ownerActs, audit(ws))),
      );
      expect(outcomes.sort()).toEqual(['saved', 'stale']);
      const kept = (await world.sso.directory(ws))!;
      expect(await world.directoryKeys.workspaceOf(kept.keyHash)).toBe(ws);
      expect(await world.directoryKeys.workspaceOf(first.keyHash)).toBeNull();
    });

    it('rotates the key: the old one stops with the change; keeping it keeps it', async () => {
      const first = directory();
      await world.sso.save(first, null, proof, made.ownerActs, audit(ws));
      const kept = { ...first, issuer: 'https://idp.example/v2', updatedAt: t0 + minute };
      expect(await world.sso.save(kept, first, proof, made.ownerActs, audit(ws))).toBe('saved');
      expect(await world.directoryKeys.workspaceOf(first.keyHash)).toBe(ws);
      expect(await world.sso.speakingFor(proof.hostname)).toEqual({ workspaceId: ws, issuer: 'https://idp.example/v2' });
      const rotated = { ...kept, keyHash: sha256Base64Url(newDirectoryKey()), keyCreatedAt: t0 + 2 * minute };
      expect(await world.sso.save(rotated, kept, proof, made.ownerActs, audit(ws))).toBe('saved');
      expect(await world.directoryKeys.workspaceOf(first.keyHash)).toBeNull();
      expect(await world.directoryKeys.workspaceOf(rotated.keyHash)).toBe(ws);
    });

    it('moves to another domain, releasing the one it spoke for', async () => {
      const first = directory();
      await world.sso.save(first, null, proof, made.ownerActs, audit(ws));
      const sub = `mail.${proof.hostname}`;
      expect(await world.sso.save({ ...first, emailDomain: sub }, first, proof, made.ownerActs, audit(ws))).toBe('saved');
      expect(await world.sso.speakingFor(proof.hostname)).toBeNull();
      expect((await world.sso.speakingFor(sub))!.workspaceId).toBe(ws);
    });

    it('stops speaking for the domain when the claim proving it is deleted with it', async () => {
      await world.sso.save(directory(), null, proof, made.ownerActs, audit(ws));
      expect(await world.domains.remove(proof, made.ownerActs, audit(ws), proof.hostname)).toBe(true);
      expect(await world.sso.speakingFor(proof.hostname)).toBeNull();
    });

    it('keeps the OIDC client with its sealed secret, and drops it when saved without one', async () => {
      const first = directory({ client });
      await world.sso.save(first, null, proof, made.ownerActs, audit(ws));
      expect(await world.sso.directory(ws)).toEqual(first);
      const other = { ...first, client: { id: '0oa2client', sealedSecret: 'local:other-sealed-bytes' }, updatedAt: t0 + minute };
      expect(await world.sso.save(other, first, proof, made.ownerActs, audit(ws))).toBe('saved');
      expect((await world.sso.directory(ws))!.client).toEqual(other.client);
      expect(await world.sso.save({ ...other, client: null, updatedAt: t0 + 2 * minute }, other, proof, made.ownerActs, audit(ws))).toBe(
        'saved',
      );
      expect((await world.sso.directory(ws))!.client).toBeNull();
    });

    it('enforces sign-in through the directory while it is saved with enforce, for its domain only', async () => {
      const saved = directory({ client });
      await world.sso.save(saved, null, proof, made.ownerActs, audit(ws));
      expect((await world.ssoPolicy.ruleFor(`ada@${proof.hostname}`)).enforced).toBe(false);
      const enforced = { ...saved, enforce: true, updatedAt: t0 + minute };
      expect(await world.sso.save(enforced, saved, proof, made.ownerActs, audit(ws))).toBe('saved');
      expect(await world.sso.directory(ws)).toEqual(enforced);
      expect((await world.ssoPolicy.ruleFor(` Ada@${proof.hostname.toUpperCase()} `)).enforced).toBe(true);
      expect((await world.ssoPolicy.ruleFor(`ada@other-${proof.hostname}`)).enforced).toBe(false);
      expect(await world.sso.speakingFor(proof.hostname)).toEqual({ workspaceId: ws, issuer: saved.issuer });
      const relaxed = { ...enforced, enforce: false, updatedAt: t0 + 2 * minute };
      await world.sso.save(relaxed, enforced, proof, made.ownerActs, audit(ws));
      expect((await world.ssoPolicy.ruleFor(`ada@${proof.hostname}`)).enforced).toBe(false);
      expect((await world.sso.directory(ws))!.enforce).toBe(false);
    });

    it('stops enforcing a domain the directory moves away from, and enforces the new one only if it says so', async () => {
      const first = directory({ client, enforce: true });
      await world.sso.save(first, null, proof, made.ownerActs, audit(ws));
      const sub = `mail.${proof.hostname}`;
      const moved = { ...first, emailDomain: sub, updatedAt: t0 + minute };
      expect(await world.sso.save(moved, first, proof, made.ownerActs, audit(ws))).toBe('saved');
      expect((await world.ssoPolicy.ruleFor(`ada@${proof.hostname}`)).enforced).toBe(false);
      expect((await world.ssoPolicy.ruleFor(`ada@${sub}`)).enforced).toBe(true);
      await world.sso.save(
        { ...moved, emailDomain: proof.hostname, enforce: false, updatedAt: t0 + 2 * minute },
        moved,
        proof,
        made.ownerActs,
        audit(ws),
      );
      expect((await world.ssoPolicy.ruleFor(`ada@${sub}`)).enforced).toBe(false);
      expect((await world.ssoPolicy.ruleFor(`ada@${proof.hostname}`)).enforced).toBe(false);
    });

    it('stops enforcing when the claim proving the domain is deleted', async () => {
      await world.sso.save(directory({ client, enforce: true }), null, proof, made.ownerActs, audit(ws));
      expect((await world.ssoPolicy.ruleFor(`ada@${proof.hostname}`)).enforced).toBe(true);
      expect(await world.domains.remove(proof, made.ownerActs, audit(ws), proof.hostname)).toBe(true);
      expect((await world.ssoPolicy.ruleFor(`ada@${proof.hostname}`)).enforced).toBe(false);
    });

    it('answers a directory for its workspace only', async () => {
      await world.sso.save(directory(), null, proof, made.ownerActs, audit(ws));
      expect(await world.sso.directory(`wks_${newUserId().slice(4)}`)).toBeNull();
    });
  });
}
