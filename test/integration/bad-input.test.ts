/**
 * Bad-input suite: property-based fuzzing of the secrets routes over HTTP (fast-check).
 *
 * Every response, whatever was sent, must be < 500; every 4xx with a body is RFC 9457
 * problem+json whose `status` is the HTTP status, with a string `code` and `detail`; no
 * response carries a stack trace. Creation is checked against an independent model of
 * DESIGN.md §3, and a secret created before the fuzzing must come out of it untouched.
 *
 * Requests go through `node:http` rather than fetch, so paths reach the gateway as sent
 * (fetch would normalise `..`, encode unicode and refuse some header values).
 */
import { Agent, request as httpRequest, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { secretEventsOf } from '../support/events.ts';
import type { AppLogger } from '../../shared/logger.ts';
import { claimPair, startTestRuntime, textSecretBody } from '../support/runtime.ts';

/** Sized so the whole file stays well under a minute on two cores. */
const runs = {
  jsonValues: 300,
  createModel: 500,
  rawBodies: 400,
  errorsArray: 200,
  ids: 250,
  deleteTokens: 250,
  methods: 500,
  targets: 200,
} as const;

const loggedErrors: string[] = [];
const captureLogger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: (message: string, fields?: { message?: string }) => {
    loggedErrors.push(`${message}: ${fields?.message ?? ''}`);
  },
} as unknown as AppLogger;

let runtime: Runtime;
const agent = new Agent({ keepAlive: true, maxSockets: 8 });

/** The secret that must survive the fuzzing untouched. */
const guard = { id: '', deleteToken: '', envelope: '', maxViews: 3 };

beforeAll(async () => {
  runtime = await startTestRuntime({ logger: captureLogger });
  const body = textSecretBody({ max_views: guard.maxViews, expires_in: 3600 }, 200);
  const created = await send('POST', '/v1/secrets', { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(created.status).toBe(201);
  const json = JSON.parse(created.text) as { id: string; delete_token: string };
  Object.assign(guard, { id: json.id, deleteToken: json.delete_token, envelope: body.envelope });
});
afterAll(async () => {
  agent.destroy();
  await runtime?.stop();
});

// ---------------------------------------------------------------------------------------------
// HTTP and the invariants every response must meet

interface RawReply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

function send(method: string, path: string, init: { headers?: OutgoingHttpHeaders; body?: string | Uint8Array } = {}): Promise<RawReply> {
  const headers: OutgoingHttpHeaders = { ...init.headers };
  // Node frames a GET/DELETE/OPTIONS body only when told its length; unframed bytes would be
  // read by the server as the next request on the kept-alive connection.
  if (init.body !== undefined) headers['content-length'] = Buffer.byteLength(init.body);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port: runtime.port, method, path, headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(init.body);
  });
}

interface Problem {
  type: unknown;
  title: unknown;
  status: unknown;
  code: unknown;
  detail: unknown;
  errors?: unknown;
  request_id?: unknown;
  [member: string]: unknown;
}

const stackTrace = /\n\s+at\s|\bat\s+\S+\s+\(|\.ts:\d+:\d+|node_modules|node:internal|file:\/\/|\b(?:Type|Reference|Range|Syntax)?Error:\s/;

/**
 * What every response must satisfy. Returns the problem body for a 4xx with a body, else null.
 * A 4xx without a body can only be the HTTP server's own refusal of a malformed request (or a
 * HEAD); a 4xx from the gateway or a function always carries a problem.
 */
function checkResponse(reply: RawReply, context: string): Problem | null {
  expect(reply.status, `${context} → ${reply.status} ${reply.text.slice(0, 300)}`).toBeLessThan(500);
  expect(reply.text, `${context}: stack trace in the response`).not.toMatch(stackTrace);
  if (reply.status < 400 || reply.text === '') return null;
  expect(reply.headers['content-type'], context).toMatch(/^application\/problem\+json/);
  let problem: Problem;
  try {
    problem = JSON.parse(reply.text) as Problem;
  } catch {
    throw new Error(`${context}: ${reply.status} body is not JSON: ${reply.text.slice(0, 200)}`);
  }
  expect(problem.status, context).toBe(reply.status);
  expect(typeof problem.code, context).toBe('string');
  expect(problem.code as string, context).toMatch(/^[a-z]+(?:_[a-z]+)*$/);
  expect(typeof problem.detail, context).toBe('string');
  expect(typeof problem.type, context).toBe('string');
  expect(typeof problem.title, context).toBe('string');
  if (reply.headers['x-request-id'] !== undefined && problem.request_id !== undefined) {
    expect(problem.request_id, context).toBe(reply.headers['x-request-id']);
  }
  return problem;
}

function expectFieldErrors(problem: Problem, context: string): Array<{ path: string; message: string }> {
  expect(Array.isArray(problem.errors), `${context}: errors array on ${JSON.stringify(problem)}`).toBe(true);
  const errors = problem.errors as Array<{ path: unknown; message: unknown }>;
  expect(errors.length, context).toBeGreaterThan(0);
  for (const error of errors) {
    expect(typeof error.path, context).toBe('string');
    expect(error.path as string, context).toMatch(/^(body|header|query)(\.|$)/);
    expect(typeof error.message, context).toBe('string');
  }
  return errors as Array<{ path: string; message: string }>;
}

const describeInput = (value: string | Uint8Array | undefined) =>
  value === undefined ? '(no body)' : typeof value === 'string' ? JSON.stringify(value.slice(0, 200)) : `${value.length} bytes`;

// ---------------------------------------------------------------------------------------------
// Arbitraries

/** Header values Node will send: visible latin-1, spaces and tabs inside. */
const headerValue = (maxLength = 80) =>
  fc.string({
    unit: fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff })).map((c) => String.fromCharCode(c)),
    maxLength,
  });

