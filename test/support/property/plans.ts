import fc from 'fast-check';
import type { openApiDocument } from '../../../shared/api/document.ts';
import { routeKey, routes, scopes, type Group, type Route } from '../../../shared/routes.ts';
import {
  contentTypes,
  cursorEdits,
  dynamoNumberEdges,
  headerValue,
  hostileIds,
  hostileJson,
  hostileStrings,
  invalidPercentEncodings,
  mutations,
  oversizedIds,
  prototypeKeys,
  rawBodies,
  syntheticCursors,
  wellFormedIds,
  type CursorEdit,
} from './arbitraries.ts';
import type { MintedBody, MintedQueryValue } from './chat.ts';
import { examples, mintedBodies, queryValues, wholeQueries, type CredentialChoice, type LiveChoice } from './fixtures.ts';
import { mixCase } from './scim.ts';
import type { JsonSchema, SchemaValues } from './schemaValues.ts';

/**
 * What a run sends. Each part of a request (method, path ids, query, declared headers,
 * credential, content type, body, other headers) is generated twice, good and bad, and a run
 * takes the bad one for a few parts only (none, one, or two to four), so most runs reach deep
 * into an operation with one thing wrong, which is where the 5xx were. Parts a route has (a
 * body, a query, path ids) are the likelier to go bad. Live values (ids, tokens, cursors) are
 * chosen by position and resolved when the run is sent (requests.ts); values only the live
 * service or the app's secrets make (a signed command, an install's state) are chosen by kind
 * and made then (`minted`, chat.ts).
 */

type Document = ReturnType<typeof openApiDocument>;
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: JsonSchema;
}

/** One route as the generators see it: its row and the document's account of its input. */
export interface Target {
  route: Route;
  path: Parameter[];
  query: Parameter[];
  headers: Parameter[];
  body: JsonSchema | null;
}

export function targetsOf(group: Group, document: Document): Target[] {
  type Operation = { parameters: Parameter[]; requestBody?: { content: Record<string, { schema: JsonSchema }> } };
  return (routes as readonly Route[])
    .filter((route) => route.group === group)
    .map((route) => {
      const operation = (document.paths[route.path] as Record<string, Operation>)[route.method.toLowerCase()]!;
      const of = (where: Parameter['in']) => operation.parameters.filter((parameter) => parameter.in === where);
      return {
        route,
        path: of('path'),
        query: of('query'),
        headers: of('header'),
        body: operation.requestBody?.content['application/json']?.schema ?? null,
      };
    });
}

export type ParamChoice = { kind: 'live'; live: LiveChoice; whose: 'mine' | 'theirs' } | { kind: 'given'; value: string; raw: boolean };
export type QueryChoice =
  | { kind: 'text'; value: string; raw?: true }
  | { kind: 'cursor'; index: number; which: 'own' | 'foreign'; edits: CursorEdit[] | null }
  | MintedQueryValue;
export type HeaderChoice = { kind: 'live'; live: LiveChoice } | { kind: 'text'; value: string };
export type BodyChoice =
  | { kind: 'none' }
  | { kind: 'json'; text: string }
  | { kind: 'raw'; value: string | Uint8Array }
  | { kind: 'minted'; body: MintedBody };

interface Parts {
  method: string | null;
  params: ParamChoice[];
  query: Array<[string, QueryChoice]>;
  headers: Array<[string, HeaderChoice]>;
  credential: CredentialChoice;
  contentType: string | undefined;
  body: BodyChoice;
  extraHeaders: Array<[string, string]>;
}
type Part = keyof Parts;

export interface Plan extends Parts {
  target: number;
  /** The parts sent bad. */
  bad: Part[];
}

const liveChoice: fc.Arbitrary<LiveChoice> = fc.record({ index: fc.nat(64) });
const changedChoice: fc.Arbitrary<LiveChoice> = fc.record({ index: fc.nat(64), how: mutations, at: fc.nat(64) });
const asText = (value: string): QueryChoice => ({ kind: 'text', value });

