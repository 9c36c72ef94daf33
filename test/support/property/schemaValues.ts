import fc from 'fast-check';
import { dynamoNumberEdges, hostileJson, prototypeKeys, type JsonText } from './arbitraries.ts';

/**
 * Values for a JSON Schema of the OpenAPI document (the request schemas, as zod converts
 * them), as JSON text: `valid` ones the schema admits, and `variant` ones where any node may be
 * replaced by a hostile value, a required member dropped, or an unknown or prototype key added.
 * Only what the document says is known here, so a new route's schemas are covered as they are.
 */

export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  propertyNames?: JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  default?: unknown;
}

/** Strings longer than this are generated only at their bounds, and only up to this. */
const longestGenerated = 4096;

export class SchemaValues {
  private readonly cache = new Map<JsonSchema, { valid: fc.Arbitrary<JsonText>; variant: fc.Arbitrary<JsonText> }>();

  constructor(private readonly components: Record<string, JsonSchema>) {}

  resolve(schema: JsonSchema): JsonSchema {
    if (!schema.$ref) return schema;
    const name = schema.$ref.split('/').at(-1)!;
    const found = this.components[name];
    if (!found) throw new Error(`no schema ${schema.$ref}`);
    return this.resolve(found);
  }

  valid(schema: JsonSchema): fc.Arbitrary<JsonText> {
    return this.of(schema).valid;
  }

  variant(schema: JsonSchema): fc.Arbitrary<JsonText> {
    return this.of(schema).variant;
  }

  /** A string the schema admits (for query and header values, which are strings on the wire). */
  validString(schema: JsonSchema): fc.Arbitrary<string> {
    return this.valid(schema).map((text) => {
      const value: unknown = JSON.parse(text);
      return typeof value === 'string' ? value : JSON.stringify(value);
    });
  }

  private of(schema: JsonSchema) {
    let entry = this.cache.get(schema);
    if (!entry) {
      const resolved = this.resolve(schema);
      // Set before building, so a recursive schema meets its own (lazy) entry.
      const lazy: { valid: fc.Arbitrary<JsonText>; variant: fc.Arbitrary<JsonText> } = {
        valid: fc.constant('null'),
        variant: fc.constant('null'),
      };
      this.cache.set(schema, lazy);
      lazy.valid = this.buildValid(resolved);
      lazy.variant = fc.oneof({ weight: 6, arbitrary: this.buildVariant(resolved, lazy.valid) }, { weight: 1, arbitrary: hostileJson });
      entry = lazy;
    }
    return entry;
  }

  private buildValid(schema: JsonSchema): fc.Arbitrary<JsonText> {
    if (schema.const !== undefined) return fc.constant(JSON.stringify(schema.const));
    if (schema.enum) return fc.constantFrom(...schema.enum.map((value) => JSON.stringify(value)));
    const choices = schema.anyOf ?? schema.oneOf;
    if (choices) return fc.oneof(...choices.map((choice) => this.valid(choice)));
    const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
    switch (type) {
      case 'string':
        return stringsOf(schema).map((text) => JSON.stringify(text));
      case 'integer':
      case 'number':
        return numbersOf(schema, type === 'integer');
      case 'boolean':
        return fc.constantFrom('true', 'false');
      case 'null':
        return fc.constant('null');
      case 'array': {
        const minItems = schema.minItems ?? 0;
        const maxItems = Math.min(schema.maxItems ?? minItems + 4, minItems + 4);
        return fc
          .array(schema.items ? this.valid(schema.items) : fc.constant('null'), { minLength: minItems, maxLength: maxItems })
          .map((items) => `[${items.join(',')}]`);
      }
      case 'object':
        return this.objects(schema, (member) => this.valid(member), false);
      default:
        return fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value));
    }
  }

  private buildVariant(schema: JsonSchema, valid: fc.Arbitrary<JsonText>): fc.Arbitrary<JsonText> {
    const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
    if (type === 'object' && (schema.properties || typeof schema.additionalProperties === 'object')) {
      return this.objects(schema, (member) => this.variant(member), true);
    }
    if (type === 'array' && schema.items) {
      const minItems = schema.minItems ?? 0;
      const { maxItems } = schema;
      return fc
        .oneof(
          fc.array(this.variant(schema.items), { minLength: 0, maxLength: minItems + 3 }),
          // Past the bound, by one.
          ...(maxItems !== undefined && maxItems < 200
            ? [fc.array(this.valid(schema.items), { minLength: maxItems + 1, maxLength: maxItems + 1 })]
            : []),
        )
        .map((items) => `[${items.join(',')}]`);
    }
    if (type === 'integer' || type === 'number') return fc.oneof(valid, dynamoNumberEdges, boundsOf(schema));
    if (type === 'string') {
      return fc.oneof(
        valid,
        stringBounds(schema).map((text) => JSON.stringify(text)),
        fc.constantFrom('""', '" "', '"\\u0000"'),
      );
    }
    return valid;
  }

  /** Objects: declared members (required always, optional often), and a record's entries. */
  private objects(schema: JsonSchema, member: (schema: JsonSchema) => fc.Arbitrary<JsonText>, hostile: boolean): fc.Arbitrary<JsonText> {
    const declared = Object.entries(schema.properties ?? {});
    const required = new Set(schema.required ?? []);
    const members = fc.tuple(
      ...declared.map(([name, memberSchema]) =>
        required.has(name) && !hostile
          ? member(memberSchema).map((value): [string, JsonText] | null => [name, value])
          : fc.option(
              member(memberSchema).map((value): [string, JsonText] => [name, value]),
              { nil: null, freq: required.has(name) ? 12 : 3 },
            ),
      ),
    );
    const record = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : null;
    const recordEntries = record
      ? fc.array(
          fc.tuple(
            hostile
              ? fc.oneof(
                  { weight: 5, arbitrary: this.keyNames(schema) },
                  { weight: 1, arbitrary: prototypeKeys },
                  { weight: 1, arbitrary: fc.string({ maxLength: 70 }) },
                )
              : this.keyNames(schema),
            member(record),
          ),
          { maxLength: hostile ? 24 : 4 },
        )
      : fc.constant([] as Array<[string, JsonText]>);
    const extras = hostile
      ? fc.array(
          fc.tuple(
            fc.oneof(prototypeKeys, fc.string({ maxLength: 12 }), fc.constantFrom(...declared.map(([name]) => name), 'extra')),
            hostileJson,
          ),
          { maxLength: 2 },
        )
      : fc.constant([] as Array<[string, JsonText]>);
    return fc.tuple(members, recordEntries, extras).map(([chosen, entries, extra]) => {
      const all = [...chosen.filter((entry): entry is [string, JsonText] => entry !== null), ...entries, ...extra];
      return `{${all.map(([name, value]) => `${JSON.stringify(name)}:${value}`).join(',')}}`;
    });
  }

  private keyNames(schema: JsonSchema): fc.Arbitrary<string> {
    return schema.propertyNames ? stringsOf(this.resolve(schema.propertyNames)) : fc.string({ minLength: 1, maxLength: 12 });
  }
}

