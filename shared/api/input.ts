import * as z from 'zod/mini';

// Pieces of the groups' request schemas: what the group handler parses with at run time.

/** `limit` and `cursor` of a paged listing, from the query string. */
export const pageQuery = (limit: { default: number; max: number }) =>
  z.strictObject({
    limit: z._default(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(limit.max)), limit.default),
    cursor: z.optional(z.string().check(z.maxLength(2048))),
  });

/**
 * Bodies that are never refused (the route lists no 400): anything that is not JSON, not an
 * object, or has fields of the wrong type counts as no body. The group handler hands such a
 * route `{}` instead of answering 400, so every field of the schema must be optional. (Not
 * zod's `catch`: it would bring 11 KiB of zod into every bundle for two routes.)
 */
const lenientBodies = new WeakSet<z.ZodMiniType>();
export function lenient<T extends z.ZodMiniObject>(schema: T & (Record<string, never> extends z.output<T> ? unknown : never)): T {
  lenientBodies.add(schema);
  return schema;
}
export const isLenient = (schema: z.ZodMiniType): boolean => lenientBodies.has(schema);
