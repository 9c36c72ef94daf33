import { scimListLimits, scimUserLimits } from '../../limits.ts';
import { utf8Bytes } from './attributes.ts';
import type { Clock } from '../../clock.ts';
import { exactLookups, matches, parseFilter, type Filter } from './filter.ts';
import { scimInvalid, type ScimUser } from './model.ts';
import type { ScimUserStore } from './ports.ts';
import { decodeQueryValue } from './query.ts';

/** One page of Users (RFC 7644 §3.4.2): `startIndex` is 1-based, `itemsPerPage` what this page holds. */
export interface ScimUserPage {
  users: ScimUser[];
  totalResults: number;
  startIndex: number;
  itemsPerPage: number;
}

/**
 * A 1-based index or a count, as RFC 7644 §3.4.2.4 reads them: an integer; below 1 a start is 1
 * and below 0 a count is 0. Anything else is 400, not a silent default the client never asked for.
 */
function readInteger(rawQueryString: string, name: 'startIndex' | 'count'): number | undefined {
  const text = decodeQueryValue(rawQueryString, name);
  if (text === undefined) return undefined;
  if (!/^[+-]?\d{1,15}$/.test(text.trim())) throw scimInvalid(`${name} must be an integer.`, 'invalidValue');
  return Number(text.trim());
}

const byId = (a: ScimUser, b: ScimUser) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * `GET /Users`: the workspace's Users matching `filter` (every one without it), in id order (the
 * table's: the same order every time), cut at `startIndex` and `count` (at most
 * `scimListLimits.maxResults`). A filter naming Users by userName or externalId alone reads them
 * by key (Okta's lookup before every create, Entra's random-user probe). Otherwise a page is read
 * from where the page before it ended, remembered for its startIndex when that page was served
 * (issue 30: an import of N Users in pages reads each User once, not N/count times); a page asked
 * without one (a first page, a jump, an hour later) reads from the first User. The unfiltered
 * totalResults is the kept count; a filtered one is counted by the first page, which reads every
 * User, and remembered with the page ends. A filter this service cannot read is 400
 * `invalidFilter`, never an unfiltered list.
 */
export async function listScimUsers(
  workspaceId: string,
  rawQueryString: string,
  ports: { scimUsers: ScimUserStore; clock: Clock },
): Promise<ScimUserPage> {
  const filterText = decodeQueryValue(rawQueryString, 'filter', 'invalidFilter');
  const filter = filterText === undefined ? null : parseFilter(filterText);
  const startIndex = Math.max(1, readInteger(rawQueryString, 'startIndex') ?? 1);
  const count = Math.min(scimListLimits.maxResults, Math.max(0, readInteger(rawQueryString, 'count') ?? scimListLimits.defaultCount));
  const lookups = filter === null ? null : exactLookups(filter);
  if (filter !== null && lookups !== null) {
    // A value wider than any User's is nobody's: its key is not read (DynamoDB refuses one past its size).
    const readable = lookups.filter((lookup) => utf8Bytes(lookup.key) <= scimUserLimits.uniqueValueBytes);
    const found = await Promise.all(
      readable.map((lookup) =>
        lookup.attribute === 'userName'
          ? ports.scimUsers.byUserName(workspaceId, lookup.key)
          : ports.scimUsers.byExternalId(workspaceId, lookup.key),
      ),
    );
    const unique = new Map(found.filter((user): user is ScimUser => user !== null).map((user) => [user.id, user]));
    const matching = [...unique.values()].filter((user) => matches(filter, user)).sort(byId);
    const page = matching.slice(startIndex - 1, startIndex - 1 + count);
    return { users: page, totalResults: matching.length, startIndex, itemsPerPage: page.length };
  }
  const listing = filterText ?? '';
  const now = ports.clock.now();
  const start = startIndex > 1 ? await ports.scimUsers.pageStart(workspaceId, listing, startIndex, now) : null;
  let users: ScimUser[];
  let totalResults: number;
  /** Whether Users follow this page (unfiltered lists: the store says; filtered: by the count). */
  let more: boolean | undefined;
  if (filter === null) {
    const counted = await ports.scimUsers.count(workspaceId);
    // Without where the page starts, the Users before it are read and passed over. With it, the
    // page is read from there whatever the count says: Users deleted during a walk lower the
    // count below startIndex while some still follow, and none may be left out.
    const page =
      start !== null
        ? await readPage(ports.scimUsers, workspaceId, start.afterId, 0, count)
        : startIndex > counted
          ? { users: [], more: false }
          : await readPage(ports.scimUsers, workspaceId, null, startIndex - 1, count);
    users = page.users;
    more = page.more;
    totalResults = Math.max(counted, startIndex - 1 + users.length + (more ? 1 : 0));
  } else if (start?.total !== undefined) {
    users = await readMatching(ports.scimUsers, workspaceId, filter, start.afterId, count);
    totalResults = start.total;
  } else {
    const matching = (await ports.scimUsers.list(workspaceId)).filter((user) => matches(filter, user));
    users = matching.slice(startIndex - 1, startIndex - 1 + count);
    totalResults = matching.length;
  }
  const last = users.at(-1);
  const next = startIndex + users.length;
  if (last !== undefined && (more ?? next <= totalResults)) {
    await ports.scimUsers.rememberPageStart(
      workspaceId,
      listing,
      next,
      { afterId: last.id, ...(filter === null ? {} : { total: totalResults }) },
      now,
    );
  }
  return { users, totalResults, startIndex, itemsPerPage: users.length };
}

/** `take` Users after `after` (from the first when null), the first `skip` of them passed over; `more`: others follow. */
async function readPage(
  store: ScimUserStore,
  workspaceId: string,
  after: string | null,
  skip: number,
  take: number,
): Promise<{ users: ScimUser[]; more: boolean }> {
  if (take === 0) return { users: [], more: false };
  const { users, more } = await store.listAfter(workspaceId, after, skip + take);
  return { users: users.slice(skip), more };
}

/**
 * The first `take` Users after `after` that `filter` matches, read a chunk at a time: a page reads
 * up to its last match and at most a chunk past it, so the pages of a walk read the Users about
 * once between them, however many the filter matches.
 */
async function readMatching(store: ScimUserStore, workspaceId: string, filter: Filter, after: string, take: number): Promise<ScimUser[]> {
  const found: ScimUser[] = [];
  let from = after;
  // A chunk that matched nobody doubles the next (up to a thousand): a filter that matches few
  // would otherwise cost a Query for every `take` Users read.
  let chunk = Math.max(take, 1);
  while (found.length < take) {
    const { users, more } = await store.listAfter(workspaceId, from, chunk);
    const before = found.length;
    for (const user of users) if (found.length < take && matches(filter, user)) found.push(user);
    if (found.length === before) chunk = Math.min(chunk * 2, 1000);
    if (!more || users.length === 0) break;
    from = users.at(-1)!.id;
  }
  return found;
}
