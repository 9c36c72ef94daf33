import type { ScimGroup } from '../domain/scim/groupModel.ts';
import { scimGroupExternalIdKey, scimGroupKey, type ScimGroupItem, type ScimGroupUniqueItem } from './items/index.ts';
import type { TransactWriteItem } from './workspaceItems.ts';

/**
 * A SCIM Group's item and the parts of its transactions (the layout is items/scimGroups.ts),
 * for the Groups store (scimGroups.ts): each part tagged with what it stands for, so a
 * cancellation says which fact moved.
 */

export type Part = 'group' | 'unique' | 'policy' | 'role' | 'other';
export interface Step {
  part: Part;
  item: TransactWriteItem;
}

/** The key of a Group's displayName item, folded as SCIM compares it (the store's). */
export type NameKey = (workspaceId: string, displayName: string) => { pk: string; sk: string };

export const removeItem = (
  tableName: string,
  key: { pk: string; sk: string },
  condition: string,
  values: Record<string, unknown>,
): TransactWriteItem => ({ Delete: { TableName: tableName, Key: key, ConditionExpression: condition, ExpressionAttributeValues: values } });

/** A displayName or externalId item given back, if it is still the Group's. */
export const releaseItem = (tableName: string, key: { pk: string; sk: string }, groupId: string): TransactWriteItem =>
  removeItem(tableName, key, 'scim_group_id = :id', { ':id': groupId });

export function toItem(group: ScimGroup): ScimGroupItem {
  return {
    ...scimGroupKey(group.workspaceId, group.id),
    type: 'scim_group',
    id: group.id,
    workspace_id: group.workspaceId,
    display_name: group.displayName,
    ...(group.externalId !== undefined ? { external_id: group.externalId } : {}),
    members: group.members,
    created_at: group.createdAt,
    last_modified: group.lastModified,
    version: group.version,
  };
}

export function toGroup(item: Record<string, unknown>): ScimGroup {
  return {
    id: String(item.id),
    workspaceId: String(item.workspace_id),
    displayName: String(item.display_name),
    externalId: typeof item.external_id === 'string' ? item.external_id : undefined,
    members: Array.isArray(item.members) ? item.members.map(String) : [],
    createdAt: Number(item.created_at),
    lastModified: Number(item.last_modified),
    version: Number(item.version),
    ...(typeof item.role_settles === 'number' ? { roleSettles: item.role_settles } : {}),
  };
}

/** The displayName and externalId items `group` needs that `before` did not hold, and those it no longer needs released. */
export function uniqueSteps(tableName: string, nameKey: NameKey, group: ScimGroup, before: ScimGroup | null): Step[] {
  const steps: Step[] = [];
  const claim = (key: { pk: string; sk: string }) =>
    steps.push({
      part: 'unique',
      item: {
        Put: {
          TableName: tableName,
          Item: { ...key, type: 'scim_group_unique', scim_group_id: group.id } satisfies ScimGroupUniqueItem,
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    });
  if (!before || nameKey(group.workspaceId, before.displayName).sk !== nameKey(group.workspaceId, group.displayName).sk) {
    if (before) steps.push({ part: 'unique', item: releaseItem(tableName, nameKey(group.workspaceId, before.displayName), group.id) });
    claim(nameKey(group.workspaceId, group.displayName));
  }
  if (before?.externalId !== group.externalId) {
    if (before?.externalId !== undefined)
      steps.push({ part: 'unique', item: releaseItem(tableName, scimGroupExternalIdKey(group.workspaceId, before.externalId), group.id) });
    if (group.externalId !== undefined) claim(scimGroupExternalIdKey(group.workspaceId, group.externalId));
  }
  return steps;
}