/** A credential this route accepts, acting as the first user. */
function goodCredential(route: Route): fc.Arbitrary<CredentialChoice> {
  const session = fc.constant<CredentialChoice>({ kind: 'session', who: 'a' });
  const keys = fc.constantFrom<CredentialChoice>(
    { kind: 'key', scope: 'all' },
    ...(route.scope ? [{ kind: 'key' as const, scope: route.scope }] : []),
  );
  switch (route.credential) {
    case 'user':
      return fc.oneof(session, keys);
    case 'session':
      return session;
    case 'key':
      return keys;
    case 'directory':
      // `Bearer` in any case (RFC 7235 §2.1).
      return fc
        .constantFrom('Bearer', 'bearer', 'BEARER', 'bEaReR')
        .map((scheme): CredentialChoice => ({ kind: 'directory', key: 'a', scheme }));
    default:
      // Anyone may call (`public`, `optional`, `lenient`): anonymous, or known.
      return fc.oneof(
        { weight: 2, arbitrary: fc.constant<CredentialChoice>({ kind: 'none' }) },
        { weight: 1, arbitrary: session },
        { weight: 1, arbitrary: keys },
      );
  }
}

const badCredential: fc.Arbitrary<CredentialChoice> = fc.oneof(
  { weight: 2, arbitrary: fc.constant<CredentialChoice>({ kind: 'none' }) },
  // Another user: the ownership checks.
  { weight: 3, arbitrary: fc.constant<CredentialChoice>({ kind: 'session', who: 'b' }) },
  { weight: 2, arbitrary: fc.constantFrom('all' as const, ...scopes).map((scope): CredentialChoice => ({ kind: 'key', scope })) },
  { weight: 1, arbitrary: fc.constant<CredentialChoice>({ kind: 'session', who: 'a' }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('changed' as const),
      of: fc.constantFrom('session' as const, 'key' as const),
      how: mutations,
      at: fc.nat(600),
    }),
  },
  {
    weight: 2,
    arbitrary: fc
      .oneof(
        fc.constantFrom(
          'Bearer',
          'Bearer ',
          'bearer x',
          'Basic dXNlcjpwYXNz',
          'Bearer hlk_',
          'Bearer hlk_key_AAAAAAAAAAAAAAAA_short',
          'Bearer hlr_x.y',
          'Bearer eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiJ1c3JfeCJ9.',
          'Bearer a.b.c',
          'Bearer  two  spaces',
          'Token abc',
        ),
        fc.constantFrom(2048, 9000).map((length) => `Bearer ${'x'.repeat(length)}`),
        headerValue(200).map((value) => `Bearer ${value}`),
        headerValue(100),
      )
      .map((value): CredentialChoice => ({ kind: 'raw', value })),
  },
);

/**
 * What a directory key's routes must refuse besides (401; 403 to a workspace without the Team
 * tier), or take as another directory's: the other user's directory key (its own Users, none of
 * the first's), the first's rotated key, a lapsed workspace's, a changed one, one of the right
 * shape that is no key, Okta's `non-token` probe, the key as Basic.
 */
const badDirectoryCredential: fc.Arbitrary<CredentialChoice> = fc.oneof(
  { weight: 3, arbitrary: fc.constant<CredentialChoice>({ kind: 'directory', key: 'b', scheme: 'Bearer' }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom<CredentialChoice>(
      { kind: 'directory', key: 'rotated', scheme: 'Bearer' },
      { kind: 'directory', key: 'lapsed', scheme: 'Bearer' },
    ),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('changed' as const), of: fc.constant('directory' as const), how: mutations, at: fc.nat(60) }),
  },
  {
    weight: 3,
    arbitrary: fc
      .oneof(
        fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => `Bearer hlscim_${Buffer.from(bytes).toString('base64url')}`),
        fc.constantFrom(
          'non-token',
          'Bearer hlscim_',
          `Bearer hlscim_${'A'.repeat(42)}`,
          `Bearer hlscim_${'A'.repeat(44)}`,
          `Basic ${Buffer.from(`x:hlscim_${'A'.repeat(43)}`).toString('base64')}`,
          `Bearer\thlscim_${'A'.repeat(43)}`,
          `Bearer hlscim_${'A'.repeat(43)} x`,
          `hlscim_${'A'.repeat(43)}`,
          'Bearer',
          'Bearer ',
        ),
      )
      .map((value): CredentialChoice => ({ kind: 'raw', value })),
  },
);

const badExtraHeaders: fc.Arbitrary<Array<[string, string]>> = fc.array(
  fc.tuple(
    fc.constantFrom(
      'origin',
      'accept',
      'accept-encoding',
      'x-forwarded-for',
      'cloudfront-viewer-address',
      'x-hushlink-origin-verify',
      'user-agent',
      'x-request-id',
      'content-encoding',
      'if-none-match',
      'range',
    ),
    fc.oneof(headerValue(60), fc.constantFrom('*', 'null', '::1', '1.2.3.4:1', 'gzip', 'bytes=0-1', '"x"', 'x'.repeat(4000))),
  ),
  { minLength: 1, maxLength: 2 },
);

