/**
 * PATCH of a User (RFC 7644 §3.5.2) as Okta and Microsoft Entra send it: `op` in any case
 * (`Replace`, `Add`), operations without a path whose value holds attributes or, from Entra,
 * paths (`"name.givenName"`, URN-qualified enterprise attributes), `active` as "True"/"False",
 * and `emails[type eq "work"].value` made when there is no work email yet. All operations apply,
 * or none: the first refused one throws, and `current` is never changed. Pure: no I/O.
 */
import { scimUserLimits } from '../../limits.ts';
import type { Invalid } from '../refusals.ts';
import {
  checkUser,
  isObject,
  isSimpleExtra,
  keyOf,
  membersOf,
  readBoolean,
  readEmail,
  readEmails,
  readEnterprise,
  readExtra,
  readName,
  readString,
  readUserName,
  invalidValue,
  type JsonObject,
} from './attributes.ts';
import { enterpriseUserSchema, patchOpSchema, scimInvalid, type ScimEmail, type ScimName, type ScimUserAttributes } from './model.ts';
import { readManager } from './manager.ts';
import { invalidPath, parsePath, type Target, type ValueCondition, type ValueFilter } from './patchPath.ts';
import { checkSchemas, compact } from './userBody.ts';

type Op = 'add' | 'replace' | 'remove';

const invalidSyntax = (detail: string): Invalid => scimInvalid(detail, 'invalidSyntax');
const noTarget = (detail: string): Invalid => scimInvalid(detail, 'noTarget');

/** The User `current` becomes by the operations of `body`. */
export function applyPatch(current: ScimUserAttributes, body: unknown): ScimUserAttributes {
  if (!isObject(body)) throw invalidSyntax('The body must be a PatchOp: a JSON object with Operations.');
  const members = membersOf(body, 'The PatchOp');
  checkSchemas(members.get('schemas'), patchOpSchema, 'a PATCH');
  const operations = members.get('operations');
  if (!Array.isArray(operations) || operations.length === 0) throw invalidSyntax('Operations must be an array of one or more operations.');
  if (operations.length > scimUserLimits.patchOperations)
    throw invalidSyntax(`A PATCH has at most ${scimUserLimits.patchOperations} operations.`);
  const user = structuredClone(current);
  operations.forEach((operation, index) => {
    applyOperation(user, operation, `Operations[${index}]`);
  });
  return checkUser(compact(user));
}

function applyOperation(user: ScimUserAttributes, operation: unknown, where: string): void {
  if (!isObject(operation)) throw invalidSyntax(`${where} must be an object with op, path and value.`);
  const members = membersOf(operation, where);
  const opName = members.get('op');
  const op = typeof opName === 'string' ? opName.toLowerCase() : undefined;
  if (op !== 'add' && op !== 'replace' && op !== 'remove') throw invalidSyntax(`${where}.op must be add, replace or remove.`);
  const path = members.get('path');
  const value = members.get('value');
  if (path === undefined || path === null || path === '') {
    if (op === 'remove') throw noTarget(`${where} removes without a path: name what to remove.`);
    // No path: the value's members are the attributes to set (RFC 7644 §3.5.2.1); Entra also
    // keys them by path ("name.givenName"). What this service does not keep is ignored, as in a POST.
    if (!isObject(value)) throw invalidSyntax(`${where} has no path, so its value must be an object of attributes.`);
    for (const [key, member] of Object.entries(value)) {
      if (key.toLowerCase() === 'schemas') continue;
      const target = parsePath(key);
      if (target.kind !== 'readOnly' && target.kind !== 'unknown') applyTo(user, op, target, member, key);
    }
    return;
  }
  if (typeof path !== 'string') throw invalidSyntax(`${where}.path must be a string.`);
  if (op !== 'remove' && value === undefined) throw invalidSyntax(`${where} must have a value to ${op}.`);
  const target = parsePath(path);
  if (target.kind === 'readOnly') throw scimInvalid(`${target.name} is read-only.`, 'mutability');
  if (target.kind === 'unknown') {
    if (target.otherSchema) return; // another extension's attribute, not kept here, as a POST does not keep it
    throw invalidPath(path, 'names no attribute of a User this service keeps');
  }
  applyTo(user, op, target, value, path);
}

