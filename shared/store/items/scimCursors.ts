import { workspacePartition } from './workspaces.ts';

// What makes a workspace's Users listable page by page at the cost of a page (issue 30): how
// many Users there are, and where each listed page ended. Both in the workspace's partition,
// under sort keys `SCIM_USER#` (the Users' prefix) does not match.

/**
 * How many Users the workspace has (`WORKSPACE#<id>` / `SCIM_USERS`), an unfiltered list's
 * totalResults: raised and lowered in each create's and delete's transaction, which require it
 * to exist, so it is counted once (from the Users) before the first change that finds it absent.
 * Written by scimUserPages.ts (the count in the SCIM store's transactions).
 */
export const scimUserCountKey = (workspaceId: string) => ({ pk: workspacePartition(workspaceId), sk: 'SCIM_USERS' });
export interface ScimUserCountItem {
  pk: string;
  sk: string;
  type: 'scim_user_count';
  count: number;
}

/**
 * Where a listed page of Users ended (`WORKSPACE#<id>` / `SCIM_USERPAGE#<listing>#<next
 * startIndex>`, the listing the SHA-256 of its filter, empty for none): the id of the last User
 * it held, so the page asked next is read from that key on (a Query with ExclusiveStartKey)
 * instead of from the first User; and, for a filtered listing, its totalResults as its first page
 * counted it. Kept an hour (`ttl`, and read only before it). Written by scimUserPages.ts.
 */
export const scimUserPageKey = (workspaceId: string, listing: string, startIndex: number) => ({
  pk: workspacePartition(workspaceId),
  sk: `SCIM_USERPAGE#${listing}#${startIndex}`,
});
export interface ScimUserPageItem {
  pk: string;
  sk: string;
  type: 'scim_user_page';
  after_id: string;
  total?: number;
  ttl: number;
}
