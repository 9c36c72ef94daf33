import { Invalid, type RefusalOptions } from '../refusals.ts';

/**
 * SCIM 2.0 provisioning (issue 18, interface §4.8, RFC 7643/7644): a workspace's directory (Okta,
 * Microsoft Entra) provisions its members as Users, authenticated by the workspace's directory
 * key (issue 17). A User is a member of that workspace made by the directory; deactivating or
 * deleting one removes the membership and frees the seat, never the account (rule 6).
 */

export const userSchema = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const enterpriseUserSchema = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const listResponseSchema = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const patchOpSchema = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const errorSchema = 'urn:ietf:params:scim:api:messages:2.0:Error';
export const serviceProviderConfigSchema = 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig';
export const schemaSchema = 'urn:ietf:params:scim:schemas:core:2.0:Schema';
export const resourceTypeSchema = 'urn:ietf:params:scim:schemas:core:2.0:ResourceType';

// Type aliases, not interfaces: an answer's schema (shared/api/scim.ts) takes them as open objects.
export type ScimEmail = {
  value: string;
  type?: string | undefined;
  primary?: boolean | undefined;
};

export type ScimName = {
  formatted?: string | undefined;
  familyName?: string | undefined;
  givenName?: string | undefined;
  middleName?: string | undefined;
  honorificPrefix?: string | undefined;
  honorificSuffix?: string | undefined;
};

/**
 * The attributes of a provisioned User the service keeps (what the directory sent, as it sent
 * it, but for `active`, always a boolean). `id` and `meta` are the service's; `password` is never
 * kept; `groups` is read-only and never kept.
 */
export interface ScimUserAttributes {
  userName: string;
  externalId?: string | undefined;
  name?: ScimName | undefined;
  displayName?: string | undefined;
  emails?: ScimEmail[] | undefined;
  active: boolean;
  /** Other core attributes the directory sent (title, locale, phoneNumbers, …), echoed as sent. */
  extra?: Record<string, unknown> | undefined;
  /** The enterprise extension's object, stored and echoed exactly as sent. */
  enterprise?: Record<string, unknown> | undefined;
}

/** A provisioned User as the service keeps it. */
export interface ScimUser extends ScimUserAttributes {
  /** The User's id: the service's own, stable. */
  id: string;
  workspaceId: string;
  /** The account the User is (made when the address was new). */
  userId: string;
  createdAt: number;
  lastModified: number;
  /** Raised on every change (meta.version, a weak ETag). */
  version: number;
}

/** SCIM's error types (RFC 7644 §3.12), for the 400s and 409s that have one. */
export const scimTypes = [
  'invalidFilter',
  'tooMany',
  'uniqueness',
  'mutability',
  'invalidSyntax',
  'invalidPath',
  'noTarget',
  'invalidValue',
  'invalidVers',
  'sensitive',
] as const;
export type ScimType = (typeof scimTypes)[number];

/**
 * What a refusal tells a directory beyond its sentence: SCIM's `scimType`, which the transport's
 * refusal table puts in SCIM's error message (RFC 7644 §3.12).
 */
export const scimFacts = (scimType: ScimType): RefusalOptions => ({ facts: { scimType } });

/** A request SCIM's rules refuse (400), with the scimType a directory branches on. */
export const scimInvalid = (detail: string, scimType: ScimType): Invalid => new Invalid(detail, [], scimFacts(scimType));
