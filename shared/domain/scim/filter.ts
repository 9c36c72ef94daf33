import { scimFilterLimits } from '../../limits.ts';
import { scimInvalid, userSchema, type ScimUserAttributes } from './model.ts';

/**
 * The SCIM filters a list of Users takes (RFC 7644 §3.4.2.2), as much of them as Okta and
 * Microsoft Entra send: `eq` on `userName`, `externalId`, `emails.value` and Entra's
 * `emails[type eq "work"].value` (not RFC grammar, which has no sub-attribute after a value
 * filter; many parsers refuse it), joined by `and` and `or` with parentheses. No parser on npm
 * reads all of it (docs/adr/0076-scim-filters-a-parser-of-our-own.md). Anything else is a 400
 * `invalidFilter`, never a filter that matches everyone: a list unfiltered by mistake would hand a
 * directory every member.
 */

/** A literal a filter compares with: RFC 7644's compValue, JSON's string, number, true, false and null. */
export type FilterValue = string | number | boolean | null;

export type FilterComparison =
  | { op: 'eq'; attribute: 'userName' | 'externalId'; value: FilterValue }
  /** `emailType` narrows the emails compared to those of one type (`emails[type eq "work"].value`). */
  | { op: 'eq'; attribute: 'emails.value'; emailType?: FilterValue; value: FilterValue };

export type Filter = FilterComparison | { op: 'and' | 'or'; filters: Filter[] };

/** A User the store can read by key instead of scanning: `key` is what `userName`'s uniqueness or `externalId` is kept under. */
export interface ExactLookup {
  attribute: 'userName' | 'externalId';
  key: string;
}

/**
 * How attributes that are not caseExact compare (RFC 7643 §2.2: `userName`, `emails.value`,
 * `emails.type`): lower-cased. The store is to keep `userName`'s per-workspace uniqueness under
 * this key, so that a lookup by it finds exactly the Users `matches` would.
 */
export const foldCase = (value: string): string => value.toLowerCase();

const invalid = (detail: string) => scimInvalid(detail, 'invalidFilter');

const supported = 'userName, externalId, emails.value and emails[type eq "…"].value';
const otherOperators = new Set(['ne', 'co', 'sw', 'ew', 'pr', 'gt', 'ge', 'lt', 'le']);
const userSchemaPrefix = `${userSchema.toLowerCase()}:`;

type Token =
  | { kind: '(' | ')' | '[' | ']'; at: number; end: number }
  | { kind: 'word'; text: string; at: number; end: number }
  | { kind: 'string'; value: string; at: number; end: number };

const whitespace = /[ \t]+/y;
/** A JSON string: no raw control characters, only JSON's escapes. */
const jsonString = /"(?:[^"\\\u0000-\u001f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"/y;
/** Attribute paths (with the schema's URN), operators, keywords and number literals. */
const word = /[A-Za-z0-9_.:$+-]+/y;
const jsonNumber = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

/** Where a problem is, for people: characters counted from 1. */
const position = (at: number) => `at character ${at + 1}`;
/** A word of the filter named in an answer, never a compared value, kept short. */
const quoted = (text: string) => `"${text.length > 40 ? `${text.slice(0, 40)}…` : text}"`;

function tokenize(raw: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  const take = (pattern: RegExp) => {
    pattern.lastIndex = at;
    return pattern.exec(raw)?.[0];
  };
  while (at < raw.length) {
    const char = raw[at] as string;
    const space = take(whitespace);
    if (space !== undefined) {
      at += space.length;
    } else if (char === '(' || char === ')' || char === '[' || char === ']') {
      tokens.push({ kind: char, at, end: at + 1 });
      at += 1;
    } else if (char === '"') {
      const text = take(jsonString);
      if (text === undefined)
        throw invalid(`The string ${position(at)} is not closed, or has a raw control character or an escape JSON does not have.`);
      tokens.push({ kind: 'string', value: JSON.parse(text) as string, at, end: at + text.length });
      at += text.length;
    } else {
      const text = take(word);
      if (text === undefined) throw invalid(`Unexpected ${JSON.stringify(char)} ${position(at)}.`);
      tokens.push({ kind: 'word', text, at, end: at + text.length });
      at += text.length;
    }
  }
  return tokens;
}

