import { workspacePartition } from './workspaces.ts';

// A workspace's SCIM Groups (issue 30), in its partition: the Group, what makes its displayName
// and externalId unique, how many Groups there are, and where each listed page ended.

/** A Group (`WORKSPACE#<id>` / `SCIM_GROUP#<id>`): written by the Groups store (scimGroups.ts). */
export const scimGroupKey = (workspaceId: string, id: string) => ({ pk: workspacePartition(workspaceId), sk: `SCIM_GROUP#${id}` });
/** `SCIM_GROUP#` alone: `SCIM_GROUPNAME#`, `SCIM_GROUPEXT#`, `SCIM_GROUPS` and `SCIM_GROUPPAGE#` sort elsewhere and are not matched. */
export const scimGroupPrefix = 'SCIM_GROUP#';
export interface ScimGroupItem {
  pk: string;
  sk: string;
  type: 'scim_group';
  id: string;
  workspace_id: string;
  display_name: string;
  external_id?: string;
  /** Its members: ids of the workspace's SCIM Users, in the order they joined. */
  members: string[];
  created_at: number;
  last_modified: number;
  version: number;
}

/**
 * What makes a Group unique in its workspace, each written with the Group under
 * attribute_not_exists and pointing at it (`scim_group_id`): its displayName, case folded
 * (`SCIM_GROUPNAME#<folded>`), and its externalId (`SCIM_GROUPEXT#<externalId>`).
 */
export const scimGroupNameKey = (workspaceId: string, foldedDisplayName: string) => ({
  pk: workspacePartition(workspaceId),
  sk: `SCIM_GROUPNAME#${foldedDisplayName}`,
});
export const scimGroupExternalIdKey = (workspaceId: string, externalId: string) => ({
  pk: workspacePartition(workspaceId),
  sk: `SCIM_GROUPEXT#${externalId}`,
});
export interface ScimGroupUniqueItem {
  pk: string;
  sk: string;
  type: 'scim_group_unique';
  scim_group_id: string;
}

/** How many Groups the workspace has (`SCIM_GROUPS`): raised and lowered in each create and delete, a list's totalResults. */
export const scimGroupCountKey = (workspaceId: string) => ({ pk: workspacePartition(workspaceId), sk: 'SCIM_GROUPS' });
export interface ScimGroupCountItem {
  pk: string;
  sk: string;
  type: 'scim_group_count';
  count: number;
}

/**
 * Where a listed page ended (`SCIM_GROUPPAGE#<next startIndex>`): the id of the last Group it
 * held, so the page that starts there is read from that key on (a Query with ExclusiveStartKey)
 * instead of from the first Group. Kept a day (`ttl`).
 */
export const scimGroupPageKey = (workspaceId: string, startIndex: number) => ({
  pk: workspacePartition(workspaceId),
  sk: `SCIM_GROUPPAGE#${startIndex}`,
});
export interface ScimGroupPageItem {
  pk: string;
  sk: string;
  type: 'scim_group_page';
  after_id: string;
  ttl: number;
}
