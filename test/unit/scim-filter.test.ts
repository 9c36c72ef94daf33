import { describe, expect, it } from 'vitest';
import { exactLookups, matches, parseFilter, type Filter, type FilterValue } from '../../shared/domain/scim/filter.ts';
import { Invalid } from '../../shared/domain/refusals.ts';
import type { ScimUserAttributes } from '../../shared/domain/scim/model.ts';
import { decodeQueryValue } from '../../shared/domain/scim/query.ts';
import { toHttpError } from '../../shared/http/refusals.ts';
import { scimFilterLimits } from '../../shared/limits.ts';

const userName = (value: FilterValue): Filter => ({ op: 'eq', attribute: 'userName', value });
const externalId = (value: FilterValue): Filter => ({ op: 'eq', attribute: 'externalId', value });
const email = (value: FilterValue, emailType?: FilterValue): Filter =>
  emailType === undefined ? { op: 'eq', attribute: 'emails.value', value } : { op: 'eq', attribute: 'emails.value', emailType, value };
const and = (...filters: Filter[]): Filter => ({ op: 'and', filters });
const or = (...filters: Filter[]): Filter => ({ op: 'or', filters });

function refusal(raw: string): Invalid {
  try {
    parseFilter(raw);
  } catch (error) {
    if (error instanceof Invalid) return error;
    throw error;
  }
  throw new Error(`accepted ${raw}`);
}

describe('parseFilter reads the filters Okta and Entra send', () => {
  it.each([
    // Okta's SCIM 2.0 spec test and its provisioning: a lookup by userName before every create.
    ['userName eq "test.user@okta.local"', userName('test.user@okta.local')],
    // Okta's random user, expected to match nobody (200, totalResults 0).
    ['userName eq "9a2d6c1e4b7f4e3a8c5d0f1e2d3c4b5a@example.com"', userName('9a2d6c1e4b7f4e3a8c5d0f1e2d3c4b5a@example.com')],
    // Entra's matching attributes: userName, then externalId (the object id), then the work email.
    ['userName eq "Test_User_dfeef4c5-5681-4387-b016-bdf221e82081"', userName('Test_User_dfeef4c5-5681-4387-b016-bdf221e82081')],
    ['externalId eq "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef"', externalId('0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef')],
    ['emails[type eq "work"].value eq "Test_User_0a21f0f2@contoso.com"', email('Test_User_0a21f0f2@contoso.com', 'work')],
    ['emails[type eq "home"].value eq "ana@example.org"', email('ana@example.org', 'home')],
    ['emails.value eq "ana@example.org"', email('ana@example.org')],
  ])('%s', (raw, expected) => {
    expect(parseFilter(raw)).toEqual(expected);
  });

  it('reads a filter as the query brought it: Okta percent-encodes the spaces and quotes', () => {
    const raw = decodeQueryValue('filter=userName%20eq%20%22ana%2Btest%40okta.local%22&startIndex=1&count=100', 'filter', 'invalidFilter');
    expect(parseFilter(raw as string)).toEqual(userName('ana+test@okta.local'));
  });

  it.each([
    ['USERNAME EQ "x"', userName('x')],
    ['UserName Eq "x"', userName('x')],
    ['externalid eQ "x"', externalId('x')],
    ['Emails.Value EQ "x"', email('x')],
    ['EMAILS[TYPE EQ "work"].VALUE EQ "x"', email('x', 'work')],
    ['urn:ietf:params:scim:schemas:core:2.0:User:userName eq "x"', userName('x')],
    ['URN:IETF:PARAMS:SCIM:SCHEMAS:CORE:2.0:USER:USERNAME eq "x"', userName('x')],
    ['urn:ietf:params:scim:schemas:core:2.0:User:externalId eq "x"', externalId('x')],
    ['urn:ietf:params:scim:schemas:core:2.0:User:emails.value eq "x"', email('x')],
    ['urn:ietf:params:scim:schemas:core:2.0:User:emails[type eq "work"].value eq "x"', email('x', 'work')],
    ['userName eq "x" AND externalId eq "y" Or emails.value eq "z"', or(and(userName('x'), externalId('y')), email('z'))],
  ])('takes attribute names, operators and keywords in any case: %s', (raw, expected) => {
    expect(parseFilter(raw)).toEqual(expected);
  });

  it.each([
    ['userName eq "a" or externalId eq "b" and emails.value eq "c"', or(userName('a'), and(externalId('b'), email('c')))],
    ['userName eq "a" and externalId eq "b" or emails.value eq "c"', or(and(userName('a'), externalId('b')), email('c'))],
    ['(userName eq "a" or externalId eq "b") and emails.value eq "c"', and(or(userName('a'), externalId('b')), email('c'))],
    ['userName eq "a" and (externalId eq "b" or emails.value eq "c")', and(userName('a'), or(externalId('b'), email('c')))],
    ['userName eq "a" or (externalId eq "b" or emails.value eq "c")', or(userName('a'), externalId('b'), email('c'))],
    ['userName eq "a" and externalId eq "b" and emails.value eq "c"', and(userName('a'), externalId('b'), email('c'))],
    ['((userName eq "a"))', userName('a')],
    ['(userName eq "a")or(externalId eq "b")', or(userName('a'), externalId('b'))],
    ['  userName \t eq   "a"  ', userName('a')],
  ])('binds and tighter than or, and reads parentheses: %s', (raw, expected) => {
    expect(parseFilter(raw)).toEqual(expected);
  });

  it.each([
    ['userName eq "a\\"b"', 'a"b'],
    ['userName eq "a\\\\b"', 'a\\b'],
    ['userName eq "a\\/b"', 'a/b'],
    ['userName eq "\\u0041na@example.org"', 'Ana@example.org'],
    ['userName eq "j\\u00FCrgen"', 'jürgen'],
    ['userName eq "\\ud83d\\ude00"', '😀'],
    ['userName eq "bücher@例え.jp"', 'bücher@例え.jp'],
    ['userName eq "tab\\there"', 'tab\there'],
    ['userName eq ""', ''],
    ['userName eq "a or b and (c)"', 'a or b and (c)'],
  ])('reads strings as JSON does: %s', (raw, value) => {
    expect(parseFilter(raw)).toEqual(userName(value));
  });

  it.each([
    ['externalId eq null', null],
    ['externalId eq true', true],
    ['externalId eq false', false],
    ['externalId eq 42', 42],
    ['externalId eq -1.5e3', -1500],
  ])('reads JSON literals: %s', (raw, value) => {
    expect(parseFilter(raw)).toEqual(externalId(value));
  });

  it('takes a filter of the longest length and the deepest nesting', () => {
    const padded = `userName eq "${'a'.repeat(scimFilterLimits.maxChars - 'userName eq ""'.length)}"`;
    expect(padded).toHaveLength(scimFilterLimits.maxChars);
    expect(parseFilter(padded)).toEqual(userName('a'.repeat(scimFilterLimits.maxChars - 14)));
    const deepest = `${'('.repeat(scimFilterLimits.maxDepth)}userName eq "a"${')'.repeat(scimFilterLimits.maxDepth)}`;
    expect(parseFilter(deepest)).toEqual(userName('a'));
  });
});

