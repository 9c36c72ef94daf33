import fc from 'fast-check';

/**
 * Named arbitraries of the property suites (test/property/*). The ones marked "found" made the
 * service answer 5xx before issue 11; they stay here, and in every suite's generators, so what
 * they found stays covered.
 */

/** A JSON text fragment, written as sent (so `__proto__` stays a key, 2^53 + 1 keeps its digits). */
export type JsonText = string;

/**
 * Found: numbers DynamoDB cannot hold as sent. The document client refuses integers beyond
 * ±(2^53 − 1), DynamoDB refuses magnitudes below 1e-130 (and above 9.99e125), and keeps 38
 * significant digits; JSON.parse turns 1e309 into Infinity and 1e-400 into 0.
 */
export const dynamoNumberEdges: fc.Arbitrary<JsonText> = fc.constantFrom(
  '1e308',
  '-1e308',
  '1.7976931348623157e308',
  '9007199254740993',
  '-9007199254740993',
  '9007199254740992',
  '9007199254740991',
  '-9007199254740991',
  '1e-320',
  '-1e-320',
  '5e-324',
  '1e-130',
  '9.99e-131',
  '1e-131',
  '1e125',
  '9.99e125',
  '1e126',
  '123456789012345678901234567890123456789012',
  '0.1234567890123456789012345678901234567890123',
  '1e309',
  '-1e309',
  '1e-400',
  '-0',
  '0',
  '0.0',
  '1E2',
  '1e0',
  '2.5',
  '-1',
);

/** Found (`constructor`): keys a plain object already has, or that replace its prototype. */
export const prototypeKeys = fc.constantFrom(
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  '__defineGetter__',
  '__lookupSetter__',
  'toJSON',
  'then',
);

/** Strings every field should survive: empty, huge, control and odd unicode, prototype names. */
export const hostileStrings: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\n',
    '\t\r',
    '\ud800',
    '\udfff',
    '\ufeff',
    '\u202e',
    '\u200b',
    'e\u0301',
    '😀',
    'ﷺ',
    '\uffff',
    'constructor',
    '__proto__',
    'toString',
    'null',
    'undefined',
    'NaN',
    'Infinity',
    'true',
    '[]',
    '{}',
    '../../etc/passwd',
    '%00',
    '%2e%2e%2f',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a Log4Shell-style lookup string, sent as text on purpose
    '${jndi:ldap://x}',
    '<script>',
    "' OR 1=1 --",
    '\\',
    '"',
    'a\u0000b',
  ),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  // Long enough to pass a key's size in DynamoDB; short enough for a URL (16 KiB of headers).
  fc
    .constantFrom<[string, number]>(['x', 1025], ['x', 2049], ['x', 4097], ['é', 1025], ['😀', 300], ['😀', 600])
    .map(([unit, length]) => unit.repeat(length)),
);

/** Deeply nested JSON (arrays and objects), far deeper than any schema. */
export const deepNesting: fc.Arbitrary<JsonText> = fc
  .tuple(fc.constantFrom(64, 1000, 5000), fc.boolean())
  .map(([depth, arrays]) => (arrays ? `${'['.repeat(depth)}1${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`));

/** A JSON value of any type that no schema field wants as it is. */
export const hostileJson: fc.Arbitrary<JsonText> = fc.oneof(
  { weight: 4, arbitrary: dynamoNumberEdges },
  { weight: 3, arbitrary: hostileStrings.map((text) => JSON.stringify(text)) },
  { weight: 1, arbitrary: fc.constantFrom('x', '😀').map((unit) => JSON.stringify(unit.repeat(70_000))) },
  { weight: 2, arbitrary: prototypeKeys.map((key) => `{${JSON.stringify(key)}:{"polluted":true}}`) },
  { weight: 1, arbitrary: deepNesting },
  { weight: 2, arbitrary: fc.constantFrom('null', 'true', 'false', '[]', '{}', '""', '[null]', '[[]]', '{"":""}') },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)) },
  { weight: 1, arbitrary: fc.constantFrom(100, 1000).map((count) => `[${Array(count).fill('1').join(',')}]`) },
);

/** Hostile values small enough to fit in a cursor (2048 characters). */
const smallHostileJson: fc.Arbitrary<JsonText> = fc.oneof(
  dynamoNumberEdges,
  fc.constantFrom('""', 'null', 'true', '[]', '{}', '{"S":"x"}', '["x"]', '{"__proto__":{}}', '"\\u0000"', '"😀"'),
  fc.string({ maxLength: 20 }).map((text) => JSON.stringify(text)),
);

