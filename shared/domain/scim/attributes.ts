/**
 * A SCIM User's attributes as directories send them (RFC 7643 §4.1, §4.3), one at a time: for
 * POST and PUT bodies (userBody.ts) and for PATCH operations (patch.ts) alike. Attribute names
 * are case-insensitive (RFC 7643 §2.1): every name is looked up in lower case and kept in the
 * schema's spelling. Values are checked and kept as sent, but for `active` and a value's
 * `primary`, always booleans. Pure: no I/O.
 */
import { scimUserLimits as limits } from '../../limits.ts';
import type { Invalid } from '../refusals.ts';
import { scimInvalid, type ScimEmail, type ScimName, type ScimUserAttributes } from './model.ts';

export type JsonObject = Record<string, unknown>;

export const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

export const invalidValue = (detail: string): Invalid => scimInvalid(detail, 'invalidValue');

/** By lower-case name, in the schema's spelling. */
const spellings = (names: readonly string[]): ReadonlyMap<string, string> => new Map(names.map((name) => [name.toLowerCase(), name]));

/** Core attributes kept in `extra` as sent: single strings, and multi-valued arrays of objects. */
const simpleExtras = spellings(['nickName', 'profileUrl', 'title', 'userType', 'preferredLanguage', 'locale', 'timezone']);
const multiExtras = spellings(['phoneNumbers', 'ims', 'photos', 'addresses', 'entitlements', 'roles', 'x509Certificates']);
/** Set by the service (`id`, `meta`), or by group membership (`groups`, which this service does not keep). */
const readOnly = ['id', 'meta', 'groups'];

/** Every attribute of the core User schema, by lower-case name. */
export const coreAttributes = spellings([
  'userName',
  'active',
  'externalId',
  'displayName',
  'name',
  'emails',
  'password',
  ...readOnly,
  ...simpleExtras.values(),
  ...multiExtras.values(),
]);

export const isReadOnly = (name: string): boolean => readOnly.includes(name);
export const isSimpleExtra = (name: string): boolean => simpleExtras.has(name.toLowerCase());
export const isMultiExtra = (name: string): boolean => multiExtras.has(name.toLowerCase());

export const nameParts = spellings(['formatted', 'familyName', 'givenName', 'middleName', 'honorificPrefix', 'honorificSuffix']);

/** Sub-attributes of the multi-valued attributes (RFC 7643 §2.4, and an address's parts, §4.1.2). */
export const multiValuedParts = spellings([
  'value',
  'type',
  'primary',
  'display',
  '$ref',
  'formatted',
  'streetAddress',
  'locality',
  'region',
  'postalCode',
  'country',
]);

/** The enterprise extension's attributes (RFC 7643 §4.3). */
export const enterpriseAttributes = spellings(['employeeNumber', 'costCenter', 'organization', 'division', 'department', 'manager']);

/** An object's members by lower-case name: two spellings of one name are refused rather than one picked. */
export function membersOf(object: JsonObject, where: string): Map<string, unknown> {
  const members = new Map<string, unknown>();
  for (const [key, value] of Object.entries(object)) {
    const name = key.toLowerCase();
    if (members.has(name)) throw scimInvalid(`${where} has "${key}" twice (attribute names are case-insensitive).`, 'invalidSyntax');
    members.set(name, value);
  }
  return members;
}

/** The key `object` spells `name` with, if any (values kept as sent keep their spelling). */
export const keyOf = (object: JsonObject, name: string): string | undefined =>
  Object.keys(object).find((key) => key.toLowerCase() === name.toLowerCase());

export function readBoolean(value: unknown, name: string): boolean {
  if (typeof value === 'boolean') return value;
  // Entra without its aadOptscim062020 flag sends "True" and "False".
  const word = typeof value === 'string' ? value.toLowerCase() : null;
  if (word === 'true' || word === 'false') return word === 'true';
  throw invalidValue(`${name} must be true or false.`);
}

export function readString(value: unknown, name: string, max: number = limits.attributeChars): string {
  if (typeof value !== 'string') throw invalidValue(`${name} must be a string.`);
  if (value.length > max) throw invalidValue(`${name} must be at most ${max} characters.`);
  return value;
}

export function readUserName(value: unknown): string {
  if (value === undefined || value === null) throw invalidValue('userName is required.');
  const userName = readString(value, 'userName', limits.userNameChars);
  if (userName.trim() === '') throw invalidValue('userName must not be empty.');
  return userName;
}

/**
 * `name`, or the parts of it to change (a complex attribute's add and replace set the parts they
 * name and keep the others, RFC 7644 §3.5.2.1, §3.5.2.3). A null part is removed; parts RFC 7643
 * does not define are not kept, as unknown attributes are not.
 */
export function readName(value: unknown, current: ScimName = {}): ScimName {
  if (!isObject(value)) throw invalidValue('name must be an object (givenName, familyName, …).');
  const name: ScimName = { ...current };
  for (const [key, part] of membersOf(value, 'name')) {
    const sub = nameParts.get(key) as keyof ScimName | undefined;
    if (sub === undefined) continue;
    if (part === null) delete name[sub];
    else name[sub] = readString(part, `name.${sub}`);
  }
  return name;
}

