/**
 * What a SCIM client sends and what it verifies, step by step, as its publisher documents it
 * (issue 18): the fixtures in okta.ts and entra.ts are lists of these, run in order against the
 * scim group. Values a run chooses (the directory key, random names) and values taken from earlier
 * answers (a User's id) are `{placeholders}`; bindStep fills them in.
 */

export type ScimMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * One thing the client verifies in an answer. `property` is a path in Runscope's syntax
 * (`Resources[0].name.givenName`), the form Okta's test files use; values may hold placeholders.
 */
export type ScimCheck =
  /** Runscope's not_empty: present, and neither null nor an empty string or array. */
  | { rule: 'notEmpty'; property: string }
  /** Runscope's is_a_number: a JSON number (Okta: "integers, not strings"). */
  | { rule: 'isNumber'; property: string }
  /** Runscope's equal compares the text of the value, so `401` and `"401"`, `true` and `"true"` both pass. */
  | { rule: 'equalsText'; property: string; value: string }
  | { rule: 'equalsNumber'; property: string; value: number }
  /** Runscope's has_value and contains on an array: one element is `value`. */
  | { rule: 'includes'; property: string; value: string }
  /** The gallery validation's "no manager": absent, null or "" (its coalesce(…, 'NOT_NULL') in ['', null]). */
  | { rule: 'noValue'; property: string }
  | { rule: 'respondsWithin'; ms: number }
  /** A check the publisher states only in words. */
  | { rule: 'says'; text: string };

export interface ScimClientStep {
  /** The client's own name for the request (its test's note, or the documentation's heading). */
  name: string;
  method: ScimMethod;
  /** Relative to the SCIM base URL (`…/scim/v2`), beginning with `/`. */
  path: string;
  /**
   * The query string as it goes on the wire, without `?`: the client's own percent-encoding
   * (`%20` or `+` for a space) is part of what is tested. A placeholder's value is inserted
   * encoded with encodeURIComponent.
   */
  query?: string;
  headers: Record<string, string>;
  body?: Json;
  expect: {
    /** The status the client needs; several when its documentation accepts any of them. */
    status: number | number[];
    checks: ScimCheck[];
  };
  /** Values later steps use, read from this answer: variable name → property path. */
  captures?: Record<string, string>;
  /** Where the published text leaves something open, or what a server must know to pass. */
  note?: string;
  /** The client reports a failure of this step without failing the run. */
  optional?: true;
}

/** A step with its placeholders filled in, ready to send. */
export interface ScimRequest {
  method: ScimMethod;
  /** Path and query, relative to the SCIM base URL. */
  target: string;
  headers: Record<string, string>;
  body?: Json;
}

const placeholder = /\{([A-Za-z][A-Za-z0-9_]*)\}/g;

function fill(text: string, variables: Record<string, string>, encode: (value: string) => string) {
  return text.replace(placeholder, (_, name: string) => {
    const value = variables[name];
    // A fixture naming a variable nobody set is a broken fixture, never an empty value sent.
    if (value === undefined) throw new Error(`no value for {${name}}`);
    return encode(value);
  });
}

function fillJson(value: Json, variables: Record<string, string>): Json {
  if (typeof value === 'string') return fill(value, variables, (text) => text);
  if (Array.isArray(value)) return value.map((item) => fillJson(item, variables));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [fill(key, variables, (text) => text), fillJson(item, variables)]),
    );
  }
  return value;
}

export function bindStep(step: ScimClientStep, variables: Record<string, string>): ScimRequest {
  const path = fill(step.path, variables, encodeURIComponent);
  const query = step.query === undefined ? '' : `?${fill(step.query, variables, encodeURIComponent)}`;
  const headers = Object.fromEntries(Object.entries(step.headers).map(([name, value]) => [name, fill(value, variables, (text) => text)]));
  return {
    method: step.method,
    target: `${path}${query}`,
    headers,
    ...(step.body === undefined ? {} : { body: fillJson(step.body, variables) }),
  };
}

/** The same check with its placeholders filled in. */
export function bindCheck(check: ScimCheck, variables: Record<string, string>): ScimCheck {
  if (check.rule === 'equalsText' || check.rule === 'includes') return { ...check, value: fill(check.value, variables, (text) => text) };
  return check;
}

/** Every placeholder a step needs, so a runner can tell a missing capture before sending. */
export function placeholdersOf(step: ScimClientStep): Set<string> {
  const names = new Set<string>();
  const scan = (text: string) => {
    for (const match of text.matchAll(placeholder)) names.add(match[1]!);
  };
  const scanJson = (value: Json) => {
    if (typeof value === 'string') scan(value);
    else if (Array.isArray(value)) value.forEach(scanJson);
    else if (value !== null && typeof value === 'object') for (const [key, item] of Object.entries(value)) scan(key), scanJson(item);
  };
  scan(step.path);
  if (step.query !== undefined) scan(step.query);
  Object.values(step.headers).forEach(scan);
  if (step.body !== undefined) scanJson(step.body);
  for (const check of step.expect.checks) if (check.rule === 'equalsText' || check.rule === 'includes') scan(check.value);
  return names;
}