/** Good and bad arbitraries of each part of a request to one route, and how likely each goes bad. */
function partsOf(target: Target, values: SchemaValues) {
  const { route } = target;
  const example = examples[routeKey(route)];
  const minted = mintedBodies[routeKey(route)];
  const written = queryValues[routeKey(route)] ?? {};
  const whole = wholeQueries[routeKey(route)];
  // A written value is sent as written; a minted one is made when the run is sent.
  const asChoice = (value: { value: string } | MintedQueryValue): QueryChoice =>
    'kind' in value ? value : { kind: 'text', value: value.value, raw: true };
  const goodQuery = whole
    ? whole.map((chosen) => chosen.map(([name, value]): [string, QueryChoice] => [name, asChoice(value)]))
    : fc
        .tuple(
          ...target.query.map((parameter) =>
            fc.oneof(
              { weight: 1, arbitrary: fc.constant([] as Array<[string, QueryChoice]>) },
              {
                weight: 2,
                arbitrary: (parameter.name === 'cursor'
                  ? fc.record({
                      kind: fc.constant('cursor' as const),
                      index: fc.nat(64),
                      which: fc.constant('own' as const),
                      edits: fc.constant(null),
                    })
                  : written[parameter.name]
                    ? written[parameter.name]!.good.map(asChoice)
                    : values.validString(parameter.schema).map(asText)
                ).map((choice): Array<[string, QueryChoice]> => [[parameter.name, choice]]),
              },
            ),
          ),
        )
        .map((chosen) => chosen.flat());
  const badValueOf = (parameter: Parameter): fc.Arbitrary<QueryChoice> =>
    fc.oneof(
      ...(parameter.name === 'cursor'
        ? [
            // Found: a changed cursor of this listing, which keeps its partition.
            {
              weight: 12,
              arbitrary: fc.record({
                kind: fc.constant('cursor' as const),
                index: fc.nat(64),
                which: fc.constant('own' as const),
                edits: cursorEdits,
              }),
            },
            {
              weight: 2,
              arbitrary: fc.record({
                kind: fc.constant('cursor' as const),
                index: fc.nat(64),
                which: fc.constant('foreign' as const),
                edits: fc.option(cursorEdits, { nil: null }),
              }),
            },
            { weight: 2, arbitrary: syntheticCursors.map(asText) },
          ]
        : []),
      ...(written[parameter.name] ? [{ weight: 8, arbitrary: written[parameter.name]!.bad.map(asChoice) }] : []),
      { weight: 2, arbitrary: dynamoNumberEdges.map(asText) },
      { weight: 2, arbitrary: hostileStrings.map(asText) },
      { weight: 1, arbitrary: invalidPercentEncodings.map((value): QueryChoice => ({ kind: 'text', value, raw: true })) },
    );
  const unknownParameters = fc.array(
    fc.tuple(
      fc.oneof(prototypeKeys, fc.string({ maxLength: 10 }), fc.constantFrom('limit', 'cursor', 'days', 'id')),
      hostileStrings.map(asText),
    ),
    {
      minLength: 1,
      maxLength: 2,
    },
  );
  const badQuery: fc.Arbitrary<Array<[string, QueryChoice]>> =
    target.query.length === 0
      ? unknownParameters
      : fc.oneof(
          {
            weight: 6,
            arbitrary: fc
              .tuple(
                goodQuery,
                fc
                  .constantFrom(...target.query)
                  .chain((parameter) => badValueOf(parameter).map((value): [string, QueryChoice] => [parameter.name, value])),
              )
              .map(([good, [name, value]]): Array<[string, QueryChoice]> => [...good.filter(([other]) => other !== name), [name, value]]),
          },
          // The same parameter twice: the gateway joins the values with a comma.
          {
            weight: 1,
            arbitrary: fc
              .tuple(goodQuery, fc.constantFrom(...target.query), fc.constantFrom('1', '2', 'x'))
              .map(
                ([good, parameter, value]) =>
                  [...good, [parameter.name, asText(value)], [parameter.name, asText(value)]] as Array<[string, QueryChoice]>,
              ),
          },
          { weight: 1, arbitrary: fc.tuple(goodQuery, unknownParameters).map(([good, unknown]) => [...good, ...unknown]) },
          // A parameter read from the raw query string, named in another case (`Filter=`, `COUNT=`): the same parameter.
          ...(Object.keys(written).length > 0
            ? [
                {
                  weight: 2,
                  arbitrary: fc
                    .tuple(goodQuery, fc.constantFrom(...target.query.filter((parameter) => written[parameter.name])), fc.nat())
                    .chain(([good, parameter, bits]) =>
                      written[parameter.name]!.good.map(
                        (value) => [...good, [mixCase(parameter.name, bits | 1), asChoice(value)]] as Array<[string, QueryChoice]>,
                      ),
                    ),
                },
              ]
            : []),
        );
  const goodParams = fc.tuple(...target.path.map(() => liveChoice.map((live): ParamChoice => ({ kind: 'live', live, whose: 'mine' }))));
  const badParams = fc.tuple(
    ...target.path.map(() =>
      fc.oneof(
        { weight: 2, arbitrary: liveChoice.map((live): ParamChoice => ({ kind: 'live', live, whose: 'theirs' })) },
        { weight: 2, arbitrary: changedChoice.map((live): ParamChoice => ({ kind: 'live', live, whose: 'mine' })) },
        { weight: 1, arbitrary: wellFormedIds.map((value): ParamChoice => ({ kind: 'given', value, raw: false })) },
        // Found: an id past DynamoDB's key size, and others no id looks like.
        { weight: 4, arbitrary: hostileIds.map((value): ParamChoice => ({ kind: 'given', value, raw: false })) },
        {
          weight: 1,
          arbitrary: fc
            .stringMatching(/^[A-Za-z0-9._~!$&'()*+,;=:@-]{1,40}$/)
            .map((value): ParamChoice => ({ kind: 'given', value, raw: true })),
        },
        { weight: 1, arbitrary: invalidPercentEncodings.map((value): ParamChoice => ({ kind: 'given', value, raw: true })) },
      ),
    ),
  );
  const headerEntries = (choice: (parameter: Parameter) => fc.Arbitrary<HeaderChoice>, parameters = target.headers) =>
    fc
      .tuple(
        ...parameters.map((parameter) =>
          fc.option(
            choice(parameter).map((value): [string, HeaderChoice] => [parameter.name, value]),
            { nil: null, freq: 4 },
          ),
        ),
      )
      .map((chosen) => chosen.filter((entry): entry is [string, HeaderChoice] => entry !== null));
  const asMinted = (body: MintedBody): BodyChoice => ({ kind: 'minted', body });
  const goodBody: fc.Arbitrary<BodyChoice> = target.body
    ? fc.oneof(
        ...(minted ? [{ weight: 4, arbitrary: minted.good.map(asMinted) }] : []),
        ...(example ? [{ weight: 2, arbitrary: example.map((value): BodyChoice => ({ kind: 'json', text: JSON.stringify(value) })) }] : []),
        { weight: 1, arbitrary: values.valid(target.body).map((text): BodyChoice => ({ kind: 'json', text })) },
      )
    : minted
      ? minted.good.map(asMinted)
      : fc.constant({ kind: 'none' });
  const badBody: fc.Arbitrary<BodyChoice> = target.body
    ? fc.oneof(
        ...(minted ? [{ weight: 8, arbitrary: minted.bad.map(asMinted) }] : []),
        ...(example
          ? [
              {
                weight: 3,
                arbitrary: fc
                  .tuple(example, fc.nat(20), hostileJson)
                  .map(([value, at, hostile]): BodyChoice => ({ kind: 'json', text: withMember(value, at, hostile) })),
              },
            ]
          : []),
        { weight: 6, arbitrary: values.variant(target.body).map((text): BodyChoice => ({ kind: 'json', text })) },
        { weight: 1, arbitrary: rawBodies.map((value): BodyChoice => ({ kind: 'raw', value })) },
        { weight: 1, arbitrary: fc.constant<BodyChoice>({ kind: 'none' }) },
      )
    : fc.oneof(
        ...(minted ? [{ weight: 8, arbitrary: minted.bad.map(asMinted) }] : []),
        { weight: 1, arbitrary: rawBodies.map((value): BodyChoice => ({ kind: 'raw', value })) },
        { weight: 1, arbitrary: hostileJson.map((text): BodyChoice => ({ kind: 'json', text })) },
      );
  const part = <T>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<T>, weight: number) => ({ good, bad, weight });
  return {
    method: part<string | null>(fc.constant(null), fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'), 1),
    params: part(goodParams, badParams, target.path.length > 0 ? 4 : 0),
    query: part(goodQuery, badQuery, target.query.length > 0 ? 5 : 1),
    headers: part(
      // A header a minted body brings (a signature over it) is sent as brought, unless the headers go bad.
      headerEntries(
        () => liveChoice.map((live): HeaderChoice => ({ kind: 'live', live })),
        target.headers.filter((parameter) => !minted?.headers.includes(parameter.name)),
      ),
      headerEntries(() =>
        fc.oneof(
          changedChoice.map((live): HeaderChoice => ({ kind: 'live', live })),
          headerValue(200).map((value): HeaderChoice => ({ kind: 'text', value })),
          oversizedIds.map((value): HeaderChoice => ({ kind: 'text', value })),
        ),
      ),
      target.headers.length > 0 ? 2 : 0,
    ),
    credential: part(
      goodCredential(route),
      route.credential === 'directory' ? fc.oneof(badCredential, badDirectoryCredential) : badCredential,
      3,
    ),
    contentType:
      route.media === 'scim'
        ? part(fc.option(scimContentTypes, { nil: undefined, freq: target.body ? 8 : 2 }), fc.oneof(contentTypes, badScimContentTypes), 1)
        : part<string | undefined>(fc.constant(target.body ? 'application/json' : undefined), contentTypes, 1),
    body: part(goodBody, badBody, target.body || minted ? 6 : 1),
    extraHeaders: part(fc.constant([] as Array<[string, string]>), badExtraHeaders, 1),
  } satisfies { [P in Part]: { good: fc.Arbitrary<Parts[P]>; bad: fc.Arbitrary<Parts[P]>; weight: number } };
}

/** Both JSON media types SCIM clients send (Entra application/scim+json, Okta's spec test application/json), with or without charset. */
const scimContentTypes = fc.constantFrom(
  'application/scim+json',
  'application/json',
  'application/scim+json; charset=utf-8',
  'application/json; charset=utf-8',
  'Application/SCIM+JSON',
  'application/scim+json;charset=UTF-8',
);
const badScimContentTypes = fc.constantFrom(
  'application/scim+xml',
  'application/scim',
  'text/scim+json',
  'application/scim+jsonx',
  'application/scim+json, application/json',
  'application/scim+json; charset=latin1',
  'scim+json',
);

export function plans(targets: Target[], values: SchemaValues): fc.Arbitrary<Plan> {
  return fc.oneof(
    ...targets.map((target, index) => {
      const parts = partsOf(target, values);
      const names = (Object.keys(parts) as Part[]).filter((name) => parts[name].weight > 0);
      const onePart = fc.oneof(...names.map((name) => ({ weight: parts[name].weight, arbitrary: fc.constant(name) })));
      const bad = fc.oneof(
        { weight: 2, arbitrary: fc.constant([] as Part[]) },
        { weight: 6, arbitrary: onePart.map((name) => [name]) },
        { weight: 2, arbitrary: fc.uniqueArray(onePart, { minLength: 2, maxLength: 4 }) },
      );
      const both = <P extends Part>(name: P) =>
        fc.record({ good: parts[name].good, bad: parts[name].bad }) as fc.Arbitrary<{ good: Parts[P]; bad: Parts[P] }>;
      return fc
        .record({
          bad,
          method: both('method'),
          params: both('params'),
          query: both('query'),
          headers: both('headers'),
          credential: both('credential'),
          contentType: both('contentType'),
          body: both('body'),
          extraHeaders: both('extraHeaders'),
        })
        .map(({ bad: badParts, ...chosen }): Plan => {
          const pick = <P extends Part>(name: P): Parts[P] => (badParts.includes(name) ? chosen[name].bad : chosen[name].good) as Parts[P];
          return {
            target: index,
            bad: badParts,
            method: pick('method'),
            params: pick('params'),
            query: pick('query'),
            headers: pick('headers'),
            credential: pick('credential'),
            contentType: pick('contentType'),
            body: pick('body'),
            extraHeaders: pick('extraHeaders'),
          };
        });
    }),
  );
}

/** A valid object body with one member replaced or added (`at` picks which). */
export function withMember(value: Record<string, unknown>, at: number, hostile: string): string {
  const entries = Object.entries(value).map(([name, member]): [string, string] => [name, JSON.stringify(member)]);
  const names = [...entries.map(([name]) => name), 'extra', '__proto__', 'constructor'];
  const name = names[at % names.length]!;
  const index = entries.findIndex(([existing]) => existing === name);
  if (index >= 0) entries[index] = [name, hostile];
  else entries.push([name, hostile]);
  return `{${entries.map(([key, member]) => `${JSON.stringify(key)}:${member}`).join(',')}}`;
}