class FilterParser {
  private next = 0;
  private depth = 0;

  constructor(private readonly tokens: Token[]) {}

  parse(): Filter {
    const filter = this.disjunction();
    const extra = this.tokens[this.next];
    if (extra) throw invalid(`Expected and, or or the end of the filter ${position(extra.at)}.`);
    return filter;
  }

  /** `and` binds tighter than `or` (RFC 7644 §3.4.2.2, Table 4). */
  private disjunction(): Filter {
    return joined('or', this.conjunction(), () => (this.keyword('or') ? this.conjunction() : null));
  }

  private conjunction(): Filter {
    return joined('and', this.operand(), () => (this.keyword('and') ? this.operand() : null));
  }

  private operand(): Filter {
    const token = this.take();
    if (token?.kind === '(') {
      if (++this.depth > scimFilterLimits.maxDepth) throw invalid(`Parentheses nest ${scimFilterLimits.maxDepth} deep at most.`);
      const inner = this.disjunction();
      const close = this.take();
      if (close?.kind !== ')') throw invalid(`Expected ) ${this.where(close)} to close the ( ${position(token.at)}.`);
      this.depth -= 1;
      return inner;
    }
    if (token?.kind !== 'word') throw invalid(`Expected an attribute name ${this.where(token)}.`);
    const lower = token.text.toLowerCase();
    if (lower === 'not') throw invalid('not(…) is not supported.');
    if (lower === 'and' || lower === 'or') throw invalid(`Expected an attribute name ${position(token.at)}, not ${lower}.`);
    return this.comparison(token);
  }

  private comparison(path: Extract<Token, { kind: 'word' }>): FilterComparison {
    const name = withoutUserSchema(path.text);
    const bracket = this.tokens[this.next];
    if (bracket?.kind === '[' && bracket.at === path.end) {
      if (name.toLowerCase() !== 'emails') throw invalid(`Filtering on ${quoted(name)}[…] is not supported: ${supported} are.`);
      this.next += 1;
      const emailType = this.typeFilter();
      const close = this.take();
      if (close?.kind !== ']') throw invalid(`Expected ] ${this.where(close)}: only type eq "…" is supported within emails[…].`);
      const subAttribute = this.take();
      if (subAttribute?.kind !== 'word' || subAttribute.at !== close.end || subAttribute.text.toLowerCase() !== '.value') {
        throw invalid(`Expected .value right after emails[…] ${this.where(subAttribute)}.`);
      }
      return { op: 'eq', attribute: 'emails.value', emailType, value: this.equalsValue('emails[…].value') };
    }
    const attribute = attributes.get(name.toLowerCase());
    if (!attribute) throw invalid(`Filtering on ${quoted(name)} is not supported: ${supported} are.`);
    return { op: 'eq', attribute, value: this.equalsValue(attribute) };
  }

  /** Within `emails[…]`: `type eq <value>` and nothing else. */
  private typeFilter(): FilterValue {
    const attribute = this.take();
    if (attribute?.kind !== 'word' || attribute.text.toLowerCase() !== 'type') {
      throw invalid(`Expected type ${this.where(attribute)}: only type eq "…" is supported within emails[…].`);
    }
    return this.equalsValue('type');
  }

  /** The operator, which must be `eq`, and the value compared. */
  private equalsValue(attribute: string): FilterValue {
    const operator = this.take();
    const lower = operator?.kind === 'word' ? operator.text.toLowerCase() : undefined;
    if (lower !== 'eq') {
      if (lower !== undefined && otherOperators.has(lower)) throw invalid(`Only the eq operator is supported, not ${lower}.`);
      throw invalid(`Expected eq after ${attribute} ${this.where(operator)}.`);
    }
    const value = this.take();
    if (value?.kind === 'string') return value.value;
    if (value?.kind === 'word') {
      const literal = value.text.toLowerCase();
      if (literal === 'true') return true;
      if (literal === 'false') return false;
      if (literal === 'null') return null;
      if (jsonNumber.test(value.text)) return Number(value.text);
    }
    throw invalid(`Expected a value after eq ${this.where(value)}: a string in double quotes, a number, true, false or null.`);
  }

