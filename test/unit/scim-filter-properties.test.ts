import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exactLookups, matches, parseFilter, type Filter, type FilterValue } from '../../shared/domain/scim/filter.ts';
import { Invalid } from '../../shared/domain/refusals.ts';
import type { ScimUserAttributes } from '../../shared/domain/scim/model.ts';
import { toHttpError } from '../../shared/http/refusals.ts';
import { scimFilterLimits } from '../../shared/limits.ts';

const userName = (value: FilterValue): Filter => ({ op: 'eq', attribute: 'userName', value });
const externalId = (value: FilterValue): Filter => ({ op: 'eq', attribute: 'externalId', value });
const email = (value: FilterValue, emailType?: FilterValue): Filter =>
  emailType === undefined ? { op: 'eq', attribute: 'emails.value', value } : { op: 'eq', attribute: 'emails.value', emailType, value };
const or = (...filters: Filter[]): Filter => ({ op: 'or', filters });

/** A filter written back as text: attribute names and keywords in `letterCase`, parentheses wherever `wrap` says. */
function written(filter: Filter, style: { letterCase: (text: string) => string; space: string; urn: boolean }, wrap: boolean[]): string {
  const keyword = (text: string) => style.letterCase(text);
  const literal = (value: FilterValue) => JSON.stringify(value);
  const prefix = style.urn ? keyword('urn:ietf:params:scim:schemas:core:2.0:User:') : '';
  const at = { next: 0 };
  const write = (node: Filter, parent: 'and' | 'or' | null): string => {
    const parenthesise = wrap[at.next++ % wrap.length] ?? false;
    let text: string;
    if (node.op === 'eq') {
      const path =
        node.attribute === 'emails.value' && node.emailType !== undefined
          ? `${keyword('emails')}[${keyword('type')} ${keyword('eq')} ${literal(node.emailType)}]${keyword('.value')}`
          : keyword(node.attribute);
      text = `${prefix}${path}${style.space}${keyword('eq')}${style.space}${literal(node.value)}`;
    } else {
      text = node.filters.map((inner) => write(inner, node.op)).join(`${style.space}${keyword(node.op)}${style.space}`);
    }
    return parenthesise || (parent === 'and' && node.op === 'or') ? `(${text})` : text;
  };
  return write(filter, null);
}

/** What parsing makes of a filter: nested and/or of the same kind flattened. */
function flattened(filter: Filter): Filter {
  if (filter.op === 'eq') return filter;
  const filters = filter.filters
    .map(flattened)
    .flatMap((inner) => (inner.op === filter.op ? (inner as { filters: Filter[] }).filters : [inner]));
  return { op: filter.op, filters };
}

const values: fc.Arbitrary<FilterValue> = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false) },
  { weight: 1, arbitrary: fc.integer({ min: -1000, max: 1000 }) },
);
const comparisons: fc.Arbitrary<Filter> = fc.oneof(
  values.map(userName),
  values.map(externalId),
  values.map((value) => email(value)),
  fc.tuple(values, values).map(([value, type]) => email(value, type)),
);
const filters: fc.Arbitrary<Filter> = fc.letrec<{ filter: Filter }>((tie) => ({
  filter: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    comparisons,
    fc
      .tuple(fc.constantFrom('and' as const, 'or' as const), fc.array(tie('filter'), { minLength: 2, maxLength: 3 }))
      .map(([op, inner]): Filter => ({ op, filters: inner })),
  ),
})).filter;
const users: fc.Arbitrary<ScimUserAttributes> = fc.record({
  userName: fc.constantFrom('ana@example.org', 'ANA@example.org', 'bo', ''),
  externalId: fc.option(fc.constantFrom('x1', 'X1', ''), { nil: undefined }),
  emails: fc.option(
    fc.array(
      fc.record({
        value: fc.constantFrom('ana@example.org', 'Bo@x'),
        type: fc.option(fc.constantFrom('work', 'Home'), { nil: undefined }),
      }),
      { maxLength: 3 },
    ),
    { nil: undefined },
  ),
  active: fc.boolean(),
});

