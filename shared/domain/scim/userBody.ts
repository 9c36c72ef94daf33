/**
 * A User as POST and PUT send it, and as every answer shows it (RFC 7643 §4.1, RFC 7644 §3.3,
 * §3.5.1), read as Okta and Microsoft Entra really send it. Pure: no I/O.
 */
import { toIso } from '../../clock.ts';
import {
  checkUser,
  coreAttributes,
  isMultiExtra,
  isSimpleExtra,
  isObject,
  membersOf,
  readBoolean,
  readEmails,
  readEnterprise,
  readExtra,
  readName,
  readString,
  readUserName,
  type JsonObject,
} from './attributes.ts';
import { enterpriseResource, withKeptManager } from './manager.ts';
import {
  enterpriseUserSchema,
  scimInvalid,
  userSchema,
  type ScimEmail,
  type ScimName,
  type ScimUser,
  type ScimUserAttributes,
} from './model.ts';

/**
 * `schemas`, when sent, must name `schema` (a Group sent to /Users is a mistake worth telling).
 * It may be absent: the RFC requires it, both clients always send it, and nothing is ambiguous
 * without it. Other URNs in it (the enterprise extension, a client's own) are fine.
 */
export function checkSchemas(value: unknown, schema: string, what: string): void {
  if (value === undefined) return;
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw scimInvalid('schemas must be an array of schema URNs.', 'invalidSyntax');
  }
  if (!value.some((urn) => urn.toLowerCase() === schema.toLowerCase()))
    throw scimInvalid(`schemas must include ${schema} for ${what}.`, 'invalidSyntax');
}

/**
 * The attributes of a POST or PUT body. `userName` is required; `active` is true when absent.
 * A null attribute is unassigned (RFC 7644 §3.5.1). `password` is accepted and dropped; the
 * read-only `id`, `meta` and `groups` are ignored (RFC 7644 §3.3). The enterprise extension's
 * object is kept as sent but for its manager, kept as an object (manager.ts); the other core attributes go to `extra` as sent; attributes of no
 * schema this service knows, and other extensions', are not kept.
 */
export function parseUserBody(body: unknown): ScimUserAttributes {
  if (!isObject(body)) throw scimInvalid('The body must be a SCIM User: a JSON object.', 'invalidSyntax');
  const members = membersOf(body, 'The User');
  checkSchemas(members.get('schemas'), userSchema, 'a User');
  const user: ScimUserAttributes = { userName: readUserName(members.get('username')), active: true };
  const extra: JsonObject = {};
  for (const [key, value] of members) {
    if (value === null) continue;
    if (key === enterpriseUserSchema.toLowerCase()) {
      user.enterprise = withKeptManager(readEnterprise(value, enterpriseUserSchema));
      continue;
    }
    const name = coreAttributes.get(key);
    if (name === 'active') user.active = readBoolean(value, 'active');
    else if (name === 'externalId' || name === 'displayName') user[name] = readString(value, name);
    else if (name === 'name') user.name = readName(value);
    else if (name === 'emails') user.emails = readEmails(value);
    else if (name !== undefined && (isSimpleExtra(name) || isMultiExtra(name))) extra[name] = readExtra(name, value);
  }
  return checkUser(compact({ ...user, extra }));
}

/** Without the containers left empty (a name with no parts, no emails, nothing extra). */
export function compact(user: ScimUserAttributes): ScimUserAttributes {
  const result = { ...user };
  if (result.name && Object.keys(result.name).length === 0) delete result.name;
  if (result.emails?.length === 0) delete result.emails;
  if (result.extra && Object.keys(result.extra).length === 0) delete result.extra;
  return result;
}

/** A User as every answer shows it (201, 200, list items). */
export interface ScimUserResource {
  schemas: string[];
  id: string;
  externalId?: string;
  userName: string;
  name?: ScimName;
  displayName?: string;
  emails?: ScimEmail[];
  active: boolean;
  meta: { resourceType: 'User'; created: string; lastModified: string; location: string; version: string };
  [attribute: string]: unknown;
}

/** Names `extra` may never show, whatever is stored: the service's own, and what is never kept. */
const notExtra = new Set([
  'schemas',
  'id',
  'externalid',
  'username',
  'name',
  'displayname',
  'emails',
  'active',
  'meta',
  'password',
  'groups',
]);

/**
 * The full User (RFC 7643 §4.1): its attributes as kept, the enterprise extension's object
 * under its URN (named in `schemas`, its manager with the `$ref` built here), and `meta` with the absolute `location` the `Location`
 * header repeats and the version as a weak ETag. Never a password: none is kept.
 */
export function toScimResource(user: ScimUser, baseUrl: string): ScimUserResource {
  const extra = Object.entries(user.extra ?? {}).filter(([key]) => !notExtra.has(key.toLowerCase()));
  return {
    schemas: user.enterprise ? [userSchema, enterpriseUserSchema] : [userSchema],
    id: user.id,
    ...(user.externalId !== undefined ? { externalId: user.externalId } : {}),
    userName: user.userName,
    ...(user.name ? { name: user.name } : {}),
    ...(user.displayName !== undefined ? { displayName: user.displayName } : {}),
    ...(user.emails ? { emails: user.emails } : {}),
    active: user.active,
    ...Object.fromEntries(extra),
    ...(user.enterprise ? { [enterpriseUserSchema]: enterpriseResource(user.enterprise, baseUrl) } : {}),
    meta: {
      resourceType: 'User',
      created: toIso(user.createdAt),
      lastModified: toIso(user.lastModified),
      location: `${baseUrl.replace(/\/+$/, '')}/Users/${user.id}`,
      version: `W/"${user.version}"`,
    },
  };
}
