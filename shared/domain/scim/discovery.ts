/**
 * SCIM's discovery documents (RFC 7644 §4): /ServiceProviderConfig, /Schemas and /ResourceTypes,
 * public and the same for every workspace but for the base URL their `meta.location`s are under
 * (`https://<host>/scim/v2`). They say what this service really does: Users and Groups (issue
 * 30), PATCH and the filter (eq lookups, filter.ts), nothing else optional. Pure: no I/O.
 */
import { scimListLimits } from '../../limits.ts';
import { enterpriseUserAttributes, groupAttributes, userAttributes, type ScimAttributeDefinition } from './discoverySchemas.ts';
import { groupSchema } from './groupModel.ts';
import {
  enterpriseUserSchema,
  listResponseSchema,
  resourceTypeSchema,
  schemaSchema,
  serviceProviderConfigSchema,
  userSchema,
} from './model.ts';

export type { ScimAttributeDefinition } from './discoverySchemas.ts';

type Meta = {
  resourceType: 'ServiceProviderConfig' | 'Schema' | 'ResourceType';
  location: string;
};

/** A ListResponse holding everything at once (RFC 7644 §3.4.2): the discovery lists are never paged. */
export type ScimListResponse<T> = {
  schemas: [typeof listResponseSchema];
  totalResults: number;
  startIndex: 1;
  itemsPerPage: number;
  Resources: T[];
};

type Supported = {
  supported: boolean;
};

/** RFC 7643 §5. */
export type ScimServiceProviderConfig = {
  schemas: [typeof serviceProviderConfigSchema];
  patch: Supported;
  bulk: Supported & { maxOperations: number; maxPayloadSize: number };
  filter: Supported & { maxResults: number };
  changePassword: Supported;
  sort: Supported;
  etag: Supported;
  authenticationSchemes: { type: string; name: string; description: string; primary: boolean }[];
  meta: Meta;
};

/** RFC 7643 §7. */
export type ScimSchema = {
  schemas: [typeof schemaSchema];
  id: string;
  name: string;
  description: string;
  attributes: ScimAttributeDefinition[];
  meta: Meta;
};

/** RFC 7643 §6. */
export type ScimResourceType = {
  schemas: [typeof resourceTypeSchema];
  id: string;
  name: string;
  endpoint: string;
  description: string;
  schema: string;
  schemaExtensions: { schema: string; required: boolean }[];
  meta: Meta;
};

/** `https://host/scim/v2/`, `https://host/scim/v2`: one base for every location, as toScimResource does. */
const base = (baseUrl: string): string => baseUrl.replace(/\/+$/, '');

const listOf = <T>(Resources: T[]): ScimListResponse<T> => ({
  schemas: [listResponseSchema],
  totalResults: Resources.length,
  startIndex: 1,
  itemsPerPage: Resources.length,
  Resources,
});

/**
 * What is supported, honestly: `etag` is false although Users carry a weak `meta.version`,
 * because no request is conditioned on it (If-Match is not read); `sort` is false because a
 * list is always oldest first. There is no documentationUri: the directory key's page is the
 * workspace's SSO settings, which the description names.
 */
export function serviceProviderConfig(baseUrl: string): ScimServiceProviderConfig {
  return {
    schemas: [serviceProviderConfigSchema],
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: scimListLimits.maxResults },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'Directory key',
        description: 'The workspace directory key (hlscim_…) as Authorization: Bearer <key>, from the workspace SSO settings',
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base(baseUrl)}/ServiceProviderConfig` },
  };
}

function schema(baseUrl: string, id: string, name: string, description: string, attributes: ScimAttributeDefinition[]): ScimSchema {
  return {
    schemas: [schemaSchema],
    id,
    name,
    description,
    // A copy: the definitions are shared, the document is the caller's.
    attributes: structuredClone(attributes),
    meta: { resourceType: 'Schema', location: `${base(baseUrl)}/Schemas/${id}` },
  };
}

/** The User schema, its enterprise extension and the Group schema, as a ListResponse: what Entra reads when provisioning settings are saved. */
export function scimSchemas(baseUrl: string): ScimListResponse<ScimSchema> {
  return listOf([
    schema(baseUrl, userSchema, 'User', 'A member of the workspace, provisioned by its directory.', userAttributes),
    schema(baseUrl, enterpriseUserSchema, 'EnterpriseUser', 'The enterprise extension of a User, kept as sent.', enterpriseUserAttributes),
    schema(baseUrl, groupSchema, 'Group', 'A group of the workspace’s Users, pushed by its directory.', groupAttributes),
  ]);
}

/** Users and Groups. */
export function resourceTypes(baseUrl: string): ScimListResponse<ScimResourceType> {
  return listOf([
    {
      schemas: [resourceTypeSchema],
      id: 'User',
      name: 'User',
      endpoint: '/Users',
      description: 'A member of the workspace, provisioned by its directory: an active User holds a seat.',
      schema: userSchema,
      schemaExtensions: [{ schema: enterpriseUserSchema, required: false }],
      meta: { resourceType: 'ResourceType', location: `${base(baseUrl)}/ResourceTypes/User` },
    },
    {
      schemas: [resourceTypeSchema],
      id: 'Group',
      name: 'Group',
      endpoint: '/Groups',
      description: 'A group of the workspace’s Users; the one the policy names (scim_admin_group) makes its members admins.',
      schema: groupSchema,
      schemaExtensions: [],
      meta: { resourceType: 'ResourceType', location: `${base(baseUrl)}/ResourceTypes/Group` },
    },
  ]);
}