/** Found: an id beyond DynamoDB's key sizes (2048 bytes for a partition key, 1024 for a sort key). */
export const oversizedIds = fc.constantFrom(1024, 1025, 2048, 2049, 4096, 8000).map((length) => 'a'.repeat(length));

/** Path segments that are no id: odd, huge, encoded, unicode. Sent through encodeURIComponent. */
export const hostileIds: fc.Arbitrary<string> = fc.oneof(
  { weight: 2, arbitrary: oversizedIds },
  { weight: 2, arbitrary: prototypeKeys },
  { weight: 3, arbitrary: hostileStrings.filter((text) => text !== '' && text.length < 9000) },
  { weight: 1, arbitrary: fc.constantFrom('.', '..', '/', 'a/b', '%', '%zz', '?', '#', ';', 'sec_', 'key_', 'whk_', 'usr_x') },
);

/** Percent-encodings that decode to no UTF-8 text (overlong, surrogates, cut short), sent as they are. */
export const invalidPercentEncodings = fc.constantFrom('%ED%A0%80', '%C0%AF', '%FF', '%E2%82', '%', '%zz', 'a%00b', '%EF%BF%BE');

/** Ids of the service's shapes (`<prefix>_` + base64url), belonging to nobody. */
export const wellFormedIds: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom('sec', 'key', 'whk', 'usr', 'ses', 'dlv', 'evt'),
    fc.constantFrom(12, 16),
    fc.uint8Array({ minLength: 16, maxLength: 16 }),
  )
  .map(([prefix, bytes, random]) => `${prefix}_${Buffer.from(random.subarray(0, bytes)).toString('base64url')}`);

/** How an id, token or cursor the service gave out is changed before it is sent back. */
export type Mutation = 'char' | 'case' | 'truncate' | 'append' | 'double' | 'prefix' | 'space';
export const mutations = fc.constantFrom<Mutation>('char', 'case', 'truncate', 'append', 'double', 'prefix', 'space');

export function mutate(value: string, how: Mutation, at: number): string {
  const i = value.length === 0 ? 0 : at % value.length;
  switch (how) {
    case 'char':
      return `${value.slice(0, i)}${value[i] === 'A' ? 'B' : 'A'}${value.slice(i + 1)}`;
    case 'case':
      return value.toUpperCase() === value ? value.toLowerCase() : value.toUpperCase();
    case 'truncate':
      return value.slice(0, i);
    case 'append':
      return `${value}A`;
    case 'double':
      return `${value}${value}`;
    case 'prefix':
      return value.slice(value.indexOf('_') + 1);
    case 'space':
      return ` ${value} `;
  }
}

/**
 * Found: a cursor that is well-formed (base64url JSON of an object) but not the one given out.
 * Changes apply to the decoded key of a live cursor of the same listing, so the result keeps
 * the caller's own partition and reaches DynamoDB unless the decoding refuses it.
 */
export type CursorEdit =
  | { kind: 'drop'; attribute: number }
  | { kind: 'add'; name: string; value: JsonText }
  | { kind: 'set'; attribute: number; value: JsonText }
  | { kind: 'resort'; attribute: number; to: string }
  | { kind: 'text'; how: 'padded' | 'standard' | 'truncated' | 'spaced' | 'reordered' };

const keyNames = ['pk', 'sk', 'gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk', 'ttl', 'id', '__proto__', 'constructor'];
export const cursorEdits: fc.Arbitrary<CursorEdit[]> = fc.array(
  fc.oneof(
    fc.record({ kind: fc.constant('drop' as const), attribute: fc.nat(7) }),
    fc.record({
      kind: fc.constant('add' as const),
      name: fc.constantFrom(...keyNames),
      value: fc.oneof(fc.constant('"x"'), smallHostileJson),
    }),
    fc.record({
      kind: fc.constant('set' as const),
      attribute: fc.nat(7),
      value: fc.oneof(
        fc.constantFrom('""', '0', '1', 'null', 'true', '[]', '{}', '{"S":"x"}', '["x"]'),
        // Past a sort key's 1024 bytes, within the 2048 characters a cursor may have.
        fc.constantFrom(1023, 1025, 1100).map((length) => JSON.stringify('x'.repeat(length))),
        smallHostileJson,
      ),
    }),
    // Another value of the same attribute: outside the listing's prefix, before or after it.
    fc.record({
      kind: fc.constant('resort' as const),
      attribute: fc.nat(7),
      to: fc.constantFrom('', '0', '~', 'A', 'DELIVERY', 'SECRET#', 'OWNER#', 'x#y', '\uffff'),
    }),
    fc.record({
      kind: fc.constant('text' as const),
      how: fc.constantFrom('padded' as const, 'standard' as const, 'truncated' as const, 'spaced' as const, 'reordered' as const),
    }),
  ),
  { minLength: 1, maxLength: 3 },
);

