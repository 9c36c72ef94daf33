import { describe, expect, it } from 'vitest';
import { newScimUserId } from '../../shared/ids.ts';
import { Conflict, Invalid, NotFound } from '../../shared/domain/refusals.ts';
import { listScimUsers } from '../../shared/domain/scim/listing.ts';
import { userSchema } from '../../shared/domain/scim/model.ts';
import { createScimUser, deleteScimUser, readScimUser, replaceScimUser } from '../../shared/domain/scim/users.ts';
import { directory, oktaUser } from './scim-world.ts';

// SCIM Users (issue 18) on the fakes: create, read, replace, delete; each User the account its
// address is (listing: scim-listing, PATCH: scim-patch). The parsers are unit-tested
// (scim-user-body, scim-patch, scim-filter); the wire shapes stay in integration.

describe('createScimUser', () => {
  it('makes the User and the account of a new address: a member holding a seat (source scim), recorded', async () => {
    const { w, id, memberOf } = await directory();
    const user = await createScimUser(id, oktaUser('new@acme.example', { externalId: '00u1', password: 'Okta-random-Zq9!' }), w.ports);
    expect(user).toMatchObject({
      id: expect.stringMatching(/^scu_/),
      workspaceId: id,
      userName: 'new@acme.example',
      externalId: '00u1',
      active: true,
      version: 1,
      createdAt: w.clock.now(),
      lastModified: w.clock.now(),
    });
    expect(JSON.stringify([user, ...w.data.scimUsers.values()])).not.toContain('Okta-random-Zq9!');
    const account = await w.ports.users.findByEmail('new@acme.example');
    expect(user.userId).toBe(account!.id);
    expect(memberOf('new@acme.example')).toMatchObject({ userId: account!.id, role: 'member', source: 'scim' });
    expect(w.roster(id)).toMatchObject({ members: 2, used: 2 });
    expect(await w.rowOf(id, 'scim.user_created')).toMatchObject({
      actor: { userId: null, email: null, via: 'scim' },
      target: account!.id,
      details: { scim_id: user.id, user_name: 'new@acme.example', active: true },
    });
    expect(await readScimUser(id, user.id, w.ports)).toEqual(user);
  });

  it('links an address that is an account already (any case): no second account', async () => {
    const { w, id, memberOf } = await directory();
    const known = w.person('known', 'acme.example');
    const user = await createScimUser(id, oktaUser(known.email.toUpperCase()), w.ports);
    expect(user.userId).toBe(known.id);
    expect(memberOf(known.email)).toMatchObject({ userId: known.id, source: 'scim' });
  });

  it('makes the account of the primary email, else the work email, else the first, else the userName', async () => {
    const { w, id } = await directory();
    const made = async (body: Record<string, unknown>) =>
      (await w.ports.users.get((await createScimUser(id, { schemas: [userSchema], ...body }, w.ports)).userId))!.email;
    expect(
      await made({
        userName: 'p-user',
        emails: [
          { value: 'work@acme.example', type: 'work' },
          { value: 'Primary@acme.example', type: 'home', primary: true },
        ],
      }),
    ).toBe('primary@acme.example');
    expect(
      await made({
        userName: 'w-user',
        emails: [
          { value: 'first@acme.example', type: 'home' },
          { value: 'work2@acme.example', type: 'Work' },
        ],
      }),
    ).toBe('work2@acme.example');
    expect(await made({ userName: 'f-user', emails: [{ value: 'first2@acme.example', type: 'home' }] })).toBe('first2@acme.example');
    expect(await made({ userName: 'username@acme.example' })).toBe('username@acme.example');
  });

  it('refuses a User no address names (invalidValue), taking no seat and making no account', async () => {
    const { w, id } = await directory();
    for (const body of [
      { schemas: [userSchema], userName: 'jdoe' },
      { schemas: [userSchema], userName: 'jdoe', emails: [{ value: 'not an address', type: 'work' }] },
    ]) {
      await expect(createScimUser(id, body, w.ports)).rejects.toMatchObject({ kind: 'invalid', facts: { scimType: 'invalidValue' } });
    }
    expect(w.roster(id)).toMatchObject({ members: 1 });
    expect(await w.ports.users.findByEmail('jdoe')).toBeNull();
  });

  it('refuses a body that is not a User (invalidSyntax, invalidValue)', async () => {
    const { w, id } = await directory();
    for (const [body, scimType] of [
      [[], 'invalidSyntax'],
      ['a string', 'invalidSyntax'],
      [{ ...oktaUser('g@acme.example'), schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'] }, 'invalidSyntax'],
      [{ ...oktaUser('a@acme.example'), active: 'maybe' }, 'invalidValue'],
      [{ schemas: [userSchema], emails: [{ value: 'x@acme.example' }] }, 'invalidValue'],
      [{ ...oktaUser('t@acme.example'), USERNAME: 'twice@acme.example' }, 'invalidSyntax'],
    ] as const) {
      await expect(createScimUser(id, body, w.ports)).rejects.toMatchObject({ kind: 'invalid', facts: { scimType } });
    }
    expect(w.data.scimUsers.size).toBe(0);
  });

  it('refuses a userName taken in another case, and an externalId taken (conflict, uniqueness), before an account is made', async () => {
    const { w, id } = await directory();
    const first = await createScimUser(id, oktaUser('unique@acme.example', { externalId: '00uUNIQUE1' }), w.ports);
    const taken = createScimUser(id, oktaUser('UNIQUE@acme.example'), w.ports);
    await expect(taken).rejects.toBeInstanceOf(Conflict);
    await expect(createScimUser(id, oktaUser('UNIQUE@acme.example'), w.ports)).rejects.toMatchObject({
      kind: 'conflict',
      facts: { scimType: 'uniqueness' },
    });
    await expect(createScimUser(id, oktaUser('refused@acme.example', { externalId: '00uUNIQUE1' }), w.ports)).rejects.toMatchObject({
      facts: { scimType: 'uniqueness' },
    });
    expect(await w.ports.users.findByEmail('refused@acme.example')).toBeNull();
    // externalId is caseExact: another case is another externalId.
    expect((await createScimUser(id, oktaUser('other@acme.example', { externalId: '00uunique1' }), w.ports)).id).not.toBe(first.id);
  });
});

describe('readScimUser', () => {
  it('answers not found for an unknown or malformed id, and for another workspace’s User', async () => {
    const { w, id } = await directory();
    const user = await createScimUser(id, oktaUser('read@acme.example'), w.ports);
    const other = await w.workspace(w.person('other'));
    for (const [workspaceId, userId] of [
      [id, newScimUserId()],
      [id, '010101001010101011001010101011'],
      [id, 'a b'],
      [id, '../../v1'],
      [other, user.id],
    ]) {
      await expect(readScimUser(workspaceId!, userId!, w.ports)).rejects.toBeInstanceOf(NotFound);
    }
  });
});

describe('replaceScimUser', () => {
  it('replaces the attributes: what is not sent goes, active kept when not sent, the externalId moved', async () => {
    const { w, id } = await directory();
    const user = await createScimUser(
      id,
      {
        ...oktaUser('put@acme.example', { externalId: 'put-ext-1', title: 'Guide' }),
        'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { department: 'Tours' },
      },
      w.ports,
    );
    w.clock.advance(1);
    const { active: _active, ...withoutActive } = oktaUser('put@acme.example', { externalId: 'put-ext-2', displayName: 'Replaced' });
    const after = await replaceScimUser(id, user.id, { ...withoutActive, name: { givenName: 'Only' } }, w.ports);
    expect(after).toEqual({
      id: user.id,
      workspaceId: id,
      userId: user.userId,
      userName: 'put@acme.example',
      externalId: 'put-ext-2',
      name: { givenName: 'Only' },
      displayName: 'Replaced',
      emails: user.emails,
      active: true,
      createdAt: user.createdAt,
      lastModified: w.clock.now(),
      version: 2,
    });
    expect(await readScimUser(id, user.id, w.ports)).toEqual(after);
    expect((await listScimUsers(id, `filter=${encodeURIComponent('externalId eq "put-ext-1"')}`, w.ports)).totalResults).toBe(0);
    expect(
      (await listScimUsers(id, `filter=${encodeURIComponent('externalId eq "put-ext-2"')}`, w.ports)).users.map((found) => found.id),
    ).toEqual([user.id]);
  });

  it('deactivates with active false (membership gone, seat freed), keeps it so without active, reactivates with "True"', async () => {
    const { w, id, memberOf } = await directory();
    const user = await createScimUser(id, oktaUser('act@acme.example'), w.ports);
    const off = await replaceScimUser(id, user.id, oktaUser('act@acme.example', { active: false }), w.ports);
    expect(off.active).toBe(false);
    expect(memberOf('act@acme.example')).toBeUndefined();
    expect(w.roster(id)).toMatchObject({ members: 1, used: 1 });
    const { active: _active, ...withoutActive } = oktaUser('act@acme.example', { displayName: 'Still off' });
    expect(await replaceScimUser(id, user.id, withoutActive, w.ports)).toMatchObject({ active: false, displayName: 'Still off' });
    expect(memberOf('act@acme.example')).toBeUndefined();
    expect((await replaceScimUser(id, user.id, oktaUser('act@acme.example', { active: 'True' }), w.ports)).active).toBe(true);
    expect(memberOf('act@acme.example')).toMatchObject({ role: 'member', source: 'scim' });
    expect((await w.actions(id)).filter((action) => action.startsWith('scim.'))).toEqual(
      expect.arrayContaining(['scim.user_reactivated', 'scim.user_updated', 'scim.user_deactivated', 'scim.user_created']),
    );
  });

  it('refuses a rename to another User’s userName or externalId (uniqueness), changing nothing; its own in another case is fine', async () => {
    const { w, id } = await directory();
    const taken = await createScimUser(id, oktaUser('taken@acme.example', { externalId: 'ext-taken' }), w.ports);
    const user = await createScimUser(id, oktaUser('renamed@acme.example'), w.ports);
    await expect(
      replaceScimUser(id, user.id, oktaUser(taken.userName.toUpperCase(), { emails: user.emails }), w.ports),
    ).rejects.toMatchObject({ kind: 'conflict', facts: { scimType: 'uniqueness' } });
    await expect(
      replaceScimUser(id, user.id, oktaUser('renamed@acme.example', { externalId: 'ext-taken' }), w.ports),
    ).rejects.toMatchObject({ facts: { scimType: 'uniqueness' } });
    expect(await readScimUser(id, user.id, w.ports)).toEqual(user);
    expect((await replaceScimUser(id, user.id, oktaUser('RENAMED@acme.example', { emails: user.emails }), w.ports)).userName).toBe(
      'RENAMED@acme.example',
    );
  });

  it('refuses a body that is not a User, and an unknown id (not found), changing nothing', async () => {
    const { w, id } = await directory();
    const user = await createScimUser(id, oktaUser('put400@acme.example'), w.ports);
    for (const body of [
      { schemas: [userSchema], displayName: 'no userName' },
      { ...oktaUser('put400@acme.example'), active: 'sometimes' },
      [oktaUser('put400@acme.example')],
    ]) {
      // Refused before a read: replaceScimUser throws as it is called (the handler awaits it either way).
      await expect((async () => replaceScimUser(id, user.id, body, w.ports))()).rejects.toBeInstanceOf(Invalid);
    }
    await expect(replaceScimUser(id, newScimUserId(), oktaUser('x@acme.example'), w.ports)).rejects.toBeInstanceOf(NotFound);
    expect(await readScimUser(id, user.id, w.ports)).toEqual(user);
  });
});

describe('deleteScimUser', () => {
  it('removes the User and its membership, frees the seat, keeps the account, frees its userName and externalId', async () => {
    const { w, id, memberOf } = await directory();
    const user = await createScimUser(id, oktaUser('delete@acme.example', { externalId: 'ext-del' }), w.ports);
    await deleteScimUser(id, user.id, w.ports);
    expect(memberOf('delete@acme.example')).toBeUndefined();
    expect(w.roster(id)).toMatchObject({ members: 1, used: 1 });
    await expect(readScimUser(id, user.id, w.ports)).rejects.toBeInstanceOf(NotFound);
    await expect(deleteScimUser(id, user.id, w.ports)).rejects.toBeInstanceOf(NotFound);
    expect((await w.ports.users.findByEmail('delete@acme.example'))!.id).toBe(user.userId);
    expect(await w.rowOf(id, 'scim.user_deleted')).toMatchObject({ target: user.userId, details: { scim_id: user.id } });
    const again = await createScimUser(id, oktaUser('delete@acme.example', { externalId: 'ext-del' }), w.ports);
    expect([again.id === user.id, again.userId]).toEqual([false, user.userId]);
  });

  it('deletes a deactivated User without giving back a seat it does not hold', async () => {
    const { w, id } = await directory();
    const user = await createScimUser(id, oktaUser('inactive@acme.example', { active: false }), w.ports);
    expect(w.roster(id)).toMatchObject({ members: 1 });
    await deleteScimUser(id, user.id, w.ports);
    expect(w.roster(id)).toMatchObject({ members: 1, used: 1 });
  });
});