const contentTypes = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'APPLICATION/JSON',
    'application/problem+json',
    'application/vnd.api+json',
    'application/jsonx',
    'application/json;',
    'text/plain',
    'text/json',
    'text/html; charset=iso-8859-1',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=xyz',
    'application/octet-stream',
    'image/png',
    '',
    ';',
    '*/*',
  ),
  headerValue(60),
);

const hugeNumberLiterals = ['1e309', '-1e309', '1e-400', '-0', '9007199254740993', '1.7976931348623157e308', '0.1', '1e20', '-1'];
const nanLikeStrings = ['"NaN"', '"Infinity"', '"-Infinity"', '"1e309"', '"0x10"', '"1_000"', '" 3"', '"3 "', '"undefined"', '"null"'];

/** Any JSON text value, including the awkward ones JSON.stringify would never write. */
const anyJsonLiteral = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)),
  fc.constantFrom(...hugeNumberLiterals, ...nanLikeStrings, 'null', 'true', 'false', '""', '[]', '{}', '{"__proto__":{"polluted":true}}'),
  fc.string({ unit: 'grapheme', maxLength: 40 }).map((text) => JSON.stringify(text)),
);

const prototypeKeys = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];
const createFields = ['kind', 'envelope', 'salt', 'size_bytes', 'expires_in', 'max_views', 'claim_verifier', 'not_before'];

/** Serialises entries as a JSON object text, so `__proto__` stays an ordinary key. */
const objectText = (entries: Array<[string, string]>) => `{${entries.map(([key, raw]) => `${JSON.stringify(key)}:${raw}`).join(',')}}`;

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

// --- The model of a creation body (DESIGN.md §3), field by field -------------------------------

/**
 * - `valid`: the field is fine on its own;
 * - `invalid`: wrong on its own; the 400 must name `body.<field>`;
 * - `invalid-anywhere`: wrong (e.g. an envelope decoding to more than 256 KiB), the 400 may
 *   name a neighbouring field;
 * - `unspecified`: DESIGN.md does not decide (e.g. a non-canonical last base64url character);
 *   only the universal invariants are checked.
 */
type Verdict = 'valid' | 'invalid' | 'invalid-anywhere' | 'unspecified';
interface FieldChoice {
  /** Raw JSON text of the value, or undefined when the field is absent. */
  raw: string | undefined;
  verdict: Verdict;
}

const present = (raw: string, verdict: Verdict): FieldChoice => ({ raw, verdict });
const absent = (verdict: Verdict): FieldChoice => ({ raw: undefined, verdict });

interface Alternatives {
  valid: fc.Arbitrary<FieldChoice>;
  invalid: fc.Arbitrary<FieldChoice>;
}

/** Integer-valued JSON numbers within [min, max] are valid, anything else is not. */
function intField(min: number, max: number, optional: boolean): Alternatives {
  const judge = (raw: string): FieldChoice => {
    const value: unknown = JSON.parse(raw);
    const ok = typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max;
    return present(raw, ok ? 'valid' : 'invalid');
  };
  const inRange = fc.integer({ min, max }).map((n) => present(String(n), 'valid'));
  return {
    valid: optional ? fc.oneof(inRange, fc.constant(absent('valid'))) : inRange,
    invalid: fc.oneof(
      ...(optional ? [] : [fc.constant(absent('invalid'))]),
      fc
        .oneof(
          // Some of these are integers in disguise (`60.0`, `100e0`): the judge decides.
          fc.constantFrom(String(min - 1), String(max + 1), '0', '-5', `${min}.5`, `${min}.0`, `${max}e0`, ...hugeNumberLiterals),
          fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
          fc.integer({ min: -1e9, max: 1e9 }).map(String),
        )
        .map(judge),
      fc.constantFrom(...nanLikeStrings, `"${min}"`, 'null', 'true', '[1]', '{"value":1}').map((raw) => present(raw, 'invalid')),
    ),
  };
}

interface CreateCase {
  entries: Array<[string, string]>;
  fields: Record<string, FieldChoice>;
  extraKeys: string[];
  envelopeBytes: Uint8Array;
  envelopeValid: boolean;
  sizeBytes: unknown;
  expiresIn: number | undefined;
  maxViews: number | undefined;
  notBeforeOffsetSeconds: number | undefined;
  claimToken: string | undefined;
}

const kindField: Alternatives = {
  valid: fc.constant(present('"text"', 'valid')),
  invalid: fc.oneof(
    fc.constant(absent('invalid')),
    fc
      .oneof(
        fc.constantFrom(
          '"file"',
          '"TEXT"',
          '""',
          '"text "',
          '"text\\u0000"',
          '"tеxt"',
          'null',
          '1',
          'true',
          '[]',
          '{}',
          '["text"]',
          '{"kind":"text"}',
        ),
        anyJsonLiteral.filter((raw) => raw !== '"text"'),
      )
      .map((raw) => present(raw, 'invalid')),
  ),
};