describe('parseFilter refuses everything else with invalidFilter', () => {
  it.each([
    // Empty and malformed
    '',
    '   ',
    'userName',
    'userName eq',
    'userName eq "x',
    'userName eq "x" and',
    'userName eq "x" or',
    'and userName eq "x"',
    'or',
    'userName eq "x" userName eq "y"',
    'userName eq "x" xor externalId eq "y"',
    'userName eq "x")',
    '(userName eq "x"',
    '()',
    '(userName eq "x") (externalId eq "y")',
    'eq "x"',
    '"x" eq userName',
    'userName eq x',
    'userName eq userName',
    'userName eq (x)',
    'userName == "x"',
    'userName = "x"',
    'userName eq "x"; drop table',
    'userName eq "x" & externalId eq "y"',
    'userName eq "x" || externalId eq "y"',
    'userName eq {"a": 1}',
    'userName eq ["x"]',
    // Other operators
    'userName ne "x"',
    'userName co "x"',
    'userName sw "x"',
    'userName ew "x"',
    'userName pr',
    'userName gt "x"',
    'userName ge "x"',
    'userName lt "x"',
    'userName le "x"',
    'externalId NE "x"',
    'userName eq "x" or emails.value co "@example.com"',
    // not
    'not (userName eq "x")',
    'not(userName eq "x")',
    'NOT (userName eq "x")',
    'userName eq "x" and not (externalId eq "y")',
    // Other attributes and paths
    'name.givenName eq "x"',
    'name.familyName eq "x"',
    'displayName eq "x"',
    'active eq true',
    'id eq "x"',
    'title eq "x"',
    'meta.lastModified gt "2011-05-13T04:42:34Z"',
    'meta.resourceType eq "User"',
    'groups.value eq "x"',
    'emails eq "x"',
    'emails.type eq "work"',
    'emails.primary eq true',
    'emails.display eq "x"',
    'userName.value eq "x"',
    'phoneNumbers[type eq "work"].value eq "x"',
    'phoneNumbers.value eq "x"',
    'userName[type eq "work"].value eq "x"',
    'emails[value eq "x"]',
    'emails[type eq "work"]',
    'emails[type eq "work"] eq "x"',
    'emails[type eq "work" and value eq "x"]',
    'emails[type eq "work"].value',
    'emails[type eq "work"] .value eq "x"',
    'emails [type eq "work"].value eq "x"',
    'emails[type ne "work"].value eq "x"',
    'emails[type co "work"].value eq "x"',
    'emails[primary eq true].value eq "x"',
    'emails[type eq "work"].type eq "x"',
    'emails[type eq "work"].display eq "x"',
    'emails[[type eq "work"]].value eq "x"',
    'emails[(type eq "work")].value eq "x"',
    'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber eq "1"',
    'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:userName eq "x"',
    'urn:ietf:params:scim:schemas:core:2.0:Group:displayName eq "x"',
    'urn:ietf:params:scim:schemas:core:2.0:User:name.givenName eq "x"',
    'urn:ietf:params:scim:schemas:core:2.0:User: userName eq "x"',
    'urn:ietf:params:scim:schemas:core:2.0:UseruserName eq "x"',
    // Strings and literals JSON does not have
    "userName eq 'x'",
    'userName eq "a\\xb"',
    'userName eq "a\\u12"',
    'userName eq "a\\u12g4"',
    'userName eq "a\tb"',
    'userName eq "a\nb"',
    'userName eq "a\u0000b"',
    'userName eq "x"\n',
    'userName eq 01',
    'userName eq 1.',
    'userName eq +1',
    'userName eq .5',
    'userName eq NaN',
    'userName eq Infinity',
    'userName eq undefined',
    'userName eq nil',
    // Characters a filter never has
    'userName eq "x" <',
    'userName eq "x" #',
    'userName eq "x" ,',
    '{userName eq "x"}',
  ])('%j', (raw) => {
    const error = refusal(raw);
    expect(toHttpError(error).status).toBe(400);
    expect(error.facts.scimType).toBe('invalidFilter');
    expect(error.detail.length).toBeGreaterThan(10);
  });

  it('says which operator, attribute or construct is not supported', () => {
    expect(refusal('userName co "x"').detail).toBe('Only the eq operator is supported, not co.');
    expect(refusal('userName PR').detail).toBe('Only the eq operator is supported, not pr.');
    expect(refusal('not (userName eq "x")').detail).toBe('not(…) is not supported.');
    expect(refusal('name.givenName eq "x"').detail).toBe(
      'Filtering on "name.givenName" is not supported: userName, externalId, emails.value and emails[type eq "…"].value are.',
    );
    expect(refusal('userName eq "x" externalId eq "y"').detail).toBe('Expected and, or or the end of the filter at character 17.');
    expect(refusal('userName eq "x').detail).toBe(
      'The string at character 13 is not closed, or has a raw control character or an escape JSON does not have.',
    );
    expect(refusal('userName eq').detail).toBe(
      'Expected a value after eq at the end of the filter: a string in double quotes, a number, true, false or null.',
    );
  });

  it('never repeats a value it compared in its answer', () => {
    for (const raw of [
      'userName co "ana.secret@example.org"',
      'name.givenName eq "ana.secret@example.org"',
      'userName eq "ana.secret@example.org" garbage',
    ]) {
      expect(refusal(raw).detail).not.toContain('ana.secret');
    }
  });

  it('refuses a filter over the length limit and parentheses nested too deep', () => {
    const long = `userName eq "${'a'.repeat(scimFilterLimits.maxChars - 13)}"`;
    expect(refusal(long).detail).toBe(`Filters are limited to ${scimFilterLimits.maxChars} characters.`);
    const deep = `${'('.repeat(scimFilterLimits.maxDepth + 1)}userName eq "a"${')'.repeat(scimFilterLimits.maxDepth + 1)}`;
    expect(refusal(deep).detail).toBe(`Parentheses nest ${scimFilterLimits.maxDepth} deep at most.`);
  });

  it('holds the densest filter to 59 comparisons, within one BatchGetItem of lookups', () => {
    const densest = Array.from({ length: 59 }, () => 'userName eq ""').join('or ');
    expect(densest).toHaveLength(scimFilterLimits.maxChars);
    expect((parseFilter(densest) as { filters: Filter[] }).filters).toHaveLength(59);
    expect(refusal(`${densest}or userName eq ""`).detail).toBe(`Filters are limited to ${scimFilterLimits.maxChars} characters.`);
  });
});

