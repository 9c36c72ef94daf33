import { describe, expect, it } from 'vitest';
import { listScimUsers } from '../../shared/domain/scim/listing.ts';
import { userSchema, type ScimUser } from '../../shared/domain/scim/model.ts';
import { createScimUser, deleteScimUser } from '../../shared/domain/scim/users.ts';
import type { MemoryScimUserStore } from '../fakes/scimUserStore.ts';
import { world } from './workspaces-world.ts';

// GET /Users's use case on the fakes (RFC 7644 §3.4.2): every User in id order, cut by
// startIndex and count, filtered by what Okta and Entra send; a filter it cannot read is
// invalidFilter, never a list. The query string is the raw one the gateway passes on.

const q = encodeURIComponent;

async function listing() {
  const w = world();
  const owner = w.person('owner');
  const id = await w.workspace(owner, { seats: 20 });
  const users = [
    { userName: 'ana@acme.example', externalId: 'ext-ana', emails: [{ value: 'ana@acme.example', type: 'work', primary: true }] },
    { userName: 'first+tag@acme.example', externalId: 'ext-plus' },
    { userName: 'Ann Smith', emails: [{ value: 'ann@acme.example', type: 'home' }] },
    {
      userName: 'bo@acme.example',
      emails: [
        { value: 'bo-work@acme.example', type: 'work' },
        { value: 'bo-home@acme.example', type: 'home', primary: true },
      ],
    },
    { userName: 'cy@acme.example', active: false },
    { userName: 'di@acme.example' },
    { userName: 'ed@acme.example' },
  ];
  const all: ScimUser[] = [];
  for (const user of users) {
    all.push(await createScimUser(id, { schemas: [userSchema], ...user }, w.ports));
    w.clock.advance(1);
  }
  // The table's order (by id, its sort key): the same every time, whenever a User was made.
  all.sort((a, b) => (a.id < b.id ? -1 : 1));
  const list = (query: string) => listScimUsers(id, query, w.ports);
  const ids = async (query: string) => (await list(query)).users.map((user) => user.id);
  const idOf = (prefix: string) => all.find((user) => user.userName.toLowerCase().startsWith(prefix.toLowerCase()))!.id;
  return { w, id, all, list, ids, idOf };
}