function applyTo(
  user: ScimUserAttributes,
  op: Op,
  target: Exclude<Target, { kind: 'readOnly' | 'unknown' }>,
  value: unknown,
  path: string,
): void {
  if (target.kind === 'enterprise') return applyToEnterprise(user, op, target.name, value);
  const { name, sub, filter } = target;
  if (filter) return applyToValues(user, op, name, filter, sub, value, path);
  if (name === 'name' && sub !== undefined) return setPart(user, sub as keyof ScimName, op === 'remove' ? null : value);
  // Null sets nothing: the attribute is unassigned, as a remove would leave it.
  const remove = op === 'remove' || value === null;
  switch (name) {
    case 'userName':
      if (remove) throw invalidValue('userName is required: it can be replaced, not removed.');
      user.userName = readUserName(value);
      return;
    case 'active':
      if (remove) throw invalidValue('active is true or false: it can be replaced, not removed.');
      user.active = readBoolean(value, 'active');
      return;
    case 'externalId':
    case 'displayName':
      if (remove) delete user[name];
      else user[name] = readString(value, name);
      return;
    case 'name':
      // A complex attribute's add and replace both set the parts they name (RFC 7644 §3.5.2.1, §3.5.2.3).
      if (remove) delete user.name;
      else user.name = readName(value, user.name);
      return;
    case 'emails':
      return applyToEmails(user, op, remove, value);
    case 'password':
      return; // accepted, never kept
    default:
      return applyToExtra(user, op, name, remove, value);
  }
}

function setPart(user: ScimUserAttributes, part: keyof ScimName, value: unknown): void {
  const name = { ...user.name };
  if (value === null) delete name[part];
  else name[part] = readString(value, `name.${part}`);
  user.name = name;
}

/** The values a remove lists by `value` ([{value}], Entra's older form); null when it lists none, and every value goes. */
function listedValues(op: Op, value: unknown): string[] | null {
  if (op !== 'remove' || value === undefined || value === null) return null;
  const items = Array.isArray(value) ? value : [value];
  const listed = items.map((item) => (isObject(item) ? item[keyOf(item, 'value') ?? 'value'] : undefined));
  return listed.length > 0 && listed.every((item) => typeof item === 'string')
    ? listed.map((item) => (item as string).toLowerCase())
    : null;
}

function withoutListed<T extends object>(values: T[], listed: string[]): T[] {
  const kept = values.filter((item) => {
    const own = (item as JsonObject)[keyOf(item as JsonObject, 'value') ?? 'value'];
    return !(typeof own === 'string' && listed.includes(own.toLowerCase()));
  });
  if (kept.length === values.length) throw noTarget('None of the values the remove lists is there.');
  return kept;
}

function applyToEmails(user: ScimUserAttributes, op: Op, remove: boolean, value: unknown): void {
  if (remove) {
    const listed = listedValues(op, value);
    if (listed === null) delete user.emails;
    else user.emails = withoutListed(user.emails ?? [], listed);
    return;
  }
  const given = readEmails(value);
  const primary = given.filter((email) => email.primary === true);
  if (primary.length > 1) throw invalidValue('At most one email may be primary.');
  if (op === 'replace') {
    user.emails = given;
    return;
  }
  // Add: a value already there (same address and type) is replaced, not repeated.
  const same = (a: ScimEmail, b: ScimEmail) =>
    a.value.toLowerCase() === b.value.toLowerCase() && (a.type ?? '').toLowerCase() === (b.type ?? '').toLowerCase();
  const emails = [...(user.emails ?? []).filter((email) => !given.some((added) => same(email, added))), ...given];
  user.emails = primary[0] ? solePrimary(emails, primary[0]) : emails;
}

/** Setting one value primary makes the others not (RFC 7644 §3.5.2). */
function solePrimary<T extends object>(values: T[], primary: T): T[] {
  return values.map((value) => {
    const key = keyOf(value as JsonObject, 'primary');
    return value === primary || key === undefined ? value : { ...value, [key]: false };
  });
}

/** The values of a multi-valued extra as kept (an array of objects, readExtra saw to it). */
const kept = (user: ScimUserAttributes, name: string): JsonObject[] => {
  const values = user.extra?.[name];
  return Array.isArray(values) ? values.filter(isObject) : [];
};

function applyToExtra(user: ScimUserAttributes, op: Op, name: string, remove: boolean, value: unknown): void {
  const extra: JsonObject = { ...user.extra };
  const listed = isSimpleExtra(name) ? null : listedValues(op, value);
  if (listed !== null) extra[name] = withoutListed(kept(user, name), listed);
  else if (remove) delete extra[name];
  else if (op === 'add' && !isSimpleExtra(name))
    extra[name] = [...kept(user, name), ...(readExtra(name, Array.isArray(value) ? value : [value]) as JsonObject[])];
  else extra[name] = readExtra(name, value);
  user.extra = extra;
}

/**
 * The enterprise extension's attributes are kept as sent, but for the manager, kept as an object
 * from any shape a client sends (manager.ts), and set whole: a new manager's value with the old
 * one's displayName would name two people. An empty one removes it (Entra's "Remove Manager").
 */