/**
 * Who receives mail is the route's decision (it checks the address it uses as the API does);
 * here an email is anything with one @ between non-blank parts, as directories store them.
 */
const emailShape = /^[^\s@]+@[^\s@]+$/;

export function readEmail(value: unknown, where: string): ScimEmail {
  if (!isObject(value)) throw invalidValue(`${where} must be an object with a value.`);
  const members = membersOf(value, where);
  const address = readString(members.get('value'), `${where}.value`, limits.emailChars);
  if (!emailShape.test(address)) throw invalidValue(`${where}.value must be an email address.`);
  const email: ScimEmail = { value: address };
  const type = members.get('type');
  if (type !== undefined && type !== null) email.type = readString(type, `${where}.type`, limits.emailTypeChars);
  const primary = members.get('primary');
  if (primary !== undefined && primary !== null) email.primary = readBoolean(primary, `${where}.primary`);
  // `display` is read-only (RFC 7643 §2.4) and not kept.
  return email;
}

export function readEmails(value: unknown): ScimEmail[] {
  const items = Array.isArray(value) ? value : [value];
  return items.map((item, index) => readEmail(item, `emails[${index}]`));
}

/**
 * A core attribute kept in `extra`: a string, or an array of objects, as sent but for `primary`,
 * a boolean: the Entra SCIM Validator sends roles[].primary as "True" and parses the answer by
 * the schema, which says boolean.
 */
export function readExtra(name: string, value: unknown): unknown {
  if (isSimpleExtra(name)) return readString(value, name);
  if (!Array.isArray(value) || !value.every(isObject)) throw invalidValue(`${name} must be an array of objects.`);
  return value.map((item, index) => {
    const key = keyOf(item, 'primary');
    return key === undefined || item[key] === null ? item : { ...item, [key]: readBoolean(item[key], `${name}[${index}].primary`) };
  });
}

export function readEnterprise(value: unknown, name: string): JsonObject {
  if (!isObject(value)) throw invalidValue(`${name} must be an object.`);
  return value;
}

export const utf8Bytes = (text: string): number => new TextEncoder().encode(text).length;
const jsonBytes = (value: unknown): number => utf8Bytes(JSON.stringify(value));

/**
 * Member names the table's document client cannot write as sent: it takes a member named
 * `constructor` for the object's class (an error, a 500, or with `{"name": "String"}` the object
 * written as "[object Object]"), and assigns `__proto__` as the prototype of the map it builds,
 * so that member would be lost. Object.prototype's other names (`toString`, …) are kept.
 */
const unkeptNames: ReadonlySet<string> = new Set(['constructor', '__proto__']);

/**
 * What is kept as sent holds only what DynamoDB can: numbers it can write, nesting it allows, and
 * members with a name (a map's key may not be empty) the document client writes as a member.
 * Refused before its size is measured, so a value nested thousands deep is never walked further.
 */
function checkKept(value: unknown, name: string, depth = 0): void {
  if (depth > limits.keptDepth) throw invalidValue(`${name} nests deeper than ${limits.keptDepth} levels.`);
  if (typeof value === 'number') {
    const magnitude = Math.abs(value);
    const { max, minNonZero } = limits.keptNumberMagnitude;
    if (value !== 0 && !(magnitude >= minNonZero && magnitude <= max))
      throw invalidValue(`${name} holds ${value}: numbers are 0, or from ${minNonZero} to ${max} in magnitude.`);
  } else if (Array.isArray(value)) {
    for (const item of value) checkKept(item, name, depth + 1);
  } else if (isObject(value)) {
    for (const key of Object.keys(value)) {
      if (key === '') throw invalidValue(`${name} holds a member with an empty name.`);
      if (unkeptNames.has(key)) throw invalidValue(`${name} holds a member named "${key}", which this service cannot keep.`);
    }
    for (const member of Object.values(value)) checkKept(member, name, depth + 1);
  }
}

/** What holds for a User however it was made: the caps, and one primary email at most (RFC 7643 §2.4). */
export function checkUser(user: ScimUserAttributes): ScimUserAttributes {
  const emails = user.emails ?? [];
  if (emails.length > limits.emails) throw invalidValue(`A User has at most ${limits.emails} emails.`);
  if (emails.filter((email) => email.primary === true).length > 1) throw invalidValue('At most one email may be primary.');
  if (user.externalId !== undefined && utf8Bytes(user.externalId) > limits.uniqueValueBytes) {
    throw invalidValue(`externalId must be at most ${limits.uniqueValueBytes} bytes of UTF-8.`);
  }
  if (user.enterprise) checkKept(user.enterprise, 'The enterprise extension');
  if (user.extra) checkKept(user.extra, 'The other attributes');
  if (user.enterprise && jsonBytes(user.enterprise) > limits.enterpriseJsonBytes) {
    throw invalidValue(`The enterprise extension must be at most ${limits.enterpriseJsonBytes} bytes of JSON.`);
  }
  if (user.extra && jsonBytes(user.extra) > limits.extraJsonBytes) {
    throw invalidValue(`The other attributes together must be at most ${limits.extraJsonBytes} bytes of JSON.`);
  }
  return user;
}