describe('matches', () => {
  const ana: ScimUserAttributes = {
    userName: 'Ana.Lima@Example.org',
    externalId: 'Ext-00aa',
    emails: [
      { value: 'Ana.Lima@Example.org', type: 'Work', primary: true },
      { value: 'ana+home@example.net', type: 'home' },
      { value: 'ana.old@example.com' },
    ],
    active: true,
  };
  const bo: ScimUserAttributes = { userName: 'bo@example.org', active: false };
  const holds = (raw: string, user: ScimUserAttributes = ana) => matches(parseFilter(raw), user);

  it('compares userName whatever its case (caseExact false)', () => {
    expect(holds('userName eq "ana.lima@example.org"')).toBe(true);
    expect(holds('userName eq "ANA.LIMA@EXAMPLE.ORG"')).toBe(true);
    expect(holds('userName eq "ana.lima@example.org "')).toBe(false);
    expect(holds('userName eq "ana"')).toBe(false);
  });

  it('compares externalId exactly (caseExact true)', () => {
    expect(holds('externalId eq "Ext-00aa"')).toBe(true);
    expect(holds('externalId eq "ext-00aa"')).toBe(false);
    expect(holds('externalId eq "Ext-00aa"', bo)).toBe(false);
  });

  it('compares emails.value with any email, whatever its case', () => {
    expect(holds('emails.value eq "ana+home@example.net"')).toBe(true);
    expect(holds('emails.value eq "ANA.OLD@example.com"')).toBe(true);
    expect(holds('emails.value eq "nobody@example.org"')).toBe(false);
    expect(holds('emails.value eq "bo@example.org"', bo)).toBe(false);
  });

  it('compares emails[type eq …].value with the emails of that type only, the type whatever its case', () => {
    expect(holds('emails[type eq "work"].value eq "ana.lima@example.org"')).toBe(true);
    expect(holds('emails[type eq "WORK"].value eq "ana.lima@example.org"')).toBe(true);
    expect(holds('emails[type eq "work"].value eq "ana+home@example.net"')).toBe(false);
    expect(holds('emails[type eq "home"].value eq "ana+home@example.net"')).toBe(true);
    expect(holds('emails[type eq "other"].value eq "ana.old@example.com"')).toBe(false);
    expect(holds('emails[type eq null].value eq "ana.old@example.com"')).toBe(true);
  });

  it('reads null as no value (RFC 7643 §2.5)', () => {
    expect(holds('externalId eq null')).toBe(false);
    expect(holds('externalId eq null', bo)).toBe(true);
    expect(holds('emails.value eq null')).toBe(false);
    expect(holds('emails.value eq null', bo)).toBe(true);
    expect(holds('emails[type eq "other"].value eq null')).toBe(true);
    expect(holds('emails[type eq "work"].value eq null')).toBe(false);
    expect(holds('userName eq null')).toBe(false);
  });

  it('never matches a string attribute with a boolean or a number', () => {
    for (const raw of [
      'userName eq true',
      'userName eq false',
      'externalId eq 0',
      'emails.value eq true',
      'emails[type eq true].value eq "ana.old@example.com"',
    ]) {
      expect(holds(raw)).toBe(false);
    }
  });

  it('evaluates and, or and parentheses', () => {
    expect(holds('userName eq "nobody" or externalId eq "Ext-00aa" and emails.value eq "ana.old@example.com"')).toBe(true);
    expect(holds('(userName eq "nobody" or externalId eq "Ext-00aa") and emails.value eq "nobody"')).toBe(false);
    expect(holds('userName eq "nobody" and externalId eq "Ext-00aa" or emails.value eq "ana.old@example.com"')).toBe(true);
    expect(holds('userName eq "ana.lima@example.org" and (externalId eq "nope" or externalId eq "Ext-00aa")')).toBe(true);
    expect(holds('userName eq "ana.lima@example.org" and externalId eq "nope"')).toBe(false);
  });
});

