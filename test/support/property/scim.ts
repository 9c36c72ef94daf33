import fc from 'fast-check';
import { encode, hostileStrings, invalidPercentEncodings } from './arbitraries.ts';

/**
 * What the scim group's runs send beyond what its schemas say (ScimUserRequest and
 * ScimPatchRequest are open objects the domain reads): User and PatchOp bodies as Okta and
 * Microsoft Entra send them, near misses, and hostile ones; filters, startIndex and count as a
 * raw query string carries them (`+` a space, `%2B` a plus). Registered in fixtures.ts.
 */

const coreUser = 'urn:ietf:params:scim:schemas:core:2.0:User';
const enterpriseUser = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const patchOp = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/** The text with each letter upper- or lower-cased by the bits of `bits` (`Replace`, `REPLACE`, `eQ`). */
export function mixCase(text: string, bits: number): string {
  return [...text].map((char, i) => ((bits >>> (i % 31)) & 1 ? char.toUpperCase() : char.toLowerCase())).join('');
}
const anyCase = (...words: string[]) =>
  fc
    .tuple(fc.constantFrom(...words), fc.oneof(fc.constant(0), fc.constant(0x7fffffff), fc.nat()))
    .map(([word, bits]) => mixCase(word, bits));

// Few enough names that runs meet the same userName again (409 uniqueness), and new ones.
const repeatedName = fc.nat(5).map((n) => `dup-${n}@property.example`);
const newName = fc.nat().map((n) => `scim-${n}-${Date.now().toString(36)}@property.example`);
const address = fc.oneof({ weight: 3, arbitrary: newName }, { weight: 1, arbitrary: repeatedName });
/** A boolean as Okta sends it, or as Entra without its aadOptscim062020 flag does. */
const scimBoolean = fc.oneof(fc.boolean(), fc.constantFrom('True', 'False', 'true', 'FALSE'));
const shortText = fc.oneof({ weight: 4, arbitrary: fc.string({ minLength: 1, maxLength: 20 }) }, { weight: 1, arbitrary: hostileStrings });

// One primary at most, as directories send them (two is a 400 of its own).
const emails = fc
  .tuple(
    fc.record(
      { value: address, type: anyCase('work', 'home', 'other'), primary: scimBoolean, display: fc.string({ maxLength: 10 }) },
      { requiredKeys: ['value'] },
    ),
    fc.array(fc.record({ value: address, type: anyCase('work', 'home', 'other') }, { requiredKeys: ['value'] }), { maxLength: 2 }),
  )
  .map(([first, others]) => [first, ...others]);
/** `schemas` as clients send it, or naming another resource (400 invalidSyntax). */
const schemasOf = (...usual: string[][]) =>
  fc.oneof(
    { weight: 15, arbitrary: fc.constantFrom(...usual) },
    { weight: 1, arbitrary: fc.constantFrom(['urn:ietf:params:scim:schemas:core:2.0:Group'], [], ['x']) },
  );

/**
 * Names of Object.prototype's members, as members of what is kept as sent (the enterprise
 * extension, a role): `{"constructor": 1}` there was a 500 (issue 26), the table's marshaller
 * reading it as the value's class. Written into JSON text as sent (`__proto__` an own member, as
 * JSON.parse makes it), at any depth.
 */
export const prototypeNames = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf'] as const;
const prototypeMembers: fc.Arbitrary<Record<string, unknown>> = fc
  .tuple(
    // The two the table cannot keep, more often.
    fc.oneof(
      { weight: 2, arbitrary: fc.constantFrom('constructor', '__proto__') },
      { weight: 1, arbitrary: fc.constantFrom(...prototypeNames) },
    ),
    fc.oneof(
      fc.constantFrom<unknown>(1, 'x', true, null, {}, [], { name: 'Set' }, { name: 'String' }, { name: 'Object' }),
      fc.jsonValue({ maxDepth: 1 }),
    ),
    fc.boolean(),
  )
  .map(([name, value, nested]) => {
    const member = own({}, name, value);
    return nested ? { value: 'v', display: member } : member;
  });
/** Defined, not assigned: `__proto__` stays a member, as JSON.parse makes it. */
function own(object: Record<string, unknown>, name: string, value: unknown): Record<string, unknown> {
  return Object.defineProperty(object, name, { value, enumerable: true, writable: true, configurable: true });
}
/** An object of `members` with one or two of Object.prototype's names among them. */
const withPrototypeNames = (members: fc.Arbitrary<Record<string, unknown>>) =>
  fc
    .tuple(members, fc.array(prototypeMembers, { minLength: 1, maxLength: 2 }))
    .map(([object, added]) =>
      [object, ...added].reduce<Record<string, unknown>>(
        (whole, part) => Object.entries(part).reduce((into, [name, value]) => own(into, name, value), whole),
        {},
      ),
    );

