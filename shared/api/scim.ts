import * as z from 'zod/mini';
import { scimTypes } from '../domain/scim/model.ts';

/**
 * Directory provisioning (issue 18, interface §4.8) in SCIM's own shapes (RFC 7643, RFC 7644),
 * the scim group's contract. A body here is only checked to be a JSON object: what a User or a
 * PATCH may hold is read by the domain (shared/domain/scim/userBody.ts, patch.ts) as Okta and
 * Microsoft Entra really send it, with SCIM's errors (`scimType`), which a schema's 400 could
 * not say. The schemas below are what the document tells clients.
 */
const scimUserBody = z.looseObject({
  schemas: z.optional(z.array(z.string())),
  userName: z.optional(z.unknown()),
  externalId: z.optional(z.unknown()),
  name: z.optional(z.unknown()),
  displayName: z.optional(z.unknown()),
  emails: z.optional(z.unknown()),
  active: z.optional(z.unknown()),
  password: z.optional(z.unknown()),
});

/** A Group as POST and PUT send it (shared/domain/scim/groupBody.ts reads it). */
const scimGroupBody = z.looseObject({
  schemas: z.optional(z.array(z.string())),
  displayName: z.optional(z.unknown()),
  externalId: z.optional(z.unknown()),
  members: z.optional(z.unknown()),
});

export const scimRequests = {
  ScimUserRequest: scimUserBody,
  ScimGroupRequest: scimGroupBody,
  ScimPatchRequest: z.looseObject({ schemas: z.optional(z.array(z.string())), Operations: z.optional(z.array(z.unknown())) }),
  /**
   * Read by the route from the raw query string (`+` a space, `%2B` a plus; names in any case):
   * listed here for the document. Other parameters are ignored (RFC 7644 §3.4.2).
   */
  ScimListQuery: z.looseObject({
    filter: z.optional(z.string()),
    startIndex: z.optional(z.string()),
    count: z.optional(z.string()),
  }),
  /** As ScimListQuery; `filter` is `displayName eq "…"` or `externalId eq "…"`, and `excludedAttributes=members` leaves members out. */
  ScimGroupListQuery: z.looseObject({
    filter: z.optional(z.string()),
    startIndex: z.optional(z.string()),
    count: z.optional(z.string()),
    excludedAttributes: z.optional(z.string()),
    attributes: z.optional(z.string()),
  }),
  /** A Group's read: `excludedAttributes=members` (Entra's) leaves members out. */
  ScimGroupReadQuery: z.looseObject({
    excludedAttributes: z.optional(z.string()),
    attributes: z.optional(z.string()),
  }),
};

const meta = z.looseObject({
  resourceType: z.string(),
  created: z.optional(z.string()),
  lastModified: z.optional(z.string()),
  location: z.url(),
  version: z.optional(z.string()),
});

const scimUser = z.looseObject({
  schemas: z.array(z.string()),
  id: z.string(),
  externalId: z.optional(z.string()),
  userName: z.string(),
  name: z.optional(
    z.looseObject({ givenName: z.optional(z.string()), familyName: z.optional(z.string()), formatted: z.optional(z.string()) }),
  ),
  displayName: z.optional(z.string()),
  emails: z.optional(z.array(z.looseObject({ value: z.string(), type: z.optional(z.string()), primary: z.optional(z.boolean()) }))),
  active: z.boolean(),
  meta,
});

const listResponse = <T extends z.ZodMiniType>(resource: T) =>
  z.strictObject({
    schemas: z.array(z.string()),
    totalResults: z.int().check(z.nonnegative()),
    startIndex: z.int().check(z.positive()),
    itemsPerPage: z.int().check(z.nonnegative()),
    Resources: z.array(resource),
  });

const scimGroup = z.looseObject({
  schemas: z.array(z.string()),
  id: z.string(),
  externalId: z.optional(z.string()),
  displayName: z.string(),
  /** Each also has `$ref`, the User's absolute URL (not spelled here: OpenAPI reads a `$ref` key as a reference). */
  members: z.optional(z.array(z.looseObject({ value: z.string(), type: z.optional(z.string()) }))),
  meta,
});

export const scimReplies = {
  ScimUser: scimUser,
  ScimUserList: listResponse(scimUser),
  ScimGroup: scimGroup,
  ScimGroupList: listResponse(scimGroup),
  ScimServiceProviderConfig: z.looseObject({
    schemas: z.array(z.string()),
    patch: z.looseObject({ supported: z.boolean() }),
    bulk: z.looseObject({ supported: z.boolean() }),
    filter: z.looseObject({ supported: z.boolean(), maxResults: z.int() }),
    changePassword: z.looseObject({ supported: z.boolean() }),
    sort: z.looseObject({ supported: z.boolean() }),
    etag: z.looseObject({ supported: z.boolean() }),
    authenticationSchemes: z.array(z.looseObject({ type: z.string(), name: z.string(), description: z.string() })),
  }),
  ScimSchemaList: listResponse(
    z.looseObject({ id: z.string(), attributes: z.array(z.looseObject({ name: z.string(), type: z.string() })) }),
  ),
  ScimResourceTypeList: listResponse(z.looseObject({ id: z.string(), endpoint: z.string(), schema: z.string() })),
};

/** SCIM's error message (RFC 7644 §3.12): what every refusal of the scim group is, in place of problem+json. */
export const ScimErrorMessage = z.looseObject({
  schemas: z.tuple([z.literal('urn:ietf:params:scim:api:messages:2.0:Error')]),
  /** The HTTP status, as a string (RFC 7644 §3.12). */
  status: z.string().check(z.regex(/^[1-5]\d\d$/)),
  scimType: z.optional(z.enum(scimTypes)),
  detail: z.string().check(z.minLength(1)),
});