/** Envelope strings that are not standard padded base64 whatever the bytes. */
function brokenEnvelopes(bytes: Uint8Array): fc.Arbitrary<FieldChoice> {
  const text = b64(bytes);
  return fc.oneof(
    fc.constant(absent('invalid')),
    fc
      .constantFrom(
        '""',
        '"===="',
        '"A==="',
        '"=AAA"',
        '"AAAA===="',
        '"AA=A"',
        '123',
        'null',
        'true',
        `[${JSON.stringify(text)}]`,
        `{"b64":${JSON.stringify(text)}}`,
      )
      .map((raw) => present(raw, 'invalid')),
    // Length not a multiple of 4.
    fc.constant(
      present(JSON.stringify(text.length % 4 === 0 && !text.endsWith('=') ? `${text}A` : text.replace(/=+$/, '') || 'A'), 'invalid'),
    ),
    // A character outside the standard alphabet somewhere.
    fc
      .tuple(fc.nat(text.length), fc.constantFrom(' ', '\n', '-', '_', '.', 'é', '😀', '\u0000', '%'))
      .map(([at, char]) => present(JSON.stringify(`${text.slice(0, at)}${char}${text.slice(at)}`), 'invalid')),
    // base64url instead of base64, when that differs (the bytes encode a + or a /).
    ...(/[-_]/.test(b64url(bytes)) ? [fc.constant(present(JSON.stringify(b64url(bytes)), 'invalid'))] : []),
  );
}

const saltField: Alternatives = {
  valid: fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => present(JSON.stringify(b64url(b)), 'valid')),
  invalid: fc.oneof(
    fc.constant(absent('invalid')),
    fc.uint8Array({ minLength: 16, maxLength: 16 }).chain((b) =>
      fc.constantFrom(
        present(JSON.stringify(b64url(b).slice(1)), 'invalid'),
        present(JSON.stringify(`${b64url(b)}A`), 'invalid'),
        present(JSON.stringify(b64(b)), 'invalid'),
        present(JSON.stringify(`${b64url(b)}==`), 'invalid'),
        present(JSON.stringify(`${b64url(b).slice(0, 10)}.${b64url(b).slice(11)}`), 'invalid'),
        present(JSON.stringify(`${b64url(b).slice(0, 10)}é${b64url(b).slice(11)}`), 'invalid'),
        // 22 base64url characters, but the last one carries bits 16 bytes cannot have.
        present(JSON.stringify(`${b64url(b).slice(0, 21)}B`), 'unspecified'),
      ),
    ),
    fc.constantFrom('""', 'null', '16', '[]', '{}').map((raw) => present(raw, 'invalid')),
    anyJsonLiteral.filter((raw) => !/^"[A-Za-z0-9_-]{22}"$/.test(raw)).map((raw) => present(raw, 'invalid')),
  ),
};

type ClaimChoice = 'absent' | 'valid' | 'padded' | 'short' | 'hex' | 'last' | 'number' | 'null' | 'empty';
const claimField = {
  valid: fc.constantFrom<ClaimChoice>('absent', 'valid'),
  invalid: fc.constantFrom<ClaimChoice>('padded', 'short', 'hex', 'last', 'number', 'null', 'empty'),
};

type NotBeforeChoice = { kind: 'absent' } | { kind: 'offset'; fraction: number; tz: number } | { kind: 'broken'; raw: string };
const offsetNotBefore = (fractions: number[]) =>
  fc.record({
    kind: fc.constant('offset' as const),
    fraction: fc.constantFrom(...fractions),
    tz: fc.constantFrom(0, 330, -420, 840, -720),
  });
const notBeforeField = {
  // In the past, or before the expiry.
  valid: fc.oneof(fc.constant<NotBeforeChoice>({ kind: 'absent' }), offsetNotBefore([-10, -0.5, 0.1, 0.5, 0.9])),
  invalid: fc.oneof(
    // Well-formed, but at or after the expiry.
    offsetNotBefore([1.5, 100]),
    fc.record({
      kind: fc.constant('broken' as const),
      raw: fc.constantFrom(
        '"tomorrow"',
        '"2024-13-01T00:00:00Z"',
        '"2024-02-30T00:00:00Z"',
        '"2024-01-01"',
        '"2024-01-01T00:00:00"',
        '"2024-01-01T25:00:00Z"',
        '"2024-01-01 00:00:00Z"',
        '"+275760-09-13T00:00:00Z"',
        '"2024-01-01T00:00:00+25:00"',
        '"0000-00-00T00:00:00Z"',
        '1704067200000',
        'null',
        '""',
      ),
    }),
  ),
};

const extraKeysField = fc.array(
  fc.tuple(
    fc.oneof(
      fc.constantFrom(...prototypeKeys, 'Kind', 'id', 'views_left', 'state', '', ' kind', 'kind\u0000'),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }),
    ),
    anyJsonLiteral,
  ),
  { minLength: 1, maxLength: 3 },
);

const breakable = ['kind', 'envelope', 'size_bytes', 'salt', 'expires_in', 'max_views', 'claim_verifier', 'not_before', 'extra'] as const;
type Breakable = (typeof breakable)[number];

/** Which fields a case breaks: none (a valid body), one, or several. */
const brokenFields: fc.Arbitrary<readonly Breakable[]> = fc.oneof(
  { weight: 4, arbitrary: fc.constant([]) },
  { weight: 4, arbitrary: fc.constantFrom(...breakable).map((field) => [field]) },
  { weight: 3, arbitrary: fc.subarray([...breakable], { minLength: 2 }) },
);

const pick = <T>(alternatives: { valid: fc.Arbitrary<T>; invalid: fc.Arbitrary<T> }, broken: boolean) =>
  broken ? alternatives.invalid : alternatives.valid;

