import { scimListLimits, scimUserLimits } from '../../limits.ts';
import { utf8Bytes } from './attributes.ts';
import { exactLookups, matches, parseFilter } from './filter.ts';
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

/**
 * `GET /Users`: the workspace's Users matching `filter` (every one without it), oldest first,
 * cut at `startIndex` and `count` (at most `scimListLimits.maxResults`). A filter naming Users by
 * userName or externalId alone reads them by key (Okta's lookup before every create, Entra's
 * random-user probe); any other reads the workspace's Users and keeps those it matches. A filter
 * this service cannot read is 400 `invalidFilter`, never an unfiltered list.
 */
export async function listScimUsers(
  workspaceId: string,
  rawQueryString: string,
  ports: { scimUsers: ScimUserStore },
): Promise<ScimUserPage> {
  const filterText = decodeQueryValue(rawQueryString, 'filter', 'invalidFilter');
  const filter = filterText === undefined ? null : parseFilter(filterText);
  const startIndex = Math.max(1, readInteger(rawQueryString, 'startIndex') ?? 1);
  const count = Math.min(scimListLimits.maxResults, Math.max(0, readInteger(rawQueryString, 'count') ?? scimListLimits.defaultCount));
  const lookups = filter === null ? null : exactLookups(filter);
  let users: ScimUser[];
  if (lookups !== null) {
    // A value wider than any User's is nobody's: its key is not read (DynamoDB refuses one past its size).
    const readable = lookups.filter((lookup) => utf8Bytes(lookup.key) <= scimUserLimits.uniqueValueBytes);
    const found = await Promise.all(
      readable.map((lookup) =>
        lookup.attribute === 'userName'
          ? ports.scimUsers.byUserName(workspaceId, lookup.key)
          : ports.scimUsers.byExternalId(workspaceId, lookup.key),
      ),
    );
    const byId = new Map(found.filter((user): user is ScimUser => user !== null).map((user) => [user.id, user]));
    users = [...byId.values()].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  } else {
    users = await ports.scimUsers.list(workspaceId);
  }
  const matching = filter === null ? users : users.filter((user) => matches(filter, user));
  const page = matching.slice(startIndex - 1, startIndex - 1 + count);
  return { users: page, totalResults: matching.length, startIndex, itemsPerPage: page.length };
}
