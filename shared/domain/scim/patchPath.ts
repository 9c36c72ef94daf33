/**
 * The `path` of a PATCH operation (RFC 7644 §3.5.2, its PATH grammar), as far as a User's
 * attributes go: `attr`, `attr.sub`, `attr[sub eq value]`, `attr[sub eq value].sub`, each
 * optionally qualified by the core User schema's URN, and the enterprise extension's
 * `urn:…:enterprise:2.0:User:attr` (or its URN alone, the whole extension). A value filter is
 * `eq` on sub-attributes, joined by `and`: what both clients send (`emails[type eq "work"].value`),
 * and Microsoft's own SCIM API documents (`emails[type eq "work" and primary eq true]`). Pure.
 */
import type { Invalid } from '../refusals.ts';
import { coreAttributes, enterpriseAttributes, isMultiExtra, isReadOnly, multiValuedParts, nameParts } from './attributes.ts';
import { enterpriseUserSchema, scimInvalid, userSchema } from './model.ts';

/** `sub eq value`, one condition of a value filter. */
export interface ValueCondition {
  sub: string;
  value: string | boolean;
}

/** `[a eq x and b eq y]`: selects the values of a multi-valued attribute meeting every condition. */
export type ValueFilter = ValueCondition[];

export type Target =
  /** A core attribute, by its schema spelling; `sub` is a sub-attribute's, `filter` a multi-valued attribute's selection. */
  | { kind: 'core'; name: string; sub?: string | undefined; filter?: ValueFilter | undefined }
  /** The enterprise extension's object (`name` absent), or one of its attributes. */
  | { kind: 'enterprise'; name?: string | undefined }
  /** `id`, `meta` or `groups`, or a part of them. */
  | { kind: 'readOnly'; name: string }
  /** Not an attribute this service knows: unknown to the core or enterprise schema, or another extension's. */
  | { kind: 'unknown'; otherSchema: boolean };

export const invalidPath = (path: string, why: string): Invalid => scimInvalid(`The path "${path}" ${why}.`, 'invalidPath');

const attributeName = /^[A-Za-z$][\w$-]*/;
const condition = String.raw`([A-Za-z$][\w$-]*)\s+eq\s+("(?:[^"\\]|\\.)*"|true|false)`;
const filterShape = new RegExp(String.raw`^\s*${condition}(?:\s+and\s+${condition})*\s*$`, 'i');
const conditions = new RegExp(condition, 'gi');

function parseCondition(path: string, name: string, literal: string): ValueCondition {
  const sub = multiValuedParts.get(name.toLowerCase());
  if (sub === undefined) throw invalidPath(path, `filters on "${name}", which is not a sub-attribute of a multi-valued attribute`);
  if (literal.toLowerCase() === 'true' || literal.toLowerCase() === 'false') return { sub, value: literal.toLowerCase() === 'true' };
  try {
    return { sub, value: JSON.parse(literal) as string };
  } catch {
    throw invalidPath(path, 'has a string that is not valid JSON');
  }
}

function parseFilter(path: string, text: string): ValueFilter {
  if (!filterShape.test(text))
    throw invalidPath(
      path,
      'has a filter this service does not support (sub-attributes eq values, joined by and, as in emails[type eq "work"])',
    );
  return [...text.matchAll(conditions)].map((match) => parseCondition(path, match[1]!, match[2]!));
}

/** The end of a `[…]` that starts at `open`, skipping brackets inside quoted strings; -1 when unclosed. */
function closingBracket(text: string, open: number): number {
  let quoted = false;
  for (let index = open + 1; index < text.length; index += 1) {
    const char = text[index];
    if (quoted && char === '\\') index += 1;
    else if (char === '"') quoted = !quoted;
    else if (char === ']' && !quoted) return index;
  }
  return -1;
}

function enterpriseTarget(path: string, rest: string): Target {
  if (rest === '') return { kind: 'enterprise' };
  const name = enterpriseAttributes.get(rest.toLowerCase());
  if (name !== undefined) return { kind: 'enterprise', name };
  if (attributeName.exec(rest)?.[0] === rest) return { kind: 'unknown', otherSchema: false };
  throw invalidPath(path, 'names a part of an enterprise attribute; this service sets each one whole');
}

/** Reads `path`; a malformed one, or a sub-attribute or filter where none applies, is `invalidPath`. */
export function parsePath(path: string): Target {
  const trimmed = path.trim();
  const lower = trimmed.toLowerCase();
  const enterprise = enterpriseUserSchema.toLowerCase();
  if (lower === enterprise || lower.startsWith(`${enterprise}:`)) return enterpriseTarget(path, trimmed.slice(enterprise.length + 1));
  const core = `${userSchema.toLowerCase()}:`;
  const local = lower.startsWith(core) ? trimmed.slice(core.length) : trimmed;
  if (!lower.startsWith(core) && lower.startsWith('urn:')) return { kind: 'unknown', otherSchema: true };

  const head = attributeName.exec(local)?.[0];
  if (head === undefined) throw invalidPath(path, 'is not an attribute path');
  let rest = local.slice(head.length);
  let filter: ValueFilter | undefined;
  if (rest.startsWith('[')) {
    const close = closingBracket(rest, 0);
    if (close < 0) throw invalidPath(path, 'has a filter without its closing bracket');
    filter = parseFilter(path, rest.slice(1, close));
    rest = rest.slice(close + 1);
  }
  let subName: string | undefined;
  if (rest.startsWith('.')) {
    subName = attributeName.exec(rest.slice(1))?.[0];
    if (subName === undefined || subName.length !== rest.length - 1) throw invalidPath(path, 'is not an attribute path');
  } else if (rest !== '') throw invalidPath(path, 'is not an attribute path');

  const name = coreAttributes.get(head.toLowerCase());
  // Entra's tutorial (Example 5) adds `manager` unqualified: no core attribute has that name, so
  // it can only mean the enterprise extension's (RFC 7644 §3.10 lets a server resolve it).
  if (name === undefined && head.toLowerCase() === 'manager' && rest === '' && !lower.startsWith(core))
    return { kind: 'enterprise', name: 'manager' };
  if (name === undefined) return { kind: 'unknown', otherSchema: false };
  if (isReadOnly(name)) return { kind: 'readOnly', name };
  const multiValued = name === 'emails' || isMultiExtra(name);
  if (filter && !multiValued) throw invalidPath(path, `filters ${name}, which is not multi-valued`);
  if (subName === undefined) return { kind: 'core', name, filter };
  const sub =
    name === 'name' ? nameParts.get(subName.toLowerCase()) : multiValued ? multiValuedParts.get(subName.toLowerCase()) : undefined;
  if (sub === undefined) throw invalidPath(path, `names "${subName}", which is not a sub-attribute of ${name}`);
  // A sub-attribute of every value at once (`emails.type`) would need a filter to mean one.
  if (multiValued && !filter) throw invalidPath(path, `names a sub-attribute of ${name} without a filter selecting which value`);
  return { kind: 'core', name, sub, filter };
}
