import { invalidRequest, unknownParam } from './errors.ts';

/**
 * Stripe's parameters: form-encoded (`application/x-www-form-urlencoded`) in a POST body, in
 * the query of a GET, nested with brackets as the SDK writes them (`a[b][0][c]=v`, brackets
 * left unescaped or not) and read as Rack reads them: a hash whose keys are exactly 0..n-1 is
 * a list, `a[]=` appends. Every leaf is a string.
 */
export type FormValue = string | FormValue[] | { [key: string]: FormValue };
export type FormHash = { [key: string]: FormValue };

export function parseForm(encoded: string): FormHash {
  const root: FormHash = {};
  for (const [name, value] of new URLSearchParams(encoded)) {
    const path = keyPath(name);
    let hash: FormHash = root;
    for (const [index, key] of path.entries()) {
      const last = index === path.length - 1;
      const at = path.slice(0, index + 1);
      if (key === '') {
        // `a[]=v`: the next element of a list, which holds strings only.
        const list = hash[appendKey] as unknown as string[] | undefined;
        if (!last) throw conflict(at);
        if (list) list.push(value);
        else Object.defineProperty(hash, appendKey, { value: [value], enumerable: false, configurable: true });
        continue;
      }
      const existing = hash[key];
      if (last) {
        if (existing !== undefined) throw conflict(at);
        hash[key] = value;
      } else if (existing === undefined) {
        hash = hash[key] = {};
      } else if (typeof existing === 'object' && !Array.isArray(existing)) {
        hash = existing;
      } else {
        throw conflict(at);
      }
    }
  }
  return asLists(root) as FormHash;
}

/** Where `a[]=` values gather until the hash they sit in is read as a list. */
const appendKey = '\u0000append';

function keyPath(name: string): string[] {
  const open = name.indexOf('[');
  if (open <= 0) return [name];
  const path = [name.slice(0, open)];
  const rest = name.slice(open);
  const brackets = /\[([^\]]*)\]/gy;
  let match: RegExpExecArray | null;
  let end = 0;
  while ((match = brackets.exec(rest))) {
    path.push(match[1]!);
    end = brackets.lastIndex;
  }
  // Anything after the last bracket (`a[b]c`) is kept as part of the name, as Rack does.
  if (end < rest.length) path[path.length - 1] += rest.slice(end);
  return path;
}

function asLists(value: FormValue): FormValue {
  if (typeof value === 'string' || Array.isArray(value)) return value;
  const appended = (value as Record<string, unknown>)[appendKey] as string[] | undefined;
  const keys = Object.keys(value);
  if (appended) {
    if (keys.length > 0) throw invalidRequest('Invalid array: a list given both with [] and with keys');
    return appended;
  }
  const converted = Object.fromEntries(keys.map((key) => [key, asLists(value[key]!)]));
  const isList = keys.length > 0 && keys.every((key) => /^(0|[1-9]\d*)$/.test(key) && Number(key) < keys.length);
  return isList ? keys.map((_, index) => converted[String(index)]!) : converted;
}

const conflict = (path: string[]) =>
  invalidRequest(`Invalid parameters: ${bracketName(path)} is given more than once, or both as a value and as a hash`, {
    param: bracketName(path),
  });

/** `['line_items', '0', 'price']` → `line_items[0][price]`, as Stripe names a parameter. */
export const bracketName = (path: readonly (string | number)[]): string =>
  path.map((key, index) => (index === 0 ? String(key) : `[${key}]`)).join('');

/**
 * What an endpoint accepts, field by field: anything else is `parameter_unknown`, as Stripe
 * answers it. `expand` is accepted wherever a spec names it.
 */
export type Spec = 'string' | 'integer' | 'boolean' | 'metadata' | 'strings' | { list: Specs } | { hash: Specs };
export type Specs = { readonly [field: string]: Spec };

export type Read<S extends Spec> = S extends 'string'
  ? string
  : S extends 'integer'
    ? number
    : S extends 'boolean'
      ? boolean
      : S extends 'metadata'
        ? Record<string, string>
        : S extends 'strings'
          ? string[]
          : S extends { list: infer L extends Specs }
            ? ReadAll<L>[]
            : S extends { hash: infer H extends Specs }
              ? ReadAll<H>
              : never;
