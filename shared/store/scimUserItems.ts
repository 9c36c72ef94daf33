import type { ScimUser } from '../domain/scim/model.ts';
import { storedEnterprise } from '../domain/scim/manager.ts';
import { scimUserKey as userKey, type ScimUserItem } from './items/index.ts';

// A SCIM User and its item (the layout is in items/scim.ts), mapped here for the store
// (workspaceScim.ts) and its pages (scimUserPages.ts) alike.

export function toUserItem(user: ScimUser, accountEmail: string): ScimUserItem {
  return {
    ...userKey(user.workspaceId, user.id),
    type: 'scim_user',
    id: user.id,
    workspace_id: user.workspaceId,
    user_id: user.userId,
    account_email: accountEmail,
    user_name: user.userName,
    external_id: user.externalId,
    name: user.name,
    display_name: user.displayName,
    emails: user.emails,
    active: user.active,
    extra: user.extra,
    enterprise: user.enterprise,
    created_at: user.createdAt,
    last_modified: user.lastModified,
    version: user.version,
  };
}

export function toUser(item: Record<string, unknown>): ScimUser {
  const optional = <T>(key: string): T | undefined => (item[key] === undefined || item[key] === null ? undefined : (item[key] as T));
  const enterprise = optional<Record<string, unknown>>('enterprise');
  return {
    id: String(item.id),
    workspaceId: String(item.workspace_id),
    userId: String(item.user_id),
    userName: String(item.user_name),
    externalId: optional<string>('external_id'),
    name: optional<ScimUser['name']>('name'),
    displayName: optional<string>('display_name'),
    emails: optional<ScimUser['emails']>('emails'),
    active: item.active === true,
    extra: optional<Record<string, unknown>>('extra'),
    // A manager kept as sent before (a bare id) reads back as the object it is now kept as.
    enterprise: enterprise === undefined ? undefined : storedEnterprise(enterprise),
    createdAt: Number(item.created_at),
    lastModified: Number(item.last_modified),
    version: Number(item.version),
  };
}