  private keyword(name: 'and' | 'or'): boolean {
    const token = this.tokens[this.next];
    if (token?.kind !== 'word' || token.text.toLowerCase() !== name) return false;
    this.next += 1;
    return true;
  }

  private take(): Token | undefined {
    const token = this.tokens[this.next];
    if (token) this.next += 1;
    return token;
  }

  private where(token: Token | undefined): string {
    return token ? position(token.at) : 'at the end of the filter';
  }
}

const attributes = new Map<string, 'userName' | 'externalId' | 'emails.value'>([
  ['username', 'userName'],
  ['externalid', 'externalId'],
  ['emails.value', 'emails.value'],
]);

/** Attribute names may carry the core User schema's URN; any other schema's attributes are not filtered on. */
function withoutUserSchema(path: string): string {
  return path.toLowerCase().startsWith(userSchemaPrefix) ? path.slice(userSchemaPrefix.length) : path;
}

/** `first op next op …`, flat: `a or (b or c)` is one `or` of three. */
function joined(op: 'and' | 'or', first: Filter, following: () => Filter | null): Filter {
  const filters: Filter[] = [];
  const add = (filter: Filter) => (filter.op === op ? filters.push(...filter.filters) : filters.push(filter));
  add(first);
  for (let next = following(); next; next = following()) add(next);
  return filters.length === 1 ? first : { op, filters };
}

/**
 * Parses a filter as the query gave it (already URL-decoded). Attribute names, operators and
 * keywords are case-insensitive (RFC 7644 §3.4.2.2); strings are JSON's. Anything else is
 * refused as Invalid (scimType `invalidFilter`), saying what is wrong.
 */
export function parseFilter(raw: string): Filter {
  if (raw.length > scimFilterLimits.maxChars) throw invalid(`Filters are limited to ${scimFilterLimits.maxChars} characters.`);
  const tokens = tokenize(raw);
  if (tokens.length === 0) throw invalid('The filter is empty.');
  return new FilterParser(tokens).parse();
}

/**
 * Whether a filter holds for a User. A string attribute equals only a string; `null` stands for
 * an attribute without a value (RFC 7643 §2.5), so `externalId eq null` holds for a User without
 * one, and `emails[type eq "work"].value eq null` for a User without a work email.
 */
export function matches(filter: Filter, user: ScimUserAttributes): boolean {
  if (filter.op === 'eq') return holds(filter, user);
  return filter.op === 'and' ? filter.filters.every((inner) => matches(inner, user)) : filter.filters.some((inner) => matches(inner, user));
}

function holds(comparison: FilterComparison, user: ScimUserAttributes): boolean {
  switch (comparison.attribute) {
    case 'userName':
      return equals(user.userName, comparison.value, false);
    case 'externalId':
      return equals(user.externalId, comparison.value, true);
    case 'emails.value': {
      const { emailType, value } = comparison;
      const emails = (user.emails ?? []).filter((email) => emailType === undefined || equals(email.type, emailType, false));
      return value === null ? emails.every((email) => !isString(email.value)) : emails.some((email) => equals(email.value, value, false));
    }
  }
}

const isString = (value: unknown): value is string => typeof value === 'string';

function equals(actual: unknown, wanted: FilterValue, caseExact: boolean): boolean {
  if (wanted === null) return !isString(actual);
  if (!isString(actual) || !isString(wanted)) return false;
  return caseExact ? actual === wanted : foldCase(actual) === foldCase(wanted);
}

/**
 * The Users a filter can match, when the store can read them by key: a lone `userName` or
 * `externalId` compared with a string, or an `or` of such comparisons. The Users these lookups
 * find are exactly those the filter matches. Null for any other filter: the store reads the
 * workspace's Users and keeps those `matches` accepts.
 */
export function exactLookups(filter: Filter): ExactLookup[] | null {
  const comparisons = filter.op === 'or' ? filter.filters : [filter];
  const lookups = new Map<string, ExactLookup>();
  for (const comparison of comparisons) {
    if (comparison.op !== 'eq' || comparison.attribute === 'emails.value' || !isString(comparison.value)) return null;
    const key = comparison.attribute === 'userName' ? foldCase(comparison.value) : comparison.value;
    lookups.set(`${comparison.attribute} ${key}`, { attribute: comparison.attribute, key });
  }
  return [...lookups.values()];
}
