/**
 * Replays a SCIM client's published sequence (okta.ts, entra.ts) against the local runtime, as
 * the client sends it and judging the answers as the client does: each step bound with the
 * variables so far, sent with exactly its method, target, headers and body, its status and checks
 * evaluated, then its captures added to the variables for the steps after it.
 */
import type { Runtime } from '../../../local/runtime.ts';
import { bindCheck, bindStep, placeholdersOf, type Json, type ScimCheck, type ScimClientStep, type ScimRequest } from './clientSteps.ts';

/** One step as it went: what was sent, what came back, how long it took, and what the client would report. */
export interface ScimExchange {
  step: ScimClientStep;
  request: ScimRequest;
  status: number;
  headers: Headers;
  /** The answer parsed as JSON when it is JSON, else its text ('' for none). */
  body: any;
  elapsedMs: number;
  /** The client's verdicts that failed; empty when the step passed. */
  failures: string[];
}

export interface ScimRun {
  /** The variables at the end: the initial ones and every capture. */
  variables: Record<string, string>;
  exchanges: ScimExchange[];
  /** The exchange of the step named `name` (the last one of that name); throws when none ran. */
  exchange(name: string): ScimExchange;
}

export interface ScimRunOptions {
  /**
   * The least a `respondsWithin` bound is taken to be: the local runtime shares two cores with
   * other suites, so a client's stated bound is a statement about production, not about this box.
   */
  minimumResponseBoundMs?: number;
  /**
   * Where a step's note leaves the answer to the server (Entra's unquoted filter value, its bare
   * manager path), the status this service chose instead of the client's, by step name, with the
   * reason. Only for steps with a note: a client's stated expectation is never overridden
   * silently. The test asserts the chosen answer itself.
   */
  serverChoices?: Record<string, { status: number; because: string }>;
  /** Called after each step passed (or an optional one failed), before the next is sent: side effects the client cannot see. */
  afterStep?: (exchange: ScimExchange, variables: Record<string, string>) => void | Promise<void>;
}

/** A property in Runscope's syntax: `Resources[0].name.givenName`. A key may hold dots (a schema URN): the longest key present wins. */
export function readProperty(value: unknown, property: string): unknown {
  const segments = property.split('.');
  let current: unknown = value;
  let index = 0;
  while (index < segments.length) {
    if (current === null || typeof current !== 'object') return undefined;
    let matched = false;
    for (let end = segments.length; end > index; end--) {
      const candidate = segments.slice(index, end).join('.');
      const parsed = /^([^[\]]*)((?:\[\d+\])*)$/.exec(candidate);
      if (!parsed) continue;
      const [, key, indices] = parsed;
      let next: unknown = current;
      if (key !== '') {
        if (Array.isArray(next) || !Object.hasOwn(next as object, key!)) continue;
        next = (next as Record<string, unknown>)[key!];
      }
      for (const [, position] of indices!.matchAll(/\[(\d+)\]/g)) {
        next = Array.isArray(next) ? next[Number(position)] : undefined;
      }
      current = next;
      index = end;
      matched = true;
      break;
    }
    if (!matched) return undefined;
  }
  return current;
}

/** Runscope compares the text of a value: `401` and `"401"`, `true` and `"true"` are equal. */
const asText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** The client's verdict on one check, or null when it passes. `says` checks are words: the test asserts them. */
function verdict(check: ScimCheck, body: unknown, elapsedMs: number, options: ScimRunOptions): string | null {
  switch (check.rule) {
    case 'notEmpty': {
      const value = readProperty(body, check.property);
      const empty = value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);
      return empty ? `${check.property} is empty (${asText(value)})` : null;
    }
    case 'isNumber': {
      const value = readProperty(body, check.property);
      return typeof value === 'number' ? null : `${check.property} is not a number (${asText(value)})`;
    }
    case 'equalsText': {
      const value = readProperty(body, check.property);
      return value !== undefined && asText(value) === check.value ? null : `${check.property} is ${asText(value)}, not ${check.value}`;
    }
    case 'equalsNumber': {
      const value = readProperty(body, check.property);
      return value === check.value ? null : `${check.property} is ${asText(value)}, not the number ${check.value}`;
    }
    case 'includes': {
      const value = readProperty(body, check.property);
      return Array.isArray(value) && value.some((item) => asText(item) === check.value)
        ? null
        : `${check.property} (${asText(value)}) has no element ${check.value}`;
    }
    case 'noValue': {
      const value = readProperty(body, check.property);
      return value === undefined || value === null || value === '' ? null : `${check.property} is ${asText(value)}, not empty`;
    }
    case 'respondsWithin': {
      const bound = Math.max(check.ms, options.minimumResponseBoundMs ?? 0);
      return elapsedMs <= bound ? null : `answered in ${elapsedMs.toFixed(0)} ms, over ${bound} ms`;
    }
    case 'says':
      return null;
  }
}

