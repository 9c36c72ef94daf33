/**
 * A Group as POST and PUT send it, PATCH of one as Okta and Microsoft Entra send it, and a Group
 * as every answer shows it (RFC 7643 §4.2, RFC 7644 §3.5.2). Pure: no I/O. Whether each member
 * is one of the workspace's Users is the use case's to check (groups.ts), on the whole result.
 */
import { toIso } from '../../clock.ts';
import type { Invalid } from '../refusals.ts';
import { scimUserLimits } from '../../limits.ts';
import { invalidValue, isObject, membersOf, utf8Bytes, type JsonObject } from './attributes.ts';
import { foldCase } from './filter.ts';
import { groupSchema, scimGroupLimits, type ScimGroup, type ScimGroupAttributes } from './groupModel.ts';
import { patchOpSchema, scimInvalid } from './model.ts';
import { checkSchemas } from './userBody.ts';

const invalidSyntax = (detail: string): Invalid => scimInvalid(detail, 'invalidSyntax');
const invalidPath = (path: string, why: string): Invalid => scimInvalid(`The path "${path}" ${why}.`, 'invalidPath');

/**
 * A non-empty string of at most `max` characters. Each is kept unique under a key holding it
 * (displayName folded), which DynamoDB caps at 1,024 bytes: 256 emoji are past it, so the
 * bytes are bounded too, as a User's unique values are.
 */
function readText(value: unknown, name: string, max: number): string {
  if (typeof value !== 'string' || value.trim() === '') throw invalidValue(`${name} must be a non-empty string.`);
  if ([...value].length > max) throw invalidValue(`${name} is limited to ${max} characters.`);
  if (Math.max(utf8Bytes(value), utf8Bytes(foldCase(value))) > scimUserLimits.uniqueValueBytes) {
    throw invalidValue(`${name} is limited to ${scimUserLimits.uniqueValueBytes} bytes in UTF-8.`);
  }
  return value;
}

const readDisplayName = (value: unknown) => readText(value, 'displayName', scimGroupLimits.displayNameChars);
const readExternalId = (value: unknown) =>
  value === null || value === undefined ? undefined : readText(value, 'externalId', scimGroupLimits.externalIdChars);

/** Member ids as `members` holds them (`[{value, display?, $ref?, type?}]`), each once. */
function readMembers(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  const list = Array.isArray(value) ? value : [value];
  const ids = list.map((member, index) => {
    const fields = isObject(member) ? membersOf(member, `members[${index}]`) : null;
    const id = fields?.get('value');
    if (typeof id !== 'string' || id === '') throw invalidValue(`members[${index}] must be an object whose value is a User's id.`);
    return id;
  });
  return [...new Set(ids)];
}

function withinLimits(group: ScimGroupAttributes): ScimGroupAttributes {
  if (group.members.length > scimGroupLimits.members) throw invalidValue(`A Group holds at most ${scimGroupLimits.members} members.`);
  return group;
}

/** A POST or PUT body: `displayName` required, `externalId` and `members` optional; `id` and `meta` ignored. */
export function parseGroupBody(body: unknown): ScimGroupAttributes {
  if (!isObject(body)) throw invalidSyntax('The body must be a SCIM Group: a JSON object.');
  const fields = membersOf(body, 'The Group');
  checkSchemas(fields.get('schemas'), groupSchema, 'a Group');
  return withinLimits({
    displayName: readDisplayName(fields.get('displayname')),
    externalId: readExternalId(fields.get('externalid')),
    members: readMembers(fields.get('members')),
  });
}

type Op = 'add' | 'replace' | 'remove';
/** What a path names: an attribute, or the members a `members[value eq "…"]` filter selects. */
type GroupTarget = { name: 'displayName' | 'externalId' | 'members' | 'ignored' } | { name: 'member'; id: string };

const coreGroupPrefix = `${groupSchema.toLowerCase()}:`;

function parseGroupPath(path: string): GroupTarget {
  let text = path.trim();
  if (text.toLowerCase().startsWith(coreGroupPrefix)) text = text.slice(coreGroupPrefix.length);
  const lower = text.toLowerCase();
  if (lower === 'displayname') return { name: 'displayName' };
  if (lower === 'externalid') return { name: 'externalId' };
  if (lower === 'members') return { name: 'members' };
  if (lower === 'id' || lower === 'meta' || lower.startsWith('meta.')) return { name: 'ignored' };
  const filtered = /^members\s*\[\s*value\s+eq\s+("(?:[^"\\]|\\.)*")\s*\]$/i.exec(text);
  if (filtered) {
    try {
      return { name: 'member', id: JSON.parse(filtered[1]!) as string };
    } catch {
      throw invalidPath(path, 'has a string that is not valid JSON');
    }
  }
  if (lower.startsWith('members')) throw invalidPath(path, 'selects members other than by members[value eq "<id>"]');
  throw invalidPath(path, 'is not an attribute of a Group (displayName, externalId, members)');
}

