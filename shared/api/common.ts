import * as z from 'zod/mini';
import { errorCodes } from '../http/errors.ts';

// The pieces every group's contract is built of. Response schemas describe what handlers
// answer (they are never parsed at run time: the types keep handlers to them, and the contract
// test checks every response the suites receive against the document made from them).

/** An ISO 8601 UTC time, as every `*_at` field is written. */
export const timestamp = z.iso.datetime();
export const nullableTimestamp = z.nullable(timestamp);

/** A page of a listing: its items, and the cursor of the next page (null on the last one). */
export const page = <T extends z.ZodMiniType>(item: T) => z.strictObject({ items: z.array(item), next_cursor: z.nullable(z.string()) });

/** What a route that takes work for later answers (202). */
export const Accepted = z.strictObject({ accepted: z.literal(true) });

/** `limit` and `cursor` of a paged listing, from the query string. */
export const pageQuery = (limit: { default: number; max: number }) =>
  z.strictObject({
    limit: z._default(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(limit.max)), limit.default),
    cursor: z.optional(z.string().check(z.maxLength(2048))),
  });

/**
 * Bodies that are never refused (the route lists no 400): anything that is not JSON, not an
 * object, or has fields of the wrong type counts as no body. The group handler hands such a
 * route `{}` for an unreadable body instead of answering 400.
 */
const lenientBodies = new WeakSet<z.ZodMiniType>();
export function lenient<T extends z.ZodMiniType<Record<string, unknown>>>(schema: T) {
  const tolerant = z.catch(schema, {} as z.output<T>);
  lenientBodies.add(tolerant);
  return tolerant;
}
export const isLenient = (schema: z.ZodMiniType): boolean => lenientBodies.has(schema);

/** RFC 9457 problem details, as every error is answered (shared/http/errors.ts). */
export const Problem = z.looseObject({
  type: z.string(),
  title: z.string(),
  status: z.int(),
  detail: z.string(),
  code: z.enum(errorCodes),
  request_id: z.optional(z.string()),
  /** One entry per field for validation failures (400). */
  errors: z.optional(z.array(z.strictObject({ path: z.string(), message: z.string() }))),
});
