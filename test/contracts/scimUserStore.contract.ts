import { beforeEach, describe, expect, it } from 'vitest';
import type { ScimUserAttributes } from '../../shared/domain/scim/model.ts';
import type { ScimAccount } from '../../shared/domain/scim/ports.ts';
import { newScimUserId, newUserId } from '../../shared/ids.ts';
import { audit, join, makeWorkspace, minute, newAddress, setSeats, t0, type MadeWorkspace } from './workspaceFixtures.ts';
import type { MakeWorkspaceWorld, WorkspaceWorld } from './workspaceWorld.ts';

const attributes = (userName: string, overrides: Partial<ScimUserAttributes> = {}): ScimUserAttributes => ({
  userName,
  name: { givenName: 'Ada', familyName: 'Lovelace' },
  emails: [{ value: userName, type: 'work', primary: true }],
  active: true,
  ...overrides,
});

/**
 * The ScimUserStore port's contract (shared/store/workspaceScim.ts): userName (in any case),
 * externalId and the account unique per workspace under any concurrency; an active User a
 * member holding a seat; the membership (never the account) going with the User; an admin's or
 * the owner's membership never the directory's to remove.
 */
export function describeScimUserStoreContract(name: string, make: MakeWorkspaceWorld): void {
  describe(`ScimUserStore contract: ${name}`, () => {
    let world: WorkspaceWorld;
    let made: MadeWorkspace;
    let ws: string;
    beforeEach(async () => {
      world = await make();
      made = await makeWorkspace(world, { seats: 3 });
      ws = made.workspace.id;
    });
    const account = (email = newAddress('scim')): ScimAccount => ({ userId: newUserId(), email });
    const create = async (userName: string, overrides: Partial<ScimUserAttributes> = {}, who = account(userName), at = t0) => {
      const id = newScimUserId();
      return {
        id,
        who,
        outcome: await world.scim.create(ws, id, attributes(userName, overrides), who, at, audit(ws, 'scim.user_created', at)),
      };
    };
    const roster = () => world.workspaces.roster(ws);

    it('makes an active User a member (source scim) holding a seat, read back by id, userName in any case and externalId', async () => {
      const userName = newAddress('Ada');
      const { id, who, outcome } = await create(userName, {
        externalId: 'okta-1',
        displayName: 'Ada L.',
        enterprise: { department: 'R&D' },
        extra: { title: 'Countess' },
      });
      expect(outcome).toBe('created');
      const user = {
        ...attributes(userName, {
          externalId: 'okta-1',
          displayName: 'Ada L.',
          enterprise: { department: 'R&D' },
          extra: { title: 'Countess' },
        }),
        id,
        workspaceId: ws,
        userId: who.userId,
        createdAt: t0,
        lastModified: t0,
        version: 1,
      };
      expect(await world.scim.get(ws, id)).toEqual(user);
      expect(await world.scim.byUserName(ws, userName.toUpperCase())).toEqual(user);
      expect(await world.scim.byExternalId(ws, 'okta-1')).toEqual(user);
      expect(await world.scim.byExternalId(ws, 'OKTA-1')).toBeNull();
      expect(await world.workspaces.member(ws, who.userId)).toEqual({
        workspaceId: ws,
        userId: who.userId,
        email: who.email,
        role: 'member',
        joinedAt: t0,
        source: 'scim',
      });
      expect(await roster()).toEqual({ seats: 3, used: 2, owners: 1, members: 2 });
    });

    it('answers null for what it does not hold', async () => {
      expect(await world.scim.get(ws, newScimUserId())).toBeNull();
      expect(await world.scim.byUserName(ws, 'nobody@example.com')).toBeNull();
      expect(await world.scim.byExternalId(ws, 'none')).toBeNull();
      expect(await world.scim.list(ws)).toEqual([]);
    });

    it('refuses a userName taken in any case, a taken externalId and an account that is a User already', async () => {
      const userName = newAddress('grace');
      const first = await create(userName, { externalId: 'ext-1' });
      expect((await create(userName.toUpperCase())).outcome).toBe('duplicate');
      expect((await create(newAddress('other'), { externalId: 'ext-1' })).outcome).toBe('duplicate');
      expect((await create(newAddress('again'), {}, first.who)).outcome).toBe('duplicate');
      expect(await world.scim.list(ws)).toHaveLength(1);
      expect((await roster())!.used).toBe(2);
    });

    it('makes one of two Users with the same userName made at once', async () => {
      const userName = newAddress('race');
      const outcomes = await Promise.all([create(userName), create(userName.toUpperCase())]);
      expect(outcomes.map((one) => one.outcome).sort()).toEqual(['created', 'duplicate']);
      expect((await roster())!.members).toBe(2);
    });

    it('refuses an active User when every seat is used; an inactive one needs none', async () => {
      await setSeats(world, ws, 1);
      const refused = await create(newAddress('full'));
      expect(refused.outcome).toBe('no_seat');
      expect(await world.scim.get(ws, refused.id)).toBeNull();
      expect(await world.scim.byUserName(ws, refused.who.email)).toBeNull();
      expect((await create(newAddress('inactive'), { active: false })).outcome).toBe('created');
      expect(await roster()).toEqual({ seats: 1, used: 1, owners: 1, members: 1 });
    });

    it('links a User to the membership its account has already: no second seat', async () => {
      const member = await join(world, made);
      const { id, outcome } = await create(newAddress('linked'), {}, { userId: member.userId, email: member.email });
      expect(outcome).toBe('already_member');
      expect((await world.scim.get(ws, id))!.userId).toBe(member.userId);
      expect(await roster()).toEqual({ seats: 3, used: 2, owners: 1, members: 2 });
      expect((await world.workspaces.member(ws, member.userId))!.source).toBe('invitation');
    });

    it('lists Users by id (the sort key), whenever they were made', async () => {
      const later = await create(newAddress('later'), {}, undefined, t0 + minute);
      const a = await create(newAddress('a'), { active: false });
      const b = await create(newAddress('b'), { active: false });
      expect((await world.scim.list(ws)).map((user) => user.id)).toEqual([a.id, b.id, later.id].sort());
    });

    describe('replace', () => {
      it('replaces the attributes at the version read, raising it; a stale version conflicts', async () => {
        const { id } = await create(newAddress('ver'), { externalId: 'v-1' });
        const next = attributes(newAddress('renamed'), { externalId: 'v-2', displayName: 'New' });
        expect(await world.scim.replace(ws, id, next, 1, t0 + minute, audit(ws))).toBe('replaced');
        expect(await world.scim.get(ws, id)).toMatchObject({ ...next, version: 2, createdAt: t0, lastModified: t0 + minute });
        expect(await world.scim.replace(ws, id, next, 1, t0 + minute, audit(ws))).toBe('conflict');
        expect(await world.scim.replace(ws, newScimUserId(), next, 1, t0, audit(ws))).toBe('conflict');
      });

      it('frees the old userName and externalId for another User; a case-only change keeps them', async () => {
        const old = newAddress('old');
        const { id } = await create(old, { externalId: 'x-1' });
        expect(await world.scim.replace(ws, id, attributes(old.toUpperCase(), { externalId: 'x-1' }), 1, t0, audit(ws))).toBe('replaced');
        expect((await world.scim.byUserName(ws, old))!.userName).toBe(old.toUpperCase());
        const renamed = newAddress('new');
        expect(await world.scim.replace(ws, id, attributes(renamed, { externalId: 'x-2' }), 2, t0, audit(ws))).toBe('replaced');
        expect(await world.scim.byUserName(ws, old)).toBeNull();
        expect(await world.scim.byExternalId(ws, 'x-1')).toBeNull();
        expect((await world.scim.byExternalId(ws, 'x-2'))!.id).toBe(id);
        expect((await create(old, { externalId: 'x-1' })).outcome).toBe('created');
      });

      it('refuses a userName or externalId another User holds, changing nothing', async () => {
        const taken = newAddress('taken');
        await create(taken, { externalId: 'held' });
        const { id } = await create(newAddress('mine'));
        expect(await world.scim.replace(ws, id, attributes(taken.toUpperCase()), 1, t0, audit(ws))).toBe('duplicate');
        expect(await world.scim.replace(ws, id, attributes(newAddress('free'), { externalId: 'held' }), 1, t0, audit(ws))).toBe(
          'duplicate',
        );
        expect((await world.scim.get(ws, id))!.version).toBe(1);
      });

      it('deactivating ends the membership and frees its seat; reactivating takes one, when there is one', async () => {
        const userName = newAddress('toggle');
        const { id, who } = await create(userName);
        expect(await world.scim.replace(ws, id, attributes(userName, { active: false }), 1, t0, audit(ws))).toBe('replaced');
        expect(await world.workspaces.member(ws, who.userId)).toBeNull();
        expect(await roster()).toEqual({ seats: 3, used: 1, owners: 1, members: 1 });
        await join(world, made);
        await join(world, made);
        expect(await world.scim.replace(ws, id, attributes(userName), 2, t0, audit(ws))).toBe('no_seat');
        expect((await world.scim.get(ws, id))!.active).toBe(false);
        await world.memberships.removeMember(
          (await world.workspaces.roll(ws)).members.find((member) => member.role === 'member' && member.userId !== who.userId)!,
          null,
          audit(ws),
        );
        expect(await world.scim.replace(ws, id, attributes(userName), 2, t0 + minute, audit(ws))).toBe('replaced');
        expect(await world.workspaces.member(ws, who.userId)).toMatchObject({ role: 'member', source: 'scim', joinedAt: t0 + minute });
        expect(await roster()).toEqual({ seats: 3, used: 3, owners: 1, members: 3 });
      });

      it('never deactivates an admin’s membership', async () => {
        const admin = await join(world, made, 'admin');
        const userName = newAddress('admin');
        const { id } = await create(userName, {}, { userId: admin.userId, email: admin.email });
        expect(await world.scim.replace(ws, id, attributes(userName, { active: false }), 1, t0, audit(ws))).toBe('privileged');
        expect((await world.scim.get(ws, id))!.active).toBe(true);
        expect(await world.workspaces.member(ws, admin.userId)).not.toBeNull();
      });

      it('replaces once of two replacing the same version at once', async () => {
        const userName = newAddress('twice');
        const { id } = await create(userName);
        const outcomes = await Promise.all(
          ['A', 'B'].map((given) => world.scim.replace(ws, id, attributes(userName, { displayName: given }), 1, t0, audit(ws))),
        );
        expect(outcomes.sort()).toEqual(['conflict', 'replaced']);
        expect((await world.scim.get(ws, id))!.version).toBe(2);
      });
    });

    describe('delete', () => {
      it('deletes the User and its membership, the seat given back; its userName is free again', async () => {
        const userName = newAddress('bye');
        const { id, who } = await create(userName, { externalId: 'bye-1' });
        expect(await world.scim.delete(ws, id, audit(ws))).toBe('deleted');
        expect(await world.scim.get(ws, id)).toBeNull();
        expect(await world.workspaces.member(ws, who.userId)).toBeNull();
        expect(await roster()).toEqual({ seats: 3, used: 1, owners: 1, members: 1 });
        expect(await world.scim.delete(ws, id, audit(ws))).toBe('gone');
        expect((await create(userName, { externalId: 'bye-1' }, who)).outcome).toBe('created');
      });

      it('never deletes an owner’s membership', async () => {
        const { id } = await create(newAddress('owner'), {}, { userId: made.owner.userId, email: made.owner.email });
        expect(await world.scim.delete(ws, id, audit(ws))).toBe('privileged');
        expect(await world.scim.get(ws, id)).not.toBeNull();
      });

      it('deletes an inactive User without touching the roster', async () => {
        const { id } = await create(newAddress('idle'), { active: false });
        expect(await world.scim.delete(ws, id, audit(ws))).toBe('deleted');
        expect(await roster()).toEqual({ seats: 3, used: 1, owners: 1, members: 1 });
      });
    });
  });
}