describe('exactLookups', () => {
  const lookups = (raw: string) => exactLookups(parseFilter(raw));

  it('names the User a lone userName or externalId comparison reads, userName by its folded key', () => {
    expect(lookups('userName eq "Ana.Lima@Example.org"')).toEqual([{ attribute: 'userName', key: 'ana.lima@example.org' }]);
    expect(lookups('externalId eq "Ext-00aa"')).toEqual([{ attribute: 'externalId', key: 'Ext-00aa' }]);
  });

  it('names every User an or of them reads, each once', () => {
    expect(lookups('userName eq "a" or externalId eq "B" or (userName eq "A" or externalId eq "b")')).toEqual([
      { attribute: 'userName', key: 'a' },
      { attribute: 'externalId', key: 'B' },
      { attribute: 'externalId', key: 'b' },
    ]);
  });

  it.each([
    'emails.value eq "a"',
    'emails[type eq "work"].value eq "a"',
    'userName eq "a" and externalId eq "b"',
    'userName eq "a" or emails.value eq "b"',
    'userName eq "a" or (externalId eq "b" and userName eq "c")',
    'externalId eq null',
    'userName eq true',
    'userName eq "a" or externalId eq 1',
  ])('leaves any other filter to a scan: %s', (raw) => {
    expect(lookups(raw)).toBeNull();
  });
});