const enterprise = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record(
      {
        employeeNumber: fc.oneof(fc.nat().map(String), shortText),
        department: shortText,
        costCenter: shortText,
        manager: fc.oneof(fc.record({ value: fc.string({ maxLength: 12 }) }), fc.string({ maxLength: 12 }), fc.constant({ value: '' })),
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: withPrototypeNames(fc.record({ department: shortText }, { requiredKeys: [] })) },
);
/** Roles as Entra sends them, or with Object.prototype's names among a role's members. */
const roles = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom([], [{ primary: 'True', type: 'WindowsAzureActiveDirectoryRole', value: 'User' }]) },
  { weight: 1, arbitrary: withPrototypeNames(fc.constant({ value: 'User' })).map((role) => [role]) },
);

/** A User as POST and PUT send one: Okta's (password, groups, locale) or Entra's (meta, roles, the extension named). */
export const scimUserBodies: fc.Arbitrary<Record<string, unknown>> = fc
  .record(
    {
      schemas: schemasOf([coreUser], [coreUser, enterpriseUser]),
      userName: fc.oneof({ weight: 4, arbitrary: address }, { weight: 1, arbitrary: shortText }),
      name: fc.record({ givenName: shortText, familyName: shortText, formatted: shortText }, { requiredKeys: [] }),
      displayName: shortText,
      emails,
      active: scimBoolean,
      externalId: fc.oneof(
        { weight: 4, arbitrary: fc.uint8Array({ minLength: 8, maxLength: 8 }).map((bytes) => `00u${Buffer.from(bytes).toString('hex')}`) },
        { weight: 1, arbitrary: shortText },
      ),
      password: fc.string({ maxLength: 20 }),
      groups: fc.constantFrom([], [{ value: 'g1', display: 'Group' }]),
      meta: fc.constant({ resourceType: 'User' }),
      id: fc.string({ maxLength: 12 }),
      locale: fc.constantFrom('en-US', 'fr-FR'),
      roles,
      enterprise,
    },
    { requiredKeys: ['userName'] },
  )
  .map(({ enterprise: extension, ...user }) => (extension === undefined ? user : { ...user, [enterpriseUser]: extension }));