/** The whole creation body, with the model's view of each field. */
const createCase: fc.Arbitrary<CreateCase> = fc
  .tuple(brokenFields, fc.uint8Array({ minLength: 1, maxLength: 300 }), fc.constantFrom(0, 0, 0, 0, 0, 0, 0, 0, 1, 2))
  .chain(([broken, small, huge]) => {
    const is = (field: Breakable) => broken.includes(field);
    // An envelope over 256 KiB (decoded) is the "huge" way of breaking the envelope.
    const bytes = is('envelope') && huge > 0 ? new Uint8Array(huge === 1 ? 256 * 1024 + 1 : 256 * 1024 + 3).fill(small[0] ?? 7) : small;
    const sizes = intField(1, 256 * 1024, false);
    return fc.record({
      bytes: fc.constant(bytes),
      kind: pick(kindField, is('kind')),
      envelope: is('envelope')
        ? huge > 0
          ? fc.constant(present(JSON.stringify(b64(bytes)), 'invalid-anywhere'))
          : brokenEnvelopes(bytes)
        : fc.constant(present(JSON.stringify(b64(bytes)), 'valid')),
      size: is('size_bytes')
        ? fc.oneof(
            fc.constantFrom<string | undefined>(String(bytes.length + 1), String(bytes.length - 1)),
            sizes.invalid.map((choice) => choice.raw),
          )
        : fc.constant<string | undefined>(String(bytes.length)),
      salt: pick(saltField, is('salt')),
      expiresIn: pick(intField(60, 30 * 24 * 3600, true), is('expires_in')),
      maxViews: pick(intField(1, 100, true), is('max_views')),
      claim: pick(claimField, is('claim_verifier')),
      notBefore: pick(notBeforeField, is('not_before')),
      extra: is('extra') ? extraKeysField : fc.constant<Array<[string, string]>>([]),
      order: fc.array(fc.nat(), { minLength: 16, maxLength: 16 }),
    });
  })
  .map((parts) => {
    const fields: Record<string, FieldChoice> = {};
    fields.kind = parts.kind;
    fields.envelope = parts.envelope;
    const sizeRaw = parts.size;
    if (sizeRaw === undefined) fields.size_bytes = absent('invalid');
    else {
      const value: unknown = JSON.parse(sizeRaw);
      const inRange = typeof value === 'number' && Number.isSafeInteger(value) && value >= 1 && value <= 256 * 1024;
      fields.size_bytes = present(sizeRaw, inRange ? 'valid' : 'invalid');
    }
    fields.salt = parts.salt;
    fields.expires_in = parts.expiresIn;
    fields.max_views = parts.maxViews;

    let claimToken: string | undefined;
    if (parts.claim === 'absent') fields.claim_verifier = absent('valid');
    else if (parts.claim === 'valid') {
      const pair = claimPair();
      claimToken = pair.token;
      fields.claim_verifier = present(JSON.stringify(pair.verifier), 'valid');
    } else {
      const { verifier } = claimPair();
      const broken: Record<Exclude<ClaimChoice, 'absent' | 'valid'>, FieldChoice> = {
        padded: present(JSON.stringify(`${verifier}=`), 'invalid'),
        short: present(JSON.stringify(verifier.slice(1)), 'invalid'),
        hex: present(JSON.stringify(randomBytes(32).toString('hex')), 'invalid'),
        // 43 base64url characters whose last one carries bits a SHA-256 cannot have.
        last: present(JSON.stringify(`${verifier.slice(0, 42)}B`), 'unspecified'),
        number: present('42', 'invalid'),
        null: present('null', 'invalid'),
        empty: present('""', 'invalid'),
      };
      fields.claim_verifier = broken[parts.claim];
    }
    // A claim verifier goes with a link verifier (issue 26's cut-over; its own test is link-verifier-cutover.test.ts).
    if (parts.claim !== 'absent') fields.link_verifier = present(JSON.stringify(claimPair().verifier), 'valid');

    const expiresIn =
      parts.expiresIn.verdict === 'valid'
        ? parts.expiresIn.raw === undefined
          ? 24 * 3600
          : (JSON.parse(parts.expiresIn.raw) as number)
        : undefined;
    let notBeforeOffsetSeconds: number | undefined;
    if (parts.notBefore.kind === 'absent') fields.not_before = absent('valid');
    else if (parts.notBefore.kind === 'broken') fields.not_before = present(parts.notBefore.raw, 'invalid');
    else {
      const horizon = expiresIn ?? 24 * 3600;
      notBeforeOffsetSeconds = Math.round(parts.notBefore.fraction * horizon);
      // Keep clear of the expiry itself: the request takes a few milliseconds.
      if (Math.abs(notBeforeOffsetSeconds - horizon) < 30) notBeforeOffsetSeconds = horizon + 30;
      const at = Date.now() + notBeforeOffsetSeconds * 1000;
      fields.not_before = present(JSON.stringify(isoWithOffset(at, parts.notBefore.tz)), 'valid');
    }

    const entries: Array<[string, string]> = [
      ...Object.entries(fields).flatMap(([key, choice]): Array<[string, string]> => (choice.raw === undefined ? [] : [[key, choice.raw]])),
      ...parts.extra,
    ];
    // A random order of the keys.
    const keyed = entries.map((entry, index) => ({ entry, sortKey: parts.order[index % parts.order.length]! * 100 + index }));
    keyed.sort((a, b) => a.sortKey - b.sortKey);

    const maxViews =
      parts.maxViews.verdict === 'valid' ? (parts.maxViews.raw === undefined ? 1 : (JSON.parse(parts.maxViews.raw) as number)) : undefined;
    return {
      entries: keyed.map(({ entry }) => entry),
      fields,
      extraKeys: parts.extra.map(([key]) => key),
      envelopeBytes: parts.bytes,
      envelopeValid: parts.envelope.verdict === 'valid',
      sizeBytes: sizeRaw === undefined ? undefined : (JSON.parse(sizeRaw) as unknown),
      expiresIn,
      maxViews,
      notBeforeOffsetSeconds,
      claimToken,
    };
  });