/** Applies edits to a cursor given out by the service (base64url JSON of an object). */
export function editCursor(cursor: string, edits: readonly CursorEdit[]): string {
  const entries: Array<[string, JsonText]> = Object.entries(
    JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown>,
  ).map(([name, value]) => [name, JSON.stringify(value)]);
  let text: string | null = null;
  for (const edit of edits) {
    const at = entries.length === 0 ? -1 : ('attribute' in edit ? edit.attribute : 0) % entries.length;
    if (edit.kind === 'drop' && at >= 0) entries.splice(at, 1);
    else if (edit.kind === 'add') entries.push([edit.name, edit.value]);
    else if (edit.kind === 'set' && at >= 0) entries[at]![1] = edit.value;
    else if (edit.kind === 'resort' && at >= 0) {
      const value: unknown = JSON.parse(entries[at]![1]);
      const rest = typeof value === 'string' && value.includes('#') ? value.slice(value.indexOf('#')) : '';
      entries[at]![1] = JSON.stringify(`${edit.to}${rest}`);
    } else if (edit.kind === 'text') {
      const json = `{${entries.map(([name, value]) => `${JSON.stringify(name)}:${value}`).join(',')}}`;
      const encoded = Buffer.from(json).toString('base64url');
      text =
        edit.how === 'padded'
          ? `${encoded}==`
          : edit.how === 'standard'
            ? Buffer.from(json).toString('base64')
            : edit.how === 'truncated'
              ? encoded.slice(0, -2)
              : edit.how === 'spaced'
                ? Buffer.from(json.replaceAll(':', ' : ')).toString('base64url')
                : Buffer.from(
                    `{${[...entries]
                      .reverse()
                      .map(([name, value]) => `${JSON.stringify(name)}:${value}`)
                      .join(',')}}`,
                  ).toString('base64url');
    }
  }
  return text ?? Buffer.from(`{${entries.map(([name, value]) => `${JSON.stringify(name)}:${value}`).join(',')}}`).toString('base64url');
}

/** Cursors made from nothing the service gave out. */
export const syntheticCursors: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('', 'e30', 'bnVsbA', 'W10', 'not a cursor', '!!!!', 'eyJ', '%', 'x'.repeat(2048), 'x'.repeat(2049)),
  fc
    .dictionary(
      fc.constantFrom(...keyNames),
      fc.oneof(
        fc.string({ maxLength: 20 }).map((text) => JSON.stringify(text)),
        hostileJson,
      ),
      { maxKeys: 5 },
    )
    .map((entries) =>
      Buffer.from(
        `{${Object.entries(entries)
          .map(([name, value]) => `${JSON.stringify(name)}:${value}`)
          .join(',')}}`,
      ).toString('base64url'),
    ),
  hostileStrings,
);

/** Percent-encodes as a client would; a lone surrogate (which no UTF-8 client can send) as U+FFFD. */
export const encode = (text: string) =>
  encodeURIComponent(text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'));

/** Header values Node will send: visible latin-1, with blanks inside. */
export const headerValue = (maxLength = 80) =>
  fc.string({
    unit: fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff })).map((c) => String.fromCharCode(c)),
    maxLength,
  });

export const contentTypes = fc.oneof(
  { weight: 2, arbitrary: fc.constant(undefined) },
  {
    weight: 5,
    arbitrary: fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'application/problem+json',
      'application/vnd.api+json',
      'application/jsonx',
      'application/json;',
      'text/plain',
      'text/json',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=xyz',
      'application/octet-stream',
      '',
      ';',
      '*/*',
    ),
  },
  { weight: 1, arbitrary: headerValue(60) },
);

/** Bodies that are not a JSON document at all, or barely. */
export const rawBodies: fc.Arbitrary<string | Uint8Array> = fc.oneof(
  fc.uint8Array({ maxLength: 1024 }),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.constantFrom('', ' ', '\ufeff{}', '{', '}', '{"a":1,}', "{'a':1}", '{"a":1}{"b":2}', 'null', '[]', '"text"', '1e309', 'NaN', '\u0000'),
  deepNesting,
);