/** PATCH paths: those Okta and Entra send, others of the two schemas, read-only ones, and garbage. */
const knownPaths = [
  'active',
  'displayName',
  'userName',
  'externalId',
  'nickName',
  'title',
  'name',
  'name.givenName',
  'name.familyName',
  'emails',
  'emails[type eq "work"].value',
  'emails[type eq "work" and primary eq true].value',
  'emails[type eq "home"].primary',
  'phoneNumbers[type eq "work"].value',
  'addresses[type eq "work"].streetAddress',
  'addresses[type eq "work"].locality',
  'roles',
  `${coreUser}:displayName`,
  `${coreUser}:name.givenName`,
  `${enterpriseUser}:employeeNumber`,
  `${enterpriseUser}:manager`,
  `${enterpriseUser}:department`,
  'urn:ietf:params:scim:schemas:extension:Microsoft:Entra:2.0:User:x',
  'manager',
];
const refusedPaths = [
  'id',
  'meta',
  'groups',
  'password',
  'meta.created',
  'emails[type eq "work"',
  'emails[type co "w"].value',
  'emails[type eq "work" or type eq "home"].value',
  'name..givenName',
  'name.givenName.x',
  'emails[].value',
  'emails[value eq "x"]',
  '[',
  ']',
  '.',
  'urn:',
  `${enterpriseUser}:`,
  'a.b.c',
  'unknownAttribute',
  '__proto__',
  'constructor.prototype',
  'name.__proto__',
  'x'.repeat(2000),
  `emails[type eq "${'w'.repeat(500)}"].value`,
];
const paths = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .tuple(fc.constantFrom(...knownPaths), fc.oneof(fc.constant(0), fc.nat()))
      .map(([path, bits]) => (bits === 0 ? path : mixCase(path, bits))),
  },
  { weight: 2, arbitrary: fc.constantFrom(...refusedPaths) },
  { weight: 1, arbitrary: hostileStrings },
);
/** A value of every JSON type, and those the paths expect. */
const values: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.oneof(scimBoolean, address, shortText) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(null, [], {}, '', 0, -1, 1e308, [{ value: 'a@b.example', type: 'work' }], { value: '' }, { givenName: 'G' }),
  },
);
/** A path-less operation's value: attributes, or (Entra) paths, as its keys. */
const pathlessValues = fc.dictionary(
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...knownPaths, 'id', 'schemas', 'password') },
    { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'toString', 'Active', 'ACTIVE') },
  ),
  values,
  { minKeys: 1, maxKeys: 4 },
);
const ops = fc.oneof(
  { weight: 8, arbitrary: anyCase('add', 'replace', 'remove') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'Update',
      'delete',
      'copy',
      'move',
      'test',
      '',
      ' replace',
      'replace ',
      'replace\u0000',
      '__proto__',
      'REPLACE!',
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, 1, true, ['replace'], { op: 'replace' }) },
);
const text = fc.string({ minLength: 1, maxLength: 20 });
/** Operations as Okta and Entra send them, each path with a value it takes. */
const clientOperations = fc.oneof(
  fc.record({ op: anyCase('replace'), path: fc.constant('active'), value: scimBoolean }),
  fc.record({ op: anyCase('replace'), value: fc.record({ active: scimBoolean }) }),
  fc.record({
    op: anyCase('add', 'replace'),
    path: anyCase(
      'displayName',
      'name.givenName',
      'name.familyName',
      'title',
      'nickName',
      `${enterpriseUser}:employeeNumber`,
      `${enterpriseUser}:department`,
    ),
    value: text,
  }),
  fc.record({ op: anyCase('add', 'replace'), path: fc.constantFrom('emails[type eq "work"].value', 'userName'), value: address }),
  fc.record({
    op: anyCase('remove'),
    path: fc.constantFrom(
      'displayName',
      'title',
      'name.givenName',
      `${enterpriseUser}:manager`,
      'emails[type eq "work"].value',
      'externalId',
    ),
  }),
  fc.record({
    op: fc.constant('replace'),
    value: fc.record(
      { 'name.givenName': text, displayName: text, [`${enterpriseUser}:employeeNumber`]: fc.nat().map(String), active: scimBoolean },
      { requiredKeys: [] },
    ),
  }),
  fc.record({ Op: anyCase('replace'), Path: fc.constant('active'), Value: scimBoolean }),
  // What is kept as sent, with Object.prototype's names among its members.
  fc.record({ op: anyCase('add', 'replace'), path: fc.constant(enterpriseUser), value: enterprise }),
  fc.record({ op: anyCase('add', 'replace'), path: fc.constant('roles'), value: roles }),
  fc.record({
    op: anyCase('add', 'replace'),
    value: fc.tuple(enterprise, roles).map(([extension, values]) => ({ [enterpriseUser]: extension, roles: values })),
  }),
);
const operation = fc.oneof(
  { weight: 12, arbitrary: clientOperations },
  { weight: 3, arbitrary: fc.record({ op: ops, path: paths, value: values }, { requiredKeys: ['op'] }) },
  { weight: 1, arbitrary: fc.record({ op: ops, value: pathlessValues }) },
);

/** A PatchOp as Okta (path-less `active`) and Entra (one op per attribute, or one path-less replace keyed by paths) send it. */
export const scimPatchBodies: fc.Arbitrary<Record<string, unknown>> = fc
  .record(
    {
      schemas: schemasOf([patchOp]),
      Operations: fc.oneof(
        { weight: 15, arbitrary: fc.array(operation, { minLength: 1, maxLength: 3 }) },
        { weight: 1, arbitrary: fc.constantFrom([], Array(101).fill({ op: 'replace', value: { active: true } })) },
      ),
    },
    { requiredKeys: ['Operations'] },
  )
  .chain((body) =>
    fc.boolean().map((lower) => (lower ? { ...(body.schemas ? { schemas: body.schemas } : {}), operations: body.Operations } : body)),
  );

// --- The list's query -------------------------------------------------------------------------

/** A query value as sent: already percent-encoded (`raw`), as a client writes it. */
export interface RawQueryValue {
  value: string;
  raw: true;
}

/** A filter's text written into a query the ways clients do: spaces as `+` (Entra's validator) or `%20` (Okta), `"` encoded or not. */
const written = (filter: string, plus: boolean, quotes: boolean): string => {
  let text = encode(filter);
  if (plus) text = text.replaceAll('%20', '+');
  if (quotes) text = text.replaceAll('%22', '"');
  return text;
};