export type ReadAll<H extends Specs> = { -readonly [K in keyof H]?: Read<H[K]> };

/**
 * The parameters as `specs` reads them. An empty string leaves an optional scalar unset (how
 * Stripe's clients clear a field); in metadata it is kept, and means "remove this key".
 */
export function readParams<H extends Specs>(form: FormHash, specs: H, path: readonly (string | number)[] = []): ReadAll<H> {
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(form)) {
    const spec = specs[field];
    const at = [...path, field];
    if (!spec) throw unknownParam(bracketName(at));
    const read = readValue(value, spec, at);
    if (read !== undefined) out[field] = read;
  }
  return out as ReadAll<H>;
}

function readValue(value: FormValue, spec: Spec, path: readonly (string | number)[]): unknown {
  const param = bracketName(path);
  if (spec === 'metadata') return readMetadata(value, path);
  if (spec === 'strings') {
    const list = Array.isArray(value) ? value : typeof value === 'string' ? [value] : undefined;
    if (!list || list.some((item) => typeof item !== 'string')) throw invalidRequest(`Invalid array: ${param}`, { param });
    return list;
  }
  if (typeof spec === 'object') {
    if ('list' in spec) {
      if (!Array.isArray(value)) throw invalidRequest(`Invalid array: ${param}`, { param });
      return value.map((item, index) => {
        if (typeof item !== 'object' || Array.isArray(item))
          throw invalidRequest(`Invalid hash: ${bracketName([...path, index])}`, { param: bracketName([...path, index]) });
        return readParams(item, spec.list, [...path, index]);
      });
    }
    if (typeof value !== 'object' || Array.isArray(value)) throw invalidRequest(`Invalid hash: ${param}`, { param });
    return readParams(value, spec.hash, path);
  }
  if (typeof value !== 'string') throw invalidRequest(`Invalid ${spec}: ${param} must be a single value, not a hash or a list`, { param });
  if (value === '') return undefined;
  if (spec === 'string') return value;
  if (spec === 'integer') {
    if (!/^-?\d{1,15}$/.test(value)) throw invalidRequest(`Invalid integer: ${value}`, { code: 'parameter_invalid_integer', param });
    return Number(value);
  }
  if (value !== 'true' && value !== 'false') throw invalidRequest(`Invalid boolean: ${value}`, { param });
  return value === 'true';
}

/** Stripe's limits: 50 keys, keys up to 40 characters without brackets, values up to 500. */
function readMetadata(value: FormValue, path: readonly (string | number)[]): Record<string, string> {
  const param = bracketName(path);
  // A hash whose keys happen to be 0..n-1 was read as a list: it is still a hash here.
  const entries = Array.isArray(value)
    ? value.map((item, index) => [String(index), item] as const)
    : typeof value === 'object'
      ? Object.entries(value)
      : undefined;
  if (!entries) throw invalidRequest(`Invalid hash: ${param}`, { param });
  if (entries.length > 50) throw invalidRequest('Metadata can have up to 50 keys.', { param });
  const metadata: Record<string, string> = {};
  for (const [key, item] of entries) {
    const at = bracketName([...path, key]);
    if (typeof item !== 'string') throw invalidRequest(`Invalid string: ${at}`, { param: at });
    if (key.length > 40) throw invalidRequest(`Metadata keys can have up to 40 characters; ${key} has ${key.length}.`, { param: at });
    if (item.length > 500) throw invalidRequest(`Metadata values can have up to 500 characters; ${key} has ${item.length}.`, { param: at });
    metadata[key] = item;
  }
  return metadata;
}

/** Metadata laid over metadata as Stripe updates it: an empty value removes the key. */
export function mergeMetadata(current: Record<string, string>, update: Record<string, string> | undefined): Record<string, string> {
  const merged = { ...current };
  for (const [key, value] of Object.entries(update ?? {})) {
    if (value === '') delete merged[key];
    else merged[key] = value;
  }
  return merged;
}