/** An ISO 8601 time with an explicit UTC offset (minutes), for the same instant. */
function isoWithOffset(ms: number, offsetMinutes: number): string {
  if (offsetMinutes === 0) return new Date(ms).toISOString();
  const local = new Date(ms + offsetMinutes * 60_000).toISOString().slice(0, 23);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

type Expectation = { outcome: 'created' } | { outcome: 'refused'; mustName: string[] } | { outcome: 'either' };

/** The model's verdict on a creation body: what DESIGN.md §3 says the service must answer. */
function expectedOutcome(c: CreateCase): Expectation {
  const verdicts = Object.entries(c.fields);
  const onItsOwn = verdicts.filter(([, choice]) => choice.verdict === 'invalid').map(([field]) => `body.${field}`);
  const anywhere = verdicts.some(([, choice]) => choice.verdict === 'invalid-anywhere');
  if (onItsOwn.length > 0 || anywhere || c.extraKeys.length > 0) return { outcome: 'refused', mustName: onItsOwn };
  if (verdicts.some(([, choice]) => choice.verdict === 'unspecified')) return { outcome: 'either' };
  // Every field is fine on its own; then the rules between fields.
  if (c.envelopeValid && c.sizeBytes !== c.envelopeBytes.length) return { outcome: 'refused', mustName: ['body.size_bytes'] };
  if (c.notBeforeOffsetSeconds !== undefined && c.notBeforeOffsetSeconds >= (c.expiresIn ?? 24 * 3600)) {
    return { outcome: 'refused', mustName: ['body.not_before'] };
  }
  return { outcome: 'created' };
}

// --- Ids and paths ------------------------------------------------------------------------------

const safeDecode = (segment: string) => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

/** Latin-1 characters sent raw in a path; no separators (`/ ? # \`), so the segment stays one. */
const rawPathChar = fc
  .oneof(fc.integer({ min: 0x21, max: 0x7e }), fc.integer({ min: 0xa0, max: 0xff }))
  .map((c) => String.fromCharCode(c))
  .filter((char) => !'/?#\\'.includes(char));

const idSegment: fc.Arbitrary<string> = fc
  .oneof(
    fc.string({ unit: 'grapheme', maxLength: 40 }).map(encodeURIComponent),
    fc.string({ unit: rawPathChar, minLength: 1, maxLength: 40 }),
    fc.constantFrom(
      '..',
      '.',
      '%2e%2e',
      '%2E',
      '%',
      '%zz',
      '%00',
      '%C0%AF',
      '%ff',
      '%2F',
      '..%2F..%2Fetc%2Fpasswd',
      '',
      'sec_',
      'SECRET',
      'SECRET%23sec_x',
      'null',
      'undefined',
      '__proto__',
      'constructor',
      '%5F%5Fproto%5F%5F',
      'sec_%00AAAAAAAAAAAAAAAAAAAAA',
    ),
    // Well-formed ids nobody created.
    fc.tuple(fc.uint8Array({ minLength: 16, maxLength: 16 })).map(([bytes]) => `sec_${b64url(bytes)}`),
    fc.integer({ min: 100, max: 6000 }).map((length) => 'A'.repeat(length)),
    fc.integer({ min: 100, max: 2000 }).map((length) => '%41'.repeat(length)),
  )
  .chain((segment) => fc.constantFrom(segment, `${segment}/`, `${segment}?x=..`, `${segment}%20`, `${segment};`));

/** Lookalikes of the guard's id, which must be treated as other (unknown) secrets. */
const guardLookalike = fc.constantFrom('changed', 'longer', 'shorter', 'upper', 'prefixed', 'key').map((how) => {
  const id = guard.id;
  switch (how) {
    case 'changed':
      return `${id.slice(0, 8)}${id[8] === 'A' ? 'B' : 'A'}${id.slice(9)}`;
    case 'longer':
      return `${id}A`;
    case 'shorter':
      return id.slice(0, -1);
    case 'upper':
      return id.toUpperCase() === id ? id.toLowerCase() : id.toUpperCase();
    case 'prefixed':
      return `x${id}`;
    default:
      return encodeURIComponent(`SECRET#${id}`);
  }
});

/** True when a path segment would address the guard itself (it must never be fuzzed by claims). */
const isGuard = (segment: string) => safeDecode(segment.replace(/[/?;].*$/, '')).trim() === guard.id || safeDecode(segment) === guard.id;

// ---------------------------------------------------------------------------------------------

describe('POST /v1/secrets with random JSON', () => {
  it('any JSON value or mixed object is a 400 problem with field errors, never a 5xx', async () => {
    const body = fc.oneof(
      fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)),
      anyJsonLiteral,
      fc
        .array(fc.tuple(fc.oneof(fc.constantFrom(...createFields, ...prototypeKeys), fc.string({ maxLength: 10 })), anyJsonLiteral), {
          maxLength: 10,
        })
        .map(objectText),
      fc.integer({ min: 1, max: 20_000 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`),
      fc.integer({ min: 1, max: 5_000 }).map((depth) => `${'{"kind":'.repeat(depth)}"text"${'}'.repeat(depth)}`),
    );
    await fc.assert(
      fc.asyncProperty(body, async (text) => {
        const reply = await send('POST', '/v1/secrets', { headers: { 'content-type': 'application/json' }, body: text });
        const context = `POST /v1/secrets ${describeInput(text)}`;
        const problem = checkResponse(reply, context);
        expect(reply.status, context).toBe(400);
        expect(problem?.code, context).toBe('invalid_request');
        expectFieldErrors(problem!, context);
      }),
      { numRuns: runs.jsonValues },
    );
  }, 60_000);

  it('bodies mixing valid and invalid fields get exactly what DESIGN.md §3 says', async () => {
    let created = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(createCase, async (c) => {
        const text = objectText(c.entries);
        const context = `POST /v1/secrets ${describeInput(text)}`;
        const reply = await send('POST', '/v1/secrets', { headers: { 'content-type': 'application/json' }, body: text });
        const problem = checkResponse(reply, context);
        const expected = expectedOutcome(c);
        if (expected.outcome === 'either') {
          expect([201, 400], context).toContain(reply.status);
          if (reply.status === 400) expectFieldErrors(problem!, context);
          return;
        }
        if (expected.outcome === 'refused') {
          refused += 1;
          expect(reply.status, `${context} → ${reply.text.slice(0, 300)}`).toBe(400);
          expect(problem?.code, context).toBe('invalid_request');
          const paths = expectFieldErrors(problem!, context).map((error) => error.path);
          for (const field of expected.mustName) {
            expect(
              paths.some((path) => path === field || path.startsWith(`${field}.`)),
              `${context}: ${field} not in ${JSON.stringify(paths)}`,
            ).toBe(true);
          }
          return;
        }
        created += 1;
        expect(reply.status, `${context} → ${reply.text.slice(0, 300)}`).toBe(201);
        const body = JSON.parse(reply.text) as Record<string, unknown>;
        const maxViews = c.maxViews ?? 1;
        expect(body.id, context).toMatch(/^sec_[A-Za-z0-9_-]{22,}$/);
        expect(body.max_views, context).toBe(maxViews);
        expect(body.views_left, context).toBe(maxViews);
        expect(typeof body.delete_token, context).toBe('string');
        expect(Date.parse(body.expires_at as string) - Date.parse(body.created_at as string), context).toBe(
          (c.expiresIn ?? 24 * 3600) * 1000,
        );
        // What was stored is what was sent: one claim returns the exact envelope.
        const claim = await send('POST', `/v1/secrets/${body.id as string}/claim`, {
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(c.claimToken === undefined ? {} : { claim_token: c.claimToken }),
        });
        const claimProblem = checkResponse(claim, `claim of ${context}`);
        if (c.notBeforeOffsetSeconds !== undefined && c.notBeforeOffsetSeconds > 0) {
          expect(claim.status, context).toBe(425);
          expect(claimProblem?.code, context).toBe('too_early');
        } else {
          expect(claim.status, `${context} claim → ${claim.text.slice(0, 300)}`).toBe(200);
          const claimed = JSON.parse(claim.text) as Record<string, unknown>;
          expect(claimed.envelope, context).toBe(b64(c.envelopeBytes));
          expect(claimed.views_left, context).toBe(maxViews - 1);
        }
      }),
      { numRuns: runs.createModel },
    );
    // The generator must really exercise both sides of the model.
    expect(created).toBeGreaterThan(runs.createModel / 20);
    expect(refused).toBeGreaterThan(runs.createModel / 4);
  }, 60_000);
});

/** Raw bodies: bytes, text, truncated or decorated JSON, with any content-type. */
const rawBody: fc.Arbitrary<string | Uint8Array | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.uint8Array({ maxLength: 2048 }),
  fc.string({ unit: 'binary', maxLength: 400 }),
  fc.nat(400).map((cut) => JSON.stringify(textSecretBody()).slice(0, cut)),
  fc.constantFrom('\uFEFF', ' ', '\n', 'x', ',', '}', '\u0000').map((extra) => JSON.stringify(textSecretBody()) + extra),
  fc.constant(`\uFEFF${JSON.stringify(textSecretBody())}`),
  fc.constant(new URLSearchParams(textSecretBody() as unknown as Record<string, string>).toString()),
  fc
    .uint8Array({ minLength: 1, maxLength: 64 })
    .map((bytes) => Buffer.concat([Buffer.from('{"kind":"'), Buffer.from(bytes), Buffer.from('"}')])),
);

describe('POST /v1/secrets with random bytes and content types', () => {
  it('never a 5xx; refusals are problems; valid JSON under a JSON type is judged on its content', async () => {
    await fc.assert(
      fc.asyncProperty(rawBody, contentTypes, async (body, contentType) => {
        const headers: OutgoingHttpHeaders = contentType === undefined ? {} : { 'content-type': contentType };
        const reply = await send('POST', '/v1/secrets', { headers, body });
        const context = `POST /v1/secrets content-type=${JSON.stringify(contentType)} ${describeInput(body)}`;
        const problem = checkResponse(reply, context);
        expect([201, 400, 413, 415], context).toContain(reply.status);
        if (reply.status >= 400) expect(problem, `${context}: a refusal without a problem body`).not.toBeNull();
      }),
      { numRuns: runs.rawBodies },
    );
  }, 60_000);

  // DESIGN.md §3: validation failures carry `errors: [{path, message}]`; a body that is not
  // JSON, or not sent as JSON, is a failure of the body too and must say where (`body`).
  it('every 400 from create carries a non-empty errors array', async () => {
    const anyCreateBody = fc.oneof(
      fc.tuple(rawBody, contentTypes),
      fc.tuple(anyJsonLiteral, fc.constant<string | undefined>('application/json')),
    );
    await fc.assert(
      fc.asyncProperty(anyCreateBody, async ([body, contentType]) => {
        const headers: OutgoingHttpHeaders = contentType === undefined ? {} : { 'content-type': contentType };
        const reply = await send('POST', '/v1/secrets', { headers, body });
        const context = `POST /v1/secrets content-type=${JSON.stringify(contentType)} ${describeInput(body)}`;
        const problem = checkResponse(reply, context);
        if (reply.status === 400) expectFieldErrors(problem!, `${context} → ${reply.text.slice(0, 300)}`);
      }),
      { numRuns: runs.errorsArray },
    );
  }, 60_000);

  it('an envelope of exactly 256 KiB is accepted and comes back intact', async () => {
    const body = textSecretBody({}, 256 * 1024);
    const created = await send('POST', '/v1/secrets', { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(created.status, created.text.slice(0, 300)).toBe(201);
    const claim = await send('POST', `/v1/secrets/${(JSON.parse(created.text) as { id: string }).id}/claim`);
    expect(claim.status, claim.text.slice(0, 300)).toBe(200);
    expect((JSON.parse(claim.text) as { envelope: string }).envelope).toBe(body.envelope);
  });

  it('a body over the gateway limit is a 413 problem', async () => {
    const reply = await send('POST', '/v1/secrets', {
      headers: { 'content-type': 'application/json' },
      body: Buffer.alloc(10 * 1024 * 1024 + 1, 0x20),
    });
    const problem = checkResponse(reply, 'POST /v1/secrets 10 MiB + 1');
    expect(reply.status).toBe(413);
    expect(problem?.code).toBe('payload_too_large');
  });
});

describe('random ids on GET, DELETE and claim', () => {
  it('unknown or malformed ids are 404 problems, never 5xx, and never reach the guard', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof({ weight: 5, arbitrary: idSegment }, { weight: 1, arbitrary: guardLookalike }),
        fc.option(headerValue(), { nil: undefined }),
        fc.option(rawBody, { nil: undefined }),
        async (segment, token, body) => {
          fc.pre(!isGuard(segment));
          const requests: Array<[string, string, OutgoingHttpHeaders, (string | Uint8Array)?]> = [
            ['GET', `/v1/secrets/${segment}`, {}],
            ['DELETE', `/v1/secrets/${segment}`, token === undefined ? {} : { 'x-delete-token': token }],
            ['DELETE', `/v1/secrets/${segment}`, { 'x-delete-token': guard.deleteToken }],
            ['POST', `/v1/secrets/${segment}/claim`, { 'content-type': 'application/json' }, body],
          ];
          for (const [method, path, headers, payload] of requests) {
            const reply = await send(method, path, { headers, ...(payload === undefined ? {} : { body: payload }) });
            const context = `${method} ${path.slice(0, 200)}`;
            const problem = checkResponse(reply, context);
            if (reply.text === '') {
              // Only the HTTP server's own refusal of an oversized or malformed request line.
              expect([400, 414, 431], context).toContain(reply.status);
            } else if (method === 'GET' && path.includes('?')) {
              // The metadata read takes a query (`recipient_id`): an unknown parameter is refused.
              expect([400, 404], `${context} → ${reply.text.slice(0, 200)}`).toContain(reply.status);
              if (reply.status === 400)
                expect(
                  expectFieldErrors(problem!, context).every((error) => error.path.startsWith('query.')),
                  context,
                ).toBe(true);
            } else {
              expect(reply.status, `${context} → ${reply.text.slice(0, 200)}`).toBe(404);
              expect(problem?.code, context).toBe('not_found');
            }
          }
        },
      ),
      { numRuns: runs.ids },
    );
  }, 60_000);
});

describe('random request targets', () => {
  // A request line the gateway cannot parse as a URL (`http://[`, `//[`, `http://h:99999`)
  // is the client's fault: a 4xx problem, never the gateway's 500.
  it('whatever the request line names, the answer is < 500 and refusals are problems', async () => {
    const visible = fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c));
    const target = fc
      .tuple(
        fc.constantFrom(
          '',
          '/',
          '//',
          '///',
          'http://',
          'https://',
          'http://localhost',
          'http://[',
          'http://[::1]',
          'http://h:',
          'http://h:99999',
          'ftp://',
          '*',
          '\\',
        ),
        fc.string({ unit: visible, maxLength: 30 }),
        fc.constantFrom('', '/v1/secrets', '/v1/secrets/sec_x', '/v1/secrets/x/claim', '/v1/../v1/secrets'),
      )
      .map(([prefix, junk, path]) => `${prefix}${junk}${path}`)
      .filter((path) => path !== '');
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('GET', 'POST', 'DELETE'), target, async (method, path) => {
        fc.pre(!path.includes(guard.id));
        const reply = await send(method, path, { headers: { connection: 'close' } });
        // A GET of a path that is not the API's is the web client's, as CloudFront routes it: its
        // styled 404 page (ADR 0179), not a problem, for what names no page.
        if (method === 'GET' && reply.status === 404 && /^text\/html/.test(reply.headers['content-type'] ?? '')) {
          expect(reply.text, `${method} ${path}`).toContain('This page does not exist');
          return;
        }
        checkResponse(reply, `${method} ${path}`);
      }),
      { numRuns: runs.targets },
    );
  }, 60_000);
});

