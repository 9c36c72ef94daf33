import type { ScimUser } from '../../domain/scim/model.ts';
import { workspacePartition } from './workspaces.ts';

// A workspace's SCIM Users and its SSO directory, in its partition; the email domain a directory
// speaks for, and its directory key's lookup, in partitions of their own.

/** A provisioned User (`WORKSPACE#<id>` / `SCIM_USER#<id>`): written by the SCIM store (workspaceScim.ts). */
export const scimUserKey = (workspaceId: string, id: string) => ({ pk: workspacePartition(workspaceId), sk: `SCIM_USER#${id}` });
/** `SCIM_USER#` alone: `SCIM_USERNAME#` sorts after it (`N` > `#`) and is not matched. */
export const scimUserPrefix = 'SCIM_USER#';
export interface ScimUserItem {
  pk: string;
  sk: string;
  type: 'scim_user';
  id: string;
  workspace_id: string;
  user_id: string;
  /** The account's address when the User was made (its membership's). */
  account_email: string;
  user_name: string;
  external_id?: string;
  name?: ScimUser['name'];
  display_name?: string;
  emails?: ScimUser['emails'];
  active: boolean;
  extra?: Record<string, unknown>;
  enterprise?: Record<string, unknown>;
  created_at: number;
  last_modified: number;
  version: number;
}

/**
 * What makes a User unique in its workspace, each an item written with the User under
 * attribute_not_exists, pointing at it (`scim_id`): its userName (`SCIM_USERNAME#<folded
 * userName>`), its externalId (`SCIM_EXTERNAL#<externalId>`) and its account (`SCIM_ACCOUNT#<user
 * id>`: one User per account). Written by the SCIM store (workspaceScim.ts). The caller folds the
 * userName's case (the domain's `foldCase`).
 */
export const scimUserNameKey = (workspaceId: string, foldedUserName: string) => ({
  pk: workspacePartition(workspaceId),
  sk: `SCIM_USERNAME#${foldedUserName}`,
});
export const scimExternalIdKey = (workspaceId: string, externalId: string) => ({
  pk: workspacePartition(workspaceId),
  sk: `SCIM_EXTERNAL#${externalId}`,
});
export const scimAccountKey = (workspaceId: string, userId: string) => ({
  pk: workspacePartition(workspaceId),
  sk: `SCIM_ACCOUNT#${userId}`,
});
export interface ScimUniqueItem {
  pk: string;
  sk: string;
  type: 'scim_unique';
  scim_id: string;
}

/** A workspace's SSO directory (`WORKSPACE#<id>` / `SSO`): written by the SSO store (workspaceSso.ts). */
export const ssoDirectoryKey = (workspaceId: string) => ({ pk: workspacePartition(workspaceId), sk: 'SSO' });
export interface SsoDirectoryItem {
  pk: string;
  sk: string;
  type: 'sso';
  workspace_id: string;
  issuer: string;
  email_domain: string;
  key_hash: string;
  key_created_at: number;
  /** The OIDC client registered at the issuer, both or neither (issue 29). */
  client_id?: string;
  /** Its secret sealed for the workspace (KMS context `sso_workspace=<workspace id>`; `local:` in a local run). */
  sealed_client_secret?: string;
  /** Sign-in by code refused for the email domain's addresses (its SSO domain item is `enforced`). Absent: false. */
  enforce?: boolean;
  /** Just-in-time membership through the directory's sign-in. Absent: false. */
  sso_jit?: boolean;
  updated_at: number;
}

/**
 * The email domain a directory speaks for (`SSO_DOMAIN#<domain>` / `SSO`), at most one
 * workspace's: written by the SSO store (workspaceSso.ts; a domain claim's deletion releases it
 * through its part). Sign-in's SSO policy reads `enforced`, present exactly when the directory
 * enforces (each save writes the item whole; a domain the directory leaves goes, flag and all).
 */
export const ssoDomainKey = (domain: string) => ({ pk: `SSO_DOMAIN#${domain}`, sk: 'SSO' });
export interface SsoDomainItem {
  pk: string;
  sk: string;
  type: 'sso_domain';
  domain: string;
  workspace_id: string;
  issuer: string;
  enforced?: boolean;
}

/** A directory key's lookup (`SCIM_KEY#<sha256>` / `SCIM_KEY`), what SCIM requests are checked against: written by the SSO store (workspaceSso.ts). */
export const scimKeyKey = (hash: string) => ({ pk: `SCIM_KEY#${hash}`, sk: 'SCIM_KEY' });
export interface ScimKeyItem {
  pk: string;
  sk: string;
  type: 'scim_key';
  workspace_id: string;
  created_at: number;
}