function readOp(operation: JsonObject, index: number): { op: Op; path: string | undefined; value: unknown } {
  const fields = membersOf(operation, `Operations[${index}]`);
  const op = fields.get('op');
  const name = typeof op === 'string' ? op.toLowerCase() : '';
  if (name !== 'add' && name !== 'replace' && name !== 'remove') {
    throw invalidSyntax(`Operations[${index}].op must be add, replace or remove.`);
  }
  const path = fields.get('path');
  if (path !== undefined && path !== null && typeof path !== 'string') throw invalidSyntax(`Operations[${index}].path must be a string.`);
  return { op: name, path: typeof path === 'string' && path.trim() !== '' ? path : undefined, value: fields.get('value') };
}

/** One operation on one attribute, as `group` is now. */
function applyTo(group: ScimGroupAttributes, op: Op, target: GroupTarget, value: unknown, path: string): ScimGroupAttributes {
  switch (target.name) {
    case 'ignored':
      return group;
    case 'displayName':
      if (op === 'remove') throw scimInvalid('displayName is required: a Group cannot be without one.', 'mutability');
      return { ...group, displayName: readDisplayName(value) };
    case 'externalId':
      return { ...group, externalId: op === 'remove' ? undefined : readExternalId(value) };
    case 'member':
      if (op !== 'remove') throw invalidPath(path, 'selects a member: only remove takes a filter here');
      return { ...group, members: group.members.filter((id) => id !== target.id) };
    case 'members': {
      if (op === 'replace') return { ...group, members: readMembers(value) };
      if (op === 'add') return { ...group, members: [...new Set([...group.members, ...readMembers(value)])] };
      // Entra removes members by value (`{"op":"Remove","path":"members","value":[{"value":"…"}]}`); without one, all go (RFC 7644 §3.5.2.2).
      if (value === undefined || value === null) return { ...group, members: [] };
      const gone = new Set(readMembers(value));
      return { ...group, members: group.members.filter((id) => !gone.has(id)) };
    }
  }
}

/** A path-less add or replace: its value holds attributes by name (Okta renames so, with the Group's `id` beside). */
function applyObject(group: ScimGroupAttributes, op: Op, value: unknown, index: number): ScimGroupAttributes {
  if (op === 'remove') throw scimInvalid(`Operations[${index}] removes without a path: say what to remove.`, 'noTarget');
  if (!isObject(value)) throw invalidSyntax(`Operations[${index}] has no path, so its value must be an object of attributes.`);
  let next = group;
  for (const [name, inner] of Object.entries(value)) {
    if (name.toLowerCase() === 'schemas') continue;
    next = applyTo(next, op, parseGroupPath(name), inner, name);
  }
  return next;
}

/** The Group `current` becomes by the operations of `body`: all apply, or none (the first refused throws). */
export function applyGroupPatch(current: ScimGroupAttributes, body: unknown): ScimGroupAttributes {
  if (!isObject(body)) throw invalidSyntax('The body must be a SCIM PatchOp: a JSON object.');
  const fields = membersOf(body, 'The PatchOp');
  checkSchemas(fields.get('schemas'), patchOpSchema, 'a PATCH');
  const operations = fields.get('operations');
  if (!Array.isArray(operations) || operations.length === 0) throw invalidSyntax('Operations must be a non-empty array.');
  if (operations.length > 100) throw scimInvalid('A PATCH holds at most 100 operations.', 'tooMany');
  let group: ScimGroupAttributes = { ...current, members: [...current.members] };
  operations.forEach((operation, index) => {
    if (!isObject(operation)) throw invalidSyntax(`Operations[${index}] must be an object.`);
    const { op, path, value } = readOp(operation, index);
    group = path === undefined ? applyObject(group, op, value, index) : applyTo(group, op, parseGroupPath(path), value, path);
  });
  return withinLimits(group);
}

/** A Group as every answer shows it; `members` left out when the list asked `excludedAttributes=members`. */
export function toGroupResource(group: ScimGroup, baseUrl: string, withMembers = true) {
  const base = baseUrl.replace(/\/+$/, '');
  return {
    schemas: [groupSchema],
    id: group.id,
    ...(group.externalId !== undefined ? { externalId: group.externalId } : {}),
    displayName: group.displayName,
    ...(withMembers ? { members: group.members.map((id) => ({ value: id, $ref: `${base}/Users/${id}`, type: 'User' })) } : {}),
    meta: {
      resourceType: 'Group' as const,
      created: toIso(group.createdAt),
      lastModified: toIso(group.lastModified),
      location: `${base}/Groups/${group.id}`,
      version: `W/"${group.version}"`,
    },
  };
}
export type ScimGroupResource = ReturnType<typeof toGroupResource>;