describe('listScimUsers', () => {
  it('lists every User in id order, the deactivated one too, with its counts', async () => {
    const { list, all } = await listing();
    const page = await list('');
    expect(page).toMatchObject({ totalResults: 7, startIndex: 1, itemsPerPage: 7 });
    expect(page.users.map((user) => user.id)).toEqual(all.map((user) => user.id));
    expect(page.users.find((user) => user.userName === 'cy@acme.example')).toMatchObject({ active: false });
  });

  it('pages by startIndex and count to the end; past it an empty page; count 0 the total alone; a count over 200 cut', async () => {
    const { list, all } = await listing();
    const pages: string[] = [];
    for (let startIndex = 1; startIndex <= 7; startIndex += 2) {
      const page = await list(`startIndex=${startIndex}&count=2`);
      expect(page).toMatchObject({ totalResults: 7, startIndex, itemsPerPage: Math.min(2, 8 - startIndex) });
      pages.push(...page.users.map((user) => user.id));
    }
    expect(pages).toEqual(all.map((user) => user.id));
    expect(await list('startIndex=8&count=2')).toEqual({ users: [], totalResults: 7, startIndex: 8, itemsPerPage: 0 });
    expect(await list('count=0')).toEqual({ users: [], totalResults: 7, startIndex: 1, itemsPerPage: 0 });
    expect(await list('count=-5')).toMatchObject({ totalResults: 7, itemsPerPage: 0 });
    expect(await list('startIndex=1&count=1000')).toMatchObject({ totalResults: 7, itemsPerPage: 7 });
    for (const startIndex of ['0', '-3'])
      expect(await list(`startIndex=${startIndex}&count=2`)).toMatchObject({ startIndex: 1, users: all.slice(0, 2) });
  });

  it.each(['startIndex=abc', 'startIndex=1.5', 'count=two', 'count=2.5', 'count=', 'startIndex=1&startIndex=2'])(
    'refuses %s (invalidValue)',
    async (query) => {
      const { list } = await listing();
      await expect(list(query)).rejects.toMatchObject({ kind: 'invalid', facts: { scimType: 'invalidValue' } });
    },
  );

  it('filters on userName whatever the case of the value, the attribute and the operator; a deactivated User is found', async () => {
    const { ids, idOf } = await listing();
    const ana = idOf('ana@');
    expect(await ids(`filter=${q('userName eq "ANA@ACME.EXAMPLE"')}`)).toEqual([ana]);
    expect(await ids(`filter=${q('USERNAME EQ "ana@acme.example"')}`)).toEqual([ana]);
    expect(await ids(`filter=${q('urn:ietf:params:scim:schemas:core:2.0:User:userName Eq "ana@acme.example"')}`)).toEqual([ana]);
    expect(await ids('filter=userName%20eq%20%22ana%40acme.example%22&startIndex=1&count=100')).toEqual([ana]);
    expect(await ids(`filter=${q('userName eq "cy@acme.example"')}`)).toEqual([idOf('cy@')]);
  });

  it('filters on externalId (caseExact), emails.value and the work email', async () => {
    const { ids, idOf } = await listing();
    expect(await ids(`filter=${q('externalId eq "ext-ana"')}`)).toEqual([idOf('ana@')]);
    expect(await ids(`filter=${q('externalId eq "EXT-ANA"')}`)).toEqual([]);
    expect(await ids(`filter=${q('emails.value eq "BO-HOME@acme.example"')}`)).toEqual([idOf('bo@')]);
    expect(await ids(`filter=${q('emails[type eq "work"].value eq "bo-work@acme.example"')}`)).toEqual([idOf('bo@')]);
    expect(await ids(`filter=${q('emails[type eq "work"].value eq "bo-home@acme.example"')}`)).toEqual([]);
    expect(await ids(`filter=${q('emails[TYPE EQ "Work"].value eq "bo-work@acme.example"')}`)).toEqual([idOf('bo@')]);
  });

  it('joins comparisons with and and or, in parentheses too', async () => {
    const { ids, idOf } = await listing();
    const [ana, bo, plus] = [idOf('ana@'), idOf('bo@'), idOf('first+tag')];
    expect(await ids(`filter=${q('userName eq "ana@acme.example" or userName eq "bo@acme.example"')}`)).toEqual([ana, bo].sort());
    expect(await ids(`filter=${q('userName eq "ana@acme.example" OR externalId eq "ext-plus"')}`)).toEqual([ana, plus].sort());
    expect(await ids(`filter=${q('userName eq "ana@acme.example" and externalId eq "ext-ana"')}`)).toEqual([ana]);
    expect(await ids(`filter=${q('userName eq "ana@acme.example" AND externalId eq "ext-plus"')}`)).toEqual([]);
    expect(
      await ids(
        `filter=${q('(userName eq "bo@acme.example" or userName eq "ana@acme.example") and emails.value eq "bo-work@acme.example"')}`,
      ),
    ).toEqual([bo]);
  });

  it('reads + in the raw query as a space and %2B as a plus', async () => {
    const { ids, idOf } = await listing();
    expect(await ids(`filter=${q('userName eq "first+tag@acme.example"')}`)).toEqual([idOf('first+tag')]);
    expect(await ids('filter=userName+eq+%22first+tag%40acme.example%22')).toEqual([]);
    expect(await ids('filter=userName+eq+%22Ann+Smith%22')).toEqual([idOf('Ann Smith')]);
  });

  it.each([
    ['an operator other than eq', 'userName co "a"'],
    ['another attribute', 'name.givenName eq "x"'],
    ['not(…)', 'not(userName eq "ana@acme.example")'],
    ['a presence test', 'title pr'],
    ['garbage', 'garbage'],
    ['an unclosed string', 'userName eq "ana'],
    ['an unclosed parenthesis', '(userName eq "a"'],
    ['an empty filter', ''],
    ['a dangling or', 'userName eq "a" or'],
    ['a value without quotes', 'userName eq ana'],
  ])('refuses %s (invalidFilter), never a list', async (_, filter) => {
    const { list } = await listing();
    await expect(list(`filter=${q(filter)}`)).rejects.toMatchObject({ kind: 'invalid', facts: { scimType: 'invalidFilter' } });
  });

  it('refuses a filter given twice, in any spelling of its name (invalidFilter); reads known parameters in any case and ignores others', async () => {
    const { list, ids, idOf, all } = await listing();
    for (const query of [
      `filter=${q('userName eq "a"')}&filter=${q('userName eq "b"')}`,
      `filter=${q('userName eq "a"')}&Filter=${q('userName eq "b"')}`,
    ]) {
      await expect(list(query)).rejects.toMatchObject({ facts: { scimType: 'invalidFilter' } });
    }
    expect(await ids('attributes=userName&excludedAttributes=groups&foo=bar&sortBy=userName')).toEqual(all.map((user) => user.id));
    expect(await ids(`FILTER=${q('externalId eq "ext-ana"')}&STARTINDEX=1&Count=5`)).toEqual([idOf('ana@')]);
  });

  it('answers a filter matching no User with an empty page; lists only the workspace’s own Users', async () => {
    const { w, list } = await listing();
    expect(await list(`filter=${q('userName eq "2d7c2a0e-0a51-4b8d-9a43-6f2c1f1c8f9e"')}`)).toEqual({
      users: [],
      totalResults: 0,
      startIndex: 1,
      itemsPerPage: 0,
    });
    // A value wider than any User's is nobody's: its key is not read.
    expect((await list(`filter=${q(`externalId eq "${'€'.repeat(400)}"`)}`)).totalResults).toBe(0);
    const other = await w.workspace(w.person('other'));
    expect((await listScimUsers(other, `filter=${q('userName eq "ana@acme.example"')}`, w.ports)).totalResults).toBe(0);
    expect((await listScimUsers(other, '', w.ports)).users).toEqual([]);
  });

  it('reads each User about once for an import in pages, and a filtered one twice: the first page counts the matches (issue 30)', async () => {
    const w = world();
    const id = await w.workspace(w.person('owner'), { seats: 50 });
    const made: ScimUser[] = [];
    for (let index = 0; index < 40; index++) {
      const work = index % 4 === 0 ? { emails: [{ value: `w${index}@acme.example`, type: 'work' }] } : {};
      made.push(await createScimUser(id, { schemas: [userSchema], userName: `u${index}@acme.example`, ...work }, w.ports));
    }
    const ids = made.map((user) => user.id).sort();
    const store = w.ports.scimUsers as MemoryScimUserStore;
    const walk = async (filter: string) => {
      const seen: string[] = [];
      for (let startIndex = 1; ; startIndex += 5) {
        const page = await list(`${filter}startIndex=${startIndex}&count=5`);
        seen.push(...page.users.map((user) => user.id));
        if (startIndex + 5 > page.totalResults) return seen;
      }
    };
    const list = (query: string) => listScimUsers(id, query, w.ports);
    store.usersRead = 0;
    expect(await walk('')).toEqual(ids);
    // 8 pages of 5, each reading one User more to know whether more follow: 40 + 7 (the last has none after it).
    expect(store.usersRead).toBe(47);
    store.usersRead = 0;
    const noWorkEmail = made
      .filter((user) => user.emails === undefined)
      .map((user) => user.id)
      .sort();
    expect(await walk(`filter=${q('emails[type eq "work"].value eq null')}&`)).toEqual(noWorkEmail);
    // The first page reads the 40 to count the matches; the 5 after it read on from where the one
    // before ended, each at most a chunk (5, and one to know whether more follow) past its last match.
    expect(store.usersRead).toBeLessThanOrEqual(40 + 40 + 6 * 6);
    // The same walk again answers the same pages.
    expect(await walk('')).toEqual(ids);
  });

  it('serves every User of a walk when Users before the page were deleted meanwhile (the count fell below startIndex)', async () => {
    const w = world();
    const id = await w.workspace(w.person('owner'), { seats: 30 });
    const made: ScimUser[] = [];
    for (let index = 0; index < 12; index++)
      made.push(await createScimUser(id, { schemas: [userSchema], userName: `m${index}@acme.example` }, w.ports));
    const ids = made.map((user) => user.id).sort();
    const list = (query: string) => listScimUsers(id, query, w.ports);
    const first = await list('startIndex=1&count=5');
    expect(first.users.map((user) => user.id)).toEqual(ids.slice(0, 5));
    // The directory deletes the five it read (and one more of them) before asking for the next page.
    for (const userId of ids.slice(0, 5)) await deleteScimUser(id, userId, w.ports);
    const second = await list('startIndex=6&count=5');
    expect(second.users.map((user) => user.id)).toEqual(ids.slice(5, 10));
    expect(second.totalResults).toBeGreaterThanOrEqual(11);
    const third = await list('startIndex=11&count=5');
    expect(third.users.map((user) => user.id)).toEqual(ids.slice(10));
  });

  it('reads a filter that matches few in growing chunks, not a Query for every few Users', async () => {
    const w = world();
    const id = await w.workspace(w.person('owner'), { seats: 300 });
    for (let index = 0; index < 200; index++) {
      const work = index === 0 || index === 150 ? { emails: [{ value: `rare${index}@acme.example`, type: 'work' }] } : {};
      await createScimUser(id, { schemas: [userSchema], userName: `r${index}@acme.example`, ...work }, w.ports);
    }
    const store = w.ports.scimUsers as MemoryScimUserStore;
    const filter = `filter=${q('emails.value eq "rare0@acme.example" or emails.value eq "rare150@acme.example"')}&`;
    const list = (query: string) => listScimUsers(id, query, w.ports);
    // The first page counts the matches (one read of every User); the second reads on from there
    // to the other match, up to 199 Users away: 1, 2, 4… at a time, not one Query per User.
    expect((await list(`${filter}startIndex=1&count=1`)).totalResults).toBe(2);
    store.queries = 0;
    expect((await list(`${filter}startIndex=2&count=1`)).users).toHaveLength(1);
    expect(store.queries).toBeLessThanOrEqual(9);
  });

  it('answers a page asked without where it starts (a jump, or an hour later) by reading from the first User', async () => {
    const { w, list, all } = await listing();
    expect((await list('startIndex=5&count=2')).users).toEqual(all.slice(4, 6));
    await list('startIndex=1&count=2');
    w.clock.advance(3600);
    expect((await list('startIndex=3&count=2')).users).toEqual(all.slice(2, 4));
  });
});