const filterAttributes = fc.oneof(
  anyCase('userName', 'externalId', 'emails.value', 'emails[type eq "work"].value', `${coreUser}:userName`),
  fc.constantFrom('emails[type eq "home"].value', 'Emails[Type EQ "WORK"].Value'),
);
const filterValues = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .oneof(
        repeatedName,
        address,
        fc.string({ maxLength: 20 }),
        fc.constantFrom('non-existent user', 'a+b@property.example', 'x y', 'ünïcødé', '😀'),
      )
      .map((text) => JSON.stringify(text)),
  },
  { weight: 1, arbitrary: fc.constantFrom('true', 'false', 'null', '5', '-0', '1e3') },
);
const comparison = fc.tuple(filterAttributes, anyCase('eq'), filterValues).map(([attribute, eq, value]) => `${attribute} ${eq} ${value}`);
/** Supported filters: `eq` comparisons joined by `and`/`or` in any case, parenthesized or not. */
const supportedFilters: fc.Arbitrary<string> = fc.letrec<{ filter: string }>((tie) => ({
  filter: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    comparison,
    fc.tuple(tie('filter'), anyCase('and', 'or'), tie('filter')).map(([left, join, right]) => `${left} ${join} ${right}`),
    tie('filter').map((inner) => `(${inner})`),
  ),
})).filter;

/** Filters the service must refuse with 400 invalidFilter (or read as a filter), never list everyone for. */
const refusedFilters: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    'userName',
    'userName eq',
    'userName eq "x',
    'userName eq x',
    '(userName eq "x"',
    'userName eq "x")',
    'userName eq "x" and',
    'and',
    '()',
    'userName co "x"',
    'userName sw "a"',
    'userName pr',
    'userName ne "x"',
    'userName gt 5',
    'not (userName eq "x")',
    'name.givenName eq "x"',
    'meta.created gt "2020"',
    'emails[type eq "work" and value eq "x"]',
    'emails[type eq "work"].value eq',
    'emails[type eq "work"',
    'userName eq "\\x"',
    'userName eq "\u0001"',
    'userName eq "a" or',
    'userName eq "a" userName eq "b"',
    'userName eq "a" xor userName eq "b"',
    "userName eq 'x'",
    'userName  eq  "x"\t',
  ),
  // Past the limits: long, deep, and long in bytes (a key DynamoDB refuses past 1024 bytes).
  fc.constantFrom(1001, 2000).map((length) => `userName eq "${'x'.repeat(length - 14)}"`),
  fc.constantFrom('x', 'é', '中', '😀').map((unit) => `userName eq "${unit.repeat(Math.floor(980 / unit.length))}"`),
  fc.constantFrom('x', '中').map((unit) => `externalId eq "${unit.repeat(980)}"`),
  fc.constantFrom(10, 11, 1000).map((depth) => `${'('.repeat(depth)}userName eq "x"${')'.repeat(depth)}`),
  fc.constantFrom(30, 59, 60).map((count) => Array.from({ length: count }, (_, i) => `userName eq "${i}"`).join(' or ')),
  fc.string({ maxLength: 60 }),
  hostileStrings,
);

export const scimFilters = {
  good: fc
    .tuple(supportedFilters, fc.boolean(), fc.boolean())
    .map(([filter, plus, quotes]): RawQueryValue => ({ value: written(filter, plus, quotes), raw: true })),
  bad: fc.oneof(
    {
      weight: 5,
      arbitrary: fc
        .tuple(refusedFilters, fc.boolean())
        .map(([filter, plus]): RawQueryValue => ({ value: written(filter, plus, false), raw: true })),
    },
    // A `+` meant as a plus (it is a space), a lone `%`, encodings of no UTF-8 text.
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          'userName+eq+"a+b@x.example"',
          'userName%20eq%20%22a%2Bb%40x.example%22',
          'userName%20eq%20"x"',
          'userName%20eq%20"%"',
        )
        .map((value): RawQueryValue => ({ value, raw: true })),
    },
    {
      weight: 1,
      arbitrary: invalidPercentEncodings.map((encoding): RawQueryValue => ({ value: `userName%20eq%20%22${encoding}%22`, raw: true })),
    },
  ),
};

/** startIndex and count: integers the RFC reads (below 1 a start is 1, below 0 a count is 0), and what no integer is. */
export const scimIndexes = {
  good: fc
    .oneof(fc.integer({ min: 1, max: 300 }), fc.constantFrom(0, 100, 200, 201))
    .map((n): RawQueryValue => ({ value: String(n), raw: true })),
  bad: fc
    .oneof(
      fc.integer({ min: -1000, max: -1 }).map(String),
      fc.constantFrom(
        '999999999999999',
        '9999999999999999',
        '99999999999999999999',
        '9007199254740993',
        '1e3',
        '1.5',
        '',
        '+1',
        '-0',
        '0x10',
        'abc',
        'NaN',
        '%201',
        '1%00',
        '%D9%A1',
      ),
      hostileStrings.map(encode),
    )
    .map((value): RawQueryValue => ({ value, raw: true })),
};
