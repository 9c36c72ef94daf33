/**
 * `GET /Groups` (RFC 7644 §3.4.2): pages by `startIndex` and `count`, the `displayName eq` and
 * `externalId eq` filters Okta and Entra send before they create a Group (each read by key), and
 * `excludedAttributes=members`, which both send so as not to read every member. Pure but for the
 * store's reads; a page reads its Groups alone (the store remembers where each page ended).
 */
import { scimListLimits, scimUserLimits } from '../../limits.ts';
import { utf8Bytes } from './attributes.ts';
import { foldCase } from './filter.ts';
import type { ScimGroup, ScimGroupStore } from './groupModel.ts';
import { scimInvalid } from './model.ts';
import { decodeQueryValue } from './query.ts';

export interface ScimGroupListing {
  groups: ScimGroup[];
  totalResults: number;
  startIndex: number;
  itemsPerPage: number;
  withMembers: boolean;
}

type GroupFilter = { attribute: 'displayName' | 'externalId'; value: string };

const filterShape = /^\s*(displayName|externalId)\s+eq\s+("(?:[^"\\]|\\.)*")\s*$/i;

/** `displayName eq "…"` or `externalId eq "…"`; any other filter is 400 `invalidFilter`, never an unfiltered list. */
export function parseGroupFilter(text: string): GroupFilter {
  const match = filterShape.exec(text);
  if (!match) throw scimInvalid('Groups are filtered by displayName eq "…" or externalId eq "…" alone.', 'invalidFilter');
  try {
    const value = JSON.parse(match[2]!) as string;
    return { attribute: match[1]!.toLowerCase() === 'displayname' ? 'displayName' : 'externalId', value };
  } catch {
    throw scimInvalid('The filter has a string that is not valid JSON.', 'invalidFilter');
  }
}

function readInteger(rawQueryString: string, name: 'startIndex' | 'count'): number | undefined {
  const text = decodeQueryValue(rawQueryString, name);
  if (text === undefined) return undefined;
  if (!/^[+-]?\d{1,15}$/.test(text.trim())) throw scimInvalid(`${name} must be an integer.`, 'invalidValue');
  return Number(text.trim());
}

/** Whether `excludedAttributes` (or `attributes`, which omits what it does not name) leaves members out (lists and reads alike). */
export function membersShown(rawQueryString: string): boolean {
  const names = (name: string) =>
    (decodeQueryValue(rawQueryString, name) ?? '')
      .split(',')
      .map((part) => part.trim().toLowerCase())
      .filter((part) => part !== '');
  const excluded = names('excludedAttributes');
  const only = names('attributes');
  // `members.value` (a sub-attribute) names members as much as `members` does.
  const namesMembers = (list: string[]) => list.some((name) => name === 'members' || name.startsWith('members.'));
  if (excluded.includes('members')) return false;
  return only.length === 0 || namesMembers(only);
}

export async function listScimGroups(
  workspaceId: string,
  rawQueryString: string,
  ports: { scimGroups: ScimGroupStore },
): Promise<ScimGroupListing> {
  const filterText = decodeQueryValue(rawQueryString, 'filter', 'invalidFilter');
  const filter = filterText === undefined ? null : parseGroupFilter(filterText);
  const startIndex = Math.max(1, readInteger(rawQueryString, 'startIndex') ?? 1);
  const count = Math.min(scimListLimits.maxResults, Math.max(0, readInteger(rawQueryString, 'count') ?? scimListLimits.defaultCount));
  const withMembers = membersShown(rawQueryString);
  if (filter !== null) {
    // A value wider than any Group's is nobody's: its key is not read. A displayName is keyed
    // folded, which can be longer than sent (İ folds to two characters), and DynamoDB refuses a
    // key past its size.
    const keyed = filter.attribute === 'displayName' ? foldCase(filter.value) : filter.value;
    const found =
      utf8Bytes(keyed) > scimUserLimits.uniqueValueBytes
        ? null
        : filter.attribute === 'displayName'
          ? await ports.scimGroups.byDisplayName(workspaceId, filter.value)
          : await ports.scimGroups.byExternalId(workspaceId, filter.value);
    const matching = found ? [found] : [];
    const groups = matching.slice(startIndex - 1, startIndex - 1 + count);
    return { groups, totalResults: matching.length, startIndex, itemsPerPage: groups.length, withMembers };
  }
  const page = await ports.scimGroups.page(workspaceId, startIndex, count);
  const groups = withMembers ? withinAnswer(page.groups) : page.groups;
  return { groups, totalResults: page.totalResults, startIndex, itemsPerPage: groups.length, withMembers };
}

/**
 * Members a page answers at most, whatever `count` asked: a member is about 130 bytes of JSON,
 * and a Lambda's answer stops at 6 MB (past it the client gets the gateway's 502). RFC 7644
 * §3.4.2.4 lets a page hold fewer than `count`; the client asks on from `startIndex` +
 * `itemsPerPage`. A Group larger than this alone is answered whole.
 */
export const membersPerPage = 20_000;

function withinAnswer(groups: ScimGroup[]): ScimGroup[] {
  let members = 0;
  const kept: ScimGroup[] = [];
  for (const group of groups) {
    members += group.members.length;
    if (kept.length > 0 && members > membersPerPage) break;
    kept.push(group);
  }
  return kept;
}
