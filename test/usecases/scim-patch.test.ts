import { describe, expect, it } from 'vitest';
import { NotFound } from '../../shared/domain/refusals.ts';
import { listScimUsers } from '../../shared/domain/scim/listing.ts';
import { enterpriseUserSchema, userSchema } from '../../shared/domain/scim/model.ts';
import { toScimResource } from '../../shared/domain/scim/userBody.ts';
import { createScimUser, patchScimUser, readScimUser, replaceScimUser } from '../../shared/domain/scim/users.ts';
import { directory, oktaUser, patch } from './scim-world.ts';

// PATCH of a SCIM User (issue 18) as Okta and Entra write it, on the fakes: the operations applied
// on the latest version, all or none, the membership following `active`; the account fixed.

describe('patchScimUser', () => {
  it('applies operations in any op case, Okta’s path-less active and Entra’s "False", the membership following', async () => {
    const { w, id, memberOf } = await directory();
    const user = await createScimUser(id, oktaUser('patch@acme.example', { title: 'Guide' }), w.ports);
    for (const op of ['Replace', 'replace', 'REPLACE', 'Add', 'add'])
      expect((await patchScimUser(id, user.id, patch({ op, path: 'displayName', value: `By ${op}` }), w.ports)).displayName).toBe(
        `By ${op}`,
      );
    const removed = await patchScimUser(
      id,
      user.id,
      patch({ op: 'Remove', path: 'displayName' }, { op: 'REMOVE', path: 'title' }),
      w.ports,
    );
    expect(removed).not.toHaveProperty('displayName');
    expect(removed.extra?.title).toBeUndefined();
    expect((await patchScimUser(id, user.id, patch({ op: 'replace', value: { active: false } }), w.ports)).active).toBe(false);
    expect(memberOf('patch@acme.example')).toBeUndefined();
    expect((await patchScimUser(id, user.id, patch({ op: 'Replace', path: 'active', value: 'True' }), w.ports)).active).toBe(true);
    expect(memberOf('patch@acme.example')).toMatchObject({ source: 'scim' });
    expect((await patchScimUser(id, user.id, patch({ op: 'Replace', value: { active: 'False' } }), w.ports)).active).toBe(false);
    expect(w.roster(id)).toMatchObject({ members: 1 });
    expect((await readScimUser(id, user.id, w.ports)).version).toBe(10);
  });

  it('keeps the account the User was made for when its emails change, and frees an old userName on a rename', async () => {
    const { w, id, memberOf } = await directory();
    const user = await createScimUser(id, { schemas: [userSchema], userName: 'no-email@acme.example' }, w.ports);
    const changed = await patchScimUser(
      id,
      user.id,
      patch({ op: 'Add', path: 'emails[type eq "work"].value', value: 'made-work@acme.example' }),
      w.ports,
    );
    expect(changed.emails).toEqual([{ type: 'work', value: 'made-work@acme.example' }]);
    expect(memberOf('no-email@acme.example')).toBeDefined();
    expect(memberOf('made-work@acme.example')).toBeUndefined();
    await patchScimUser(id, user.id, patch({ op: 'replace', path: 'userName', value: 'after@acme.example' }), w.ports);
    expect((await listScimUsers(id, `filter=${encodeURIComponent('userName eq "no-email@acme.example"')}`, w.ports)).totalResults).toBe(0);
    const other = await createScimUser(
      id,
      oktaUser('no-email@acme.example', { emails: [{ value: 'other-account@acme.example', type: 'work', primary: true }] }),
      w.ports,
    );
    expect(other.id).not.toBe(user.id);
  });

  it('applies all operations or none: one refused leaves the User and the membership untouched', async () => {
    const { w, id, memberOf } = await directory();
    const user = await createScimUser(id, oktaUser('all@acme.example'), w.ports);
    const refused = patch(
      { op: 'replace', path: 'active', value: false },
      { op: 'replace', path: 'displayName', value: 'Changed' },
      { op: 'replace', path: 'favoriteColor', value: 'blue' },
    );
    await expect(patchScimUser(id, user.id, refused, w.ports)).rejects.toMatchObject({
      kind: 'invalid',
      facts: { scimType: 'invalidPath' },
    });
    expect(await readScimUser(id, user.id, w.ports)).toEqual(user);
    expect(memberOf('all@acme.example')).toBeDefined();
  });

  it('refuses a userName or externalId taken by another User (uniqueness), and an unknown id (not found)', async () => {
    const { w, id } = await directory();
    const taken = await createScimUser(id, oktaUser('ptaken@acme.example', { externalId: 'ext-p' }), w.ports);
    const user = await createScimUser(id, oktaUser('prename@acme.example'), w.ports);
    await expect(
      patchScimUser(id, user.id, patch({ op: 'replace', path: 'userName', value: taken.userName.toUpperCase() }), w.ports),
    ).rejects.toMatchObject({ kind: 'conflict', facts: { scimType: 'uniqueness' } });
    await expect(patchScimUser(id, user.id, patch({ op: 'replace', value: { externalId: 'ext-p' } }), w.ports)).rejects.toMatchObject({
      facts: { scimType: 'uniqueness' },
    });
    await expect(
      patchScimUser(id, '010101001010101011001010101011', patch({ op: 'replace', path: 'displayName', value: 'x' }), w.ports),
    ).rejects.toBeInstanceOf(NotFound);
  });

  it('applies a change on the latest version when another landed meanwhile, and gives up (conflict) when they keep landing', async () => {
    const { w, id } = await directory();
    const user = await createScimUser(id, oktaUser('busy@acme.example'), w.ports);
    let raced = 1;
    const scimUsers = Object.create(w.ports.scimUsers) as typeof w.ports.scimUsers;
    scimUsers.replace = async (...args) => {
      if (raced-- > 0)
        await patchScimUser(id, user.id, patch({ op: 'add', path: 'phoneNumbers', value: [{ value: '555-0100', type: 'work' }] }), w.ports);
      return w.ports.scimUsers.replace(...args);
    };
    const after = await patchScimUser(
      id,
      user.id,
      patch({ op: 'add', path: 'phoneNumbers', value: [{ value: '555-0101', type: 'work' }] }),
      { ...w.ports, scimUsers },
    );
    expect((after.extra?.phoneNumbers as { value: string }[] | undefined)?.map((phone) => phone.value)).toEqual(['555-0100', '555-0101']);
    expect(after.version).toBe(3);
    scimUsers.replace = async () => 'conflict';
    await expect(
      patchScimUser(id, user.id, patch({ op: 'replace', path: 'displayName', value: 'x' }), { ...w.ports, scimUsers }),
    ).rejects.toMatchObject({ kind: 'conflict' });
  });

  it('keeps the enterprise manager as its object however it is written: POST, PUT, PATCH by path, path-less, unqualified; empty removes it', async () => {
    const { w, id } = await directory();
    const boss = await createScimUser(id, oktaUser('boss@acme.example'), w.ports);
    const user = await createScimUser(id, oktaUser('report@acme.example', { [enterpriseUserSchema]: { manager: boss.id } }), w.ports);
    expect(user.enterprise).toEqual({ manager: { value: boss.id } });
    const managerOf = async (body: unknown) => (await patchScimUser(id, user.id, body, w.ports)).enterprise?.manager;
    // SCIM_Update_Manager_Test: the URN-qualified path, the id as a bare string.
    expect(await managerOf(patch({ op: 'add', path: `${enterpriseUserSchema}:manager`, value: 'scu_other' }))).toEqual({
      value: 'scu_other',
    });
    expect(await managerOf(patch({ op: 'replace', path: `${enterpriseUserSchema}:manager`, value: { value: boss.id } }))).toEqual({
      value: boss.id,
    });
    // Path-less, keyed by the attribute's URN path (Entra) and by the extension's URN.
    expect(await managerOf(patch({ op: 'Add', value: { [`${enterpriseUserSchema}:manager`]: 'scu_a' } }))).toEqual({ value: 'scu_a' });
    expect(
      await managerOf(patch({ op: 'Add', value: { [enterpriseUserSchema]: { manager: { value: 'scu_b', displayName: 'B' } } } })),
    ).toEqual({
      value: 'scu_b',
      displayName: 'B',
    });
    // Entra's tutorial, Example 5: `manager` unqualified, a one-item array.
    expect(await managerOf(patch({ op: 'Add', path: 'manager', value: [{ $ref: null, value: boss.id }] }))).toEqual({ value: boss.id });
    // The SCIM Validator's "Remove Manager": an empty value.
    expect(await managerOf(patch({ op: 'replace', path: `${enterpriseUserSchema}:manager`, value: { value: '' } }))).toBeUndefined();
    await expect(
      patchScimUser(id, user.id, patch({ op: 'add', path: 'manager', value: [{ value: 'a' }, { value: 'b' }] }), w.ports),
    ).rejects.toMatchObject({
      facts: { scimType: 'invalidValue' },
    });
    const put = await replaceScimUser(
      id,
      user.id,
      oktaUser('report@acme.example', { [enterpriseUserSchema]: { manager: [{ value: boss.id }] } }),
      w.ports,
    );
    expect(put.enterprise).toEqual({ manager: { value: boss.id } });
    const shown = toScimResource(put, 'https://vault.example/scim/v2')[enterpriseUserSchema];
    expect(shown).toEqual({ manager: { value: boss.id, $ref: `https://vault.example/scim/v2/Users/${boss.id}` } });
  });
});