function applyToEnterprise(user: ScimUserAttributes, op: Op, name: string | undefined, value: unknown): void {
  if (name === undefined && op !== 'remove' && value !== null) readEnterprise(value, enterpriseUserSchema);
  const enterprise = { ...user.enterprise };
  // The extension is a complex attribute: add and replace set the attributes they name, and keep the others.
  const changes: [string, unknown][] = name === undefined ? (isObject(value) ? Object.entries(value) : []) : [[name, value]];
  if (op === 'remove' || value === null) {
    if (name === undefined) return void delete user.enterprise;
    changes[0] = [name, null];
  }
  for (const [key, member] of changes) setKept(enterprise, key, key.toLowerCase() === 'manager' ? readManager(member) : member);
  if (Object.keys(enterprise).length === 0) delete user.enterprise;
  else user.enterprise = enterprise;
}

/** Sets `name` in an object kept as sent, under the spelling it already has there; null removes it. */
function setKept(object: JsonObject, name: string, value: unknown): void {
  const key = keyOf(object, name) ?? name;
  if (value === null) delete object[key];
  // Defined, not assigned: a member named __proto__ stays a member.
  else Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Sub-attributes compare without case (caseExact false, RFC 7643 §4.1.2); booleans also as "True" and "False". */
const meets = (item: JsonObject, { sub, value }: ValueCondition): boolean => {
  const own = item[keyOf(item, sub) ?? sub];
  return own === value || (typeof own === 'string' && own.toLowerCase() === String(value).toLowerCase());
};
const matches = (item: JsonObject, filter: ValueFilter): boolean => filter.every((condition) => meets(item, condition));

/** What is left of a value with no sub-attribute but these says nothing, and goes. */
const labelsOnly = (item: JsonObject): boolean =>
  Object.keys(item).every((key) => ['type', 'primary', 'display'].includes(key.toLowerCase()));

/**
 * `attr[sub eq value]` and `attr[sub eq value].sub`, on emails or a multi-valued extra. Remove
 * drops the selected values (or their sub-attribute); one selecting nothing is `noTarget`. Add
 * and replace set the selected values; selecting none by `type`, they make one of that type
 * (Entra's `emails[type eq "work"].value` on a User without a work email), else `noTarget`.
 */
function applyToValues(
  user: ScimUserAttributes,
  op: Op,
  name: string,
  filter: ValueFilter,
  sub: string | undefined,
  value: unknown,
  path: string,
): void {
  const values: JsonObject[] = name === 'emails' ? (user.emails ?? []).map((email) => ({ ...email })) : kept(user, name);
  const selected = values.filter((item) => matches(item, filter));
  let next: JsonObject[];
  if (op === 'remove') {
    if (selected.length === 0) throw noTarget(`The path "${path}" selects nothing to remove.`);
    next = values.flatMap((item) => {
      if (!selected.includes(item)) return [item];
      if (sub === undefined) return [];
      const rest = { ...item };
      delete rest[keyOf(rest, sub) ?? sub];
      return labelsOnly(rest) ? [] : [rest];
    });
  } else {
    const change = sub === undefined ? (isObject(value) ? value : null) : { [sub]: value };
    if (change === null) throw invalidValue(`The path "${path}" selects whole values: its value must be an object of sub-attributes.`);
    const merge = (item: JsonObject): JsonObject => {
      const merged = { ...item };
      for (const [key, member] of Object.entries(change)) setKept(merged, key, member);
      return merged;
    };
    // A new value is what the filter asks for, so it selects it: {type: "work"} (and primary: true …).
    const typed = filter.some((condition) => condition.sub === 'type' && typeof condition.value === 'string');
    const made =
      selected.length > 0
        ? selected.map(merge)
        : typed
          ? [merge(Object.fromEntries(filter.map((condition) => [condition.sub, condition.value])))]
          : null;
    if (made === null) throw noTarget(`The path "${path}" selects nothing to ${op}.`);
    // A value a null left with nothing but its labels goes, as a remove of it would leave it.
    const settled = (item: JsonObject): JsonObject[] => (labelsOnly(item) ? [] : [item]);
    next =
      selected.length > 0
        ? values.flatMap((item) => (selected.includes(item) ? settled(made[selected.indexOf(item)]!) : [item]))
        : [...values, ...made.flatMap(settled)];
    const primary = made.find((item) => meets(item, { sub: 'primary', value: true }));
    if (primary) next = solePrimary(next, primary);
  }
  if (name === 'emails') user.emails = next.map((item, index) => readEmail(item, `emails[${index}]`));
  else user.extra = { ...user.extra, [name]: readExtra(name, next) };
}