describe('random x-delete-token values on the guard', () => {
  it('anything but the exact token is a 403 problem and revokes nothing', async () => {
    const lookalikes = fc.constantFrom('changed', 'prefix', 'suffix', 'case', 'twice', 'hash').map((how) => {
      const token = guard.deleteToken;
      switch (how) {
        case 'changed':
          return `${token.slice(0, 10)}${token[10] === 'A' ? 'B' : 'A'}${token.slice(11)}`;
        case 'prefix':
          return token.slice(0, -1);
        case 'suffix':
          return `${token}A`;
        case 'case':
          return token.toUpperCase() === token ? token.toLowerCase() : token.toUpperCase();
        case 'twice':
          return [token, token];
        default:
          return Buffer.from(token).toString('base64');
      }
    });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          headerValue(200),
          fc.integer({ min: 1000, max: 8000 }).map((length) => 'x'.repeat(length)),
          lookalikes,
          fc.array(headerValue(40), { minLength: 2, maxLength: 3 }),
          fc.constant(undefined),
        ),
        async (token) => {
          fc.pre(token === undefined || (Array.isArray(token) ? token.join(', ') : token).trim() !== guard.deleteToken);
          const reply = await send('DELETE', `/v1/secrets/${guard.id}`, {
            headers: token === undefined ? {} : { 'x-delete-token': token },
          });
          const context = `DELETE guard with x-delete-token=${JSON.stringify(token)?.slice(0, 120)}`;
          const problem = checkResponse(reply, context);
          expect(reply.status, context).toBe(403);
          expect(problem?.code, context).toBe('forbidden');
        },
      ),
      { numRuns: runs.deleteTokens },
    );
  }, 60_000);
});

