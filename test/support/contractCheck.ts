import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../shared/api/document.ts';
import { matchRoute, routeKey, type Route } from '../../shared/routes.ts';

/**
 * Checks one API response against the OpenAPI document the service publishes: its status must
 * be one the document lists for the route, an error must be problem+json of the Problem
 * schema, a success must match the route's reply schema; anything else throws, failing the
 * test that received it. Answers of the gateway itself, not of a route, are left alone: no
 * route for the path, a body over the gateway's limit (413), a function that did not answer in
 * time (504), or the local runtime still starting (503). What was seen is kept in `seen`.
 */

const document = openApiDocument('http://localhost');
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
const base = 'https://hushlink.dev/openapi.json';
ajv.addSchema({ $id: base, components: document.components });
const validators = new Map<string, ValidateFunction>();
function validatorFor(name: string): ValidateFunction {
  let validate = validators.get(name);
  if (!validate) {
    validate = ajv.compile({ $ref: `${base}#/components/schemas/${name}` });
    validators.set(name, validate);
  }
  return validate;
}

type Operation = { responses: Record<string, { content?: Record<string, { schema: { $ref?: string; type?: string } }> }> };
const operationOf = (route: Route) => (document.paths[route.path] as Record<string, Operation>)[route.method.toLowerCase()]!;
const gatewayCodes: Record<number, string> = { 413: 'payload_too_large', 503: 'starting', 504: 'timeout' };

/**
 * Statuses each route answered in this file, for the coverage check; also under a global symbol,
 * since a file that imports this module itself (test/support/accounts.ts's callFrom) loads it
 * without the setup file's lazy import.
 */
export const seen = new Map<string, Set<number>>();
(globalThis as Record<symbol, unknown>)[Symbol.for('hushlink.contract.seen')] = seen;

let lastParsed: { text: string; value: unknown } | undefined;

/**
 * `JSON.parse(text)`, kept for the last text: the property runs check an answer here and then
 * take its ids (fixtures.ts `observe`), one parse for both (the OpenAPI document is 170 KB).
 * Neither changes the value it gets.
 */
export function parsedJson(text: string): unknown {
  if (lastParsed?.text !== text) lastParsed = { text, value: JSON.parse(text) };
  return lastParsed.value;
}

export function checkApiResponse(method: string, url: URL, response: { status: number; contentType: string; text: string }): void {
  const match = matchRoute(method, url.pathname);
  if (!match.route) return;
  const route = match.route;
  const documented = operationOf(route).responses[String(response.status)];
  const { contentType, text } = response;
  const body: unknown = /json/.test(contentType) && text ? parsedJson(text) : undefined;
  const code = (body as { code?: string } | undefined)?.code;
  if (!documented) {
    if (gatewayCodes[response.status] === code) return;
    throw new Error(
      `contract: ${routeKey(route)} answered ${response.status} (${code ?? contentType}), which the OpenAPI document does not list for it: ${text.slice(0, 300)}`,
    );
  }
  const key = routeKey(route);
  if (!seen.has(key)) seen.set(key, new Set());
  seen.get(key)!.add(response.status);
  const media = Object.entries(documented.content ?? {});
  if (media.length === 0) {
    if (text !== '') throw new Error(`contract: ${key} ${response.status} has a body where the document says none`);
    return;
  }
  const [mediaType, content] = media.find(([type]) => contentType.startsWith(type)) ?? [];
  if (!mediaType) throw new Error(`contract: ${key} ${response.status} is ${contentType}, not ${media.map(([type]) => type).join(' or ')}`);
  if (!content!.schema.$ref) {
    if (content!.schema.type === 'string') return;
    throw new Error(`contract: ${key} ${response.status} has a schema the check cannot read`);
  }
  const validate = validatorFor(content!.schema.$ref.split('/').at(-1)!);
  if (!validate(body)) {
    throw new Error(
      `contract: ${key} ${response.status} does not match ${content!.schema.$ref}: ${ajv.errorsText(validate.errors)}\n${text.slice(0, 500)}`,
    );
  }
  // SCIM's error message carries its status as a string (RFC 7644 §3.12), a problem as a number.
  const carried = (body as { status?: number | string }).status;
  if (response.status >= 400 && carried !== (route.media === 'scim' ? String(response.status) : response.status)) {
    throw new Error(`contract: ${key} ${response.status} carries status ${carried} in its error body`);
  }
}