function stringsOf(schema: JsonSchema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = schema.maxLength ?? 64;
  const fits = (text: string) => text.length >= minLength && text.length <= maxLength;
  if (schema.pattern) {
    let matching: fc.Arbitrary<string>;
    try {
      matching = fc.stringMatching(new RegExp(schema.pattern), { size: 'small' });
    } catch {
      matching = fc.string({ minLength, maxLength: Math.min(maxLength, 64) });
    }
    return matching.filter(fits);
  }
  const typical = fc.string({ unit: 'grapheme', minLength, maxLength: Math.min(maxLength, Math.max(minLength, 64)) }).filter(fits);
  return maxLength <= longestGenerated
    ? fc.oneof({ weight: 4, arbitrary: typical }, { weight: 1, arbitrary: fc.constant('x'.repeat(maxLength)) })
    : typical;
}

/** Just past a string's bounds. */
function stringBounds(schema: JsonSchema): fc.Arbitrary<string> {
  const lengths = [
    schema.minLength === undefined || schema.minLength === 0 ? null : schema.minLength - 1,
    schema.maxLength === undefined || schema.maxLength >= longestGenerated ? null : schema.maxLength + 1,
  ].filter((length): length is number => length !== null);
  return lengths.length === 0
    ? fc.constant('x'.repeat(longestGenerated + 1))
    : fc.constantFrom(...lengths).map((length) => 'x'.repeat(length));
}

function numbersOf(schema: JsonSchema, integer: boolean): fc.Arbitrary<JsonText> {
  const min =
    schema.minimum ?? (schema.exclusiveMinimum === undefined ? undefined : schema.exclusiveMinimum + (integer ? 1 : Number.EPSILON));
  const max =
    schema.maximum ?? (schema.exclusiveMaximum === undefined ? undefined : schema.exclusiveMaximum - (integer ? 1 : Number.EPSILON));
  const inRange = integer
    ? fc.integer({ min: Math.max(min ?? -1e9, Number.MIN_SAFE_INTEGER), max: Math.min(max ?? 1e9, Number.MAX_SAFE_INTEGER) })
    : fc.double({ min: min ?? -1e12, max: max ?? 1e12, noNaN: true, noDefaultInfinity: true });
  const ends = [min, max].filter((end): end is number => end !== undefined);
  return fc.oneof(
    { weight: 4, arbitrary: inRange.map((n) => JSON.stringify(n)) },
    ...(ends.length ? [{ weight: 1, arbitrary: fc.constantFrom(...ends).map(String) }] : []),
  );
}

/** Just past a number's bounds, and the same value written otherwise (`1e0`, `1.0`). */
function boundsOf(schema: JsonSchema): fc.Arbitrary<JsonText> {
  const outside = [
    schema.minimum === undefined ? null : schema.minimum - 1,
    schema.maximum === undefined ? null : schema.maximum + 1,
  ].filter((n): n is number => n !== null);
  const written = [schema.minimum, schema.maximum]
    .filter((n): n is number => n !== undefined)
    .flatMap((n) => [`${n}.0`, `${n}e0`, `${n}.5`]);
  const all = [...outside.map(String), ...written];
  return all.length === 0 ? fc.constantFrom('1.5', '-1') : fc.constantFrom(...all);
}