describe('random methods on the secrets paths', () => {
  it('each method answers its route or a 404/405 problem; HEAD and OPTIONS stay < 500', async () => {
    const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
    const unknownId = () => `sec_${b64url(randomBytes(16))}`;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...methods),
        fc.constantFrom('create', 'secret', 'claim', 'create/', 'secret/', 'claim/'),
        fc.constantFrom('guard', 'unknown', 'garbage'),
        fc.option(rawBody, { nil: undefined }),
        fc.option(contentTypes, { nil: undefined }),
        fc.option(fc.oneof(fc.constant('web'), headerValue(40)), { nil: undefined }),
        fc.option(fc.oneof(fc.constantFrom(...methods), headerValue(20)), { nil: undefined }),
        async (method, template, which, body, contentType, origin, preflightMethod) => {
          // A POST to the guard's claim would rightly consume a view: that one is not fuzzed.
          const id =
            which === 'guard' && !(method === 'POST' && template.startsWith('claim'))
              ? guard.id
              : which === 'garbage'
                ? '%E2%98%83..x'
                : unknownId();
          const base = template.replace(/\/$/, '');
          const path =
            (base === 'create' ? '/v1/secrets' : base === 'secret' ? `/v1/secrets/${id}` : `/v1/secrets/${id}/claim`) +
            (template.endsWith('/') ? '/' : '');
          const headers: OutgoingHttpHeaders = {};
          if (contentType !== undefined) headers['content-type'] = contentType;
          if (origin !== undefined) headers.origin = origin === 'web' ? runtime.url : origin;
          if (preflightMethod !== undefined) headers['access-control-request-method'] = preflightMethod;
          const reply = await send(method, path, { headers, ...(body === undefined ? {} : { body }) });
          const context = `${method} ${path} ${JSON.stringify(headers)} ${describeInput(body)}`;
          const problem = checkResponse(reply, context);

          if (method === 'HEAD') {
            expect(reply.text, context).toBe('');
            return;
          }
          // A preflight is an OPTIONS naming a method (the server trims the header's blanks).
          if (method === 'OPTIONS' && preflightMethod !== undefined && preflightMethod.trim() !== '') {
            expect(reply.status, context).toBe(204);
            if (origin === 'web') expect(reply.headers['access-control-allow-origin'], context).toBe(runtime.url);
            else expect(reply.headers['access-control-allow-origin'], context).toBeUndefined();
            return;
          }
          const routed = !template.endsWith('/') && (base === 'create' || which !== 'garbage');
          let expected: number[];
          if (routed && method === 'POST' && base === 'create') expected = [201, 400];
          else if (routed && method === 'GET' && base === 'secret') expected = [which === 'guard' ? 200 : 404];
          else if (routed && method === 'DELETE' && base === 'secret') expected = [which === 'guard' ? 403 : 404];
          else if (routed && method === 'POST' && base === 'claim') expected = [404];
          // The owner's listing shares the create path and needs a credential.
          else if (routed && method === 'GET' && base === 'create') expected = [401];
          else expected = [404, 405];
          expect(expected, `${context} → ${reply.status} ${reply.text.slice(0, 200)}`).toContain(reply.status);
          if (reply.status >= 400) expect(problem, context).not.toBeNull();
          if (reply.status === 200) {
            const metadata = JSON.parse(reply.text) as Record<string, unknown>;
            expect(metadata.state, context).toBe('active');
            expect(JSON.stringify(metadata), context).not.toContain(guard.envelope);
          }
        },
      ),
      { numRuns: runs.methods },
    );
  }, 60_000);
});

describe('after the fuzzing', () => {
  it('the guard secret is intact: active, every view left, its exact envelope on claim', async () => {
    const stored = await runtime.stores.secrets.get(guard.id);
    expect(stored?.state).toBe('active');
    expect(stored?.viewsLeft).toBe(guard.maxViews);
    expect(stored?.refusedProofs).toBe(0);
    expect((await secretEventsOf(runtime, guard.id)).map((event) => event.type)).toEqual(['secret.created']);

    const metadata = await send('GET', `/v1/secrets/${guard.id}`);
    expect(metadata.status).toBe(200);
    expect(JSON.parse(metadata.text)).toMatchObject({
      id: guard.id,
      state: 'active',
      max_views: guard.maxViews,
      views_left: guard.maxViews,
    });

    const claim = await send('POST', `/v1/secrets/${guard.id}/claim`);
    expect(claim.status).toBe(200);
    const claimed = JSON.parse(claim.text) as Record<string, unknown>;
    expect(claimed.envelope).toBe(guard.envelope);
    expect(claimed.views_left).toBe(guard.maxViews - 1);
  });

  it('the service logged no fault', () => {
    expect(loggedErrors).toEqual([]);
  });
});