/** The directory key is a test's own, but a failure report is read by people: the credential's scheme, not its value. */
const redacted = (headers: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      name,
      name.toLowerCase() === 'authorization' ? value.replace(/^(\S+\s+)\S.*$/, '$1…') : value,
    ]),
  );

function describeExchange(index: number, exchange: Pick<ScimExchange, 'step' | 'request' | 'status' | 'headers' | 'body'>): string {
  const { request } = exchange;
  return [
    `step ${index + 1} "${exchange.step.name}"`,
    `sent: ${request.method} ${request.target} ${JSON.stringify(redacted(request.headers))}${request.body === undefined ? '' : ` ${JSON.stringify(request.body)}`}`,
    `came back: ${exchange.status} ${exchange.headers.get('content-type') ?? '(no content-type)'} ${typeof exchange.body === 'string' ? exchange.body : JSON.stringify(exchange.body)}`,
  ].join('\n  ');
}

/** Sends one bound request as the client does: its headers and no others, the body as compact JSON bytes. */
async function send(runtime: Pick<Runtime, 'url'>, request: ScimRequest) {
  // Bytes, not a string: fetch gives a string body a text/plain Content-Type the client never sent.
  const body = request.body === undefined ? undefined : new TextEncoder().encode(JSON.stringify(request.body as Json));
  const started = performance.now();
  const response = await fetch(`${runtime.url}/scim/v2${request.target}`, {
    method: request.method,
    headers: request.headers,
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  const elapsedMs = performance.now() - started;
  const parsed: unknown = text && /json/.test(response.headers.get('content-type') ?? '') ? JSON.parse(text) : text;
  return { status: response.status, headers: response.headers, body: parsed, elapsedMs };
}

/**
 * Runs `steps` in order. A required step that fails throws, naming the step, what was sent and
 * what came back; an optional one is recorded with its failures (the client reports it and goes
 * on). Every answer with a body must be application/scim+json: Entra's validator warns otherwise.
 */
export async function runScimSteps(
  runtime: Pick<Runtime, 'url'>,
  steps: readonly ScimClientStep[],
  initial: Record<string, string>,
  options: ScimRunOptions = {},
): Promise<ScimRun> {
  const variables: Record<string, string> = { ...initial };
  const exchanges: ScimExchange[] = [];
  const unknown = Object.keys(options.serverChoices ?? {}).filter((name) => !steps.some((step) => step.name === name));
  if (unknown.length > 0) throw new Error(`server choices for no step: ${unknown.join(', ')}`);
  for (const [index, step] of steps.entries()) {
    const missing = [...placeholdersOf(step)].filter((name) => variables[name] === undefined);
    if (missing.length > 0)
      throw new Error(
        `step ${index + 1} "${step.name}" needs ${missing.map((name) => `{${name}}`).join(', ')}, which no earlier step captured`,
      );
    const request = bindStep(step, variables);
    const reply = await send(runtime, request);
    const choice = options.serverChoices?.[step.name];
    if (choice && step.note === undefined)
      throw new Error(
        `step ${index + 1} "${step.name}": its client leaves nothing open (no note), so no server choice replaces its status`,
      );
    const stated = choice ? choice.status : step.expect.status;
    const expected = Array.isArray(stated) ? stated : [stated];
    const failures: string[] = [];
    if (!expected.includes(reply.status)) failures.push(`status ${reply.status}, expected ${expected.join(' or ')}`);
    const contentType = reply.headers.get('content-type') ?? '';
    if (reply.body !== '' && !/^application\/scim\+json\b/.test(contentType))
      failures.push(`answered ${contentType || 'no content-type'}, not application/scim+json`);
    for (const check of step.expect.checks) {
      const failure = verdict(bindCheck(check, variables), reply.body, reply.elapsedMs, options);
      if (failure !== null) failures.push(failure);
    }
    const exchange: ScimExchange = { step, request, ...reply, failures };
    exchanges.push(exchange);
    if (failures.length > 0 && !step.optional) throw new Error(`${describeExchange(index, exchange)}\n  failed: ${failures.join('; ')}`);
    if (failures.length === 0) {
      for (const [name, property] of Object.entries(step.captures ?? {})) {
        const value = readProperty(reply.body, property);
        if (value === undefined || value === null || value === '')
          throw new Error(`${describeExchange(index, exchange)}\n  failed: nothing to capture as {${name}} at ${property}`);
        variables[name] = asText(value);
      }
    }
    await options.afterStep?.(exchange, variables);
  }
  return {
    variables,
    exchanges,
    exchange(name) {
      const found = exchanges.findLast((exchange) => exchange.step.name === name);
      if (!found) throw new Error(`no step "${name}" ran`);
      return found;
    },
  };
}