describe('properties', () => {
  it('reads back any filter it supports, written in any case, spacing and parentheses', () => {
    const styles = fc.record({
      letterCase: fc.constantFrom(
        (text: string) => text,
        (text: string) => text.toUpperCase(),
        (text: string) => text.toLowerCase(),
        (text: string) => [...text].map((char, i) => (i % 2 ? char.toUpperCase() : char.toLowerCase())).join(''),
      ),
      space: fc.constantFrom(' ', '  ', '\t', ' \t '),
      urn: fc.boolean(),
    });
    fc.assert(
      fc.property(filters, styles, fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }), (filter, style, wrap) => {
        const text = written(filter, style, wrap);
        fc.pre(text.length <= scimFilterLimits.maxChars && !/\({11}/.test(text));
        let parsed: Filter;
        try {
          parsed = parseFilter(text);
        } catch (error) {
          // Parentheses written at every level may nest deeper than the limit.
          if (error instanceof Invalid && error.detail.startsWith('Parentheses nest')) return;
          throw error;
        }
        expect(parsed).toEqual(flattened(filter));
      }),
      { numRuns: 500 },
    );
  });

  it('finds through exact lookups exactly the Users the filter matches', () => {
    const lookupFilters = fc.array(
      fc.oneof(
        fc.constantFrom('ana@example.org', 'ANA@EXAMPLE.ORG', 'bo', 'x1').map(userName),
        fc.constantFrom('x1', 'X1', 'ana@example.org').map(externalId),
      ),
      { minLength: 1, maxLength: 4 },
    );
    fc.assert(
      fc.property(lookupFilters, fc.array(users, { maxLength: 6 }), (comparisons, population) => {
        const filter = comparisons.length === 1 ? (comparisons[0] as Filter) : or(...comparisons);
        const lookups = exactLookups(filter);
        expect(lookups).not.toBeNull();
        const found = population.filter((user) =>
          lookups!.some((lookup) =>
            lookup.attribute === 'userName' ? user.userName.toLowerCase() === lookup.key : user.externalId === lookup.key,
          ),
        );
        expect(found).toEqual(population.filter((user) => matches(filter, user)));
      }),
    );
  });

  it('answers any text with a filter or a 400 invalidFilter refusal, and matching it never throws', () => {
    const pieces = fc.constantFrom(
      'userName',
      'externalId',
      'emails',
      '.value',
      'type',
      'eq',
      'EQ',
      'co',
      'pr',
      'not',
      'and',
      'or',
      'AND',
      '(',
      ')',
      '[',
      ']',
      '"work"',
      '"a\\"b"',
      '"\\u00e9"',
      '"',
      '\\',
      'null',
      'true',
      '1e3',
      ' ',
      '\t',
      'urn:ietf:params:scim:schemas:core:2.0:User:',
      ':',
      '.',
    );
    const plain = { letterCase: (text: string) => text, space: ' ', urn: false };
    // A supported filter with one piece put in or one character taken out: near misses, and some still filters.
    const nearMisses = fc.tuple(filters, fc.nat(), pieces, fc.boolean()).map(([filter, at, piece, insert]) => {
      const text = written(filter, plain, [false]);
      const cut = at % (text.length + 1);
      return insert ? `${text.slice(0, cut)}${piece}${text.slice(cut)}` : `${text.slice(0, cut)}${text.slice(cut + 1)}`;
    });
    const texts = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 1200 }),
      fc.array(pieces, { maxLength: 60 }).map((parts) => parts.join('')),
      fc.array(pieces, { maxLength: 60 }).map((parts) => parts.join(' ')),
      nearMisses,
    );
    fc.assert(
      fc.property(texts, users, (text, user) => {
        let filter: Filter;
        try {
          filter = parseFilter(text);
        } catch (error) {
          expect(error).toBeInstanceOf(Invalid);
          expect(toHttpError(error).status).toBe(400);
          expect(error).toMatchObject({ facts: { scimType: 'invalidFilter' } });
          return;
        }
        expect(typeof matches(filter, user)).toBe('boolean');
        exactLookups(filter);
      }),
      { numRuns: 2000 },
    );
  });

  it('answers the hardest texts within the limit at once', () => {
    const hardest = [
      '('.repeat(scimFilterLimits.maxChars),
      `${'('.repeat(scimFilterLimits.maxDepth)}${'userName eq "a" or '.repeat(50)}userName eq "a"${')'.repeat(scimFilterLimits.maxDepth)}`,
      `userName eq "${'\\u00e9'.repeat(164)}"`,
      `userName eq "${'\\'.repeat(scimFilterLimits.maxChars - 13)}`,
      `"${'a'.repeat(scimFilterLimits.maxChars - 1)}`,
      'emails[type eq "work"].value eq "a" and '.repeat(24).slice(0, scimFilterLimits.maxChars),
      '('.repeat(10_000_000),
    ];
    for (const text of hardest) {
      const started = performance.now();
      try {
        parseFilter(text);
      } catch (error) {
        expect(error).toBeInstanceOf(Invalid);
      }
      expect(performance.now() - started).toBeLessThan(1000);
    }
  });
});
