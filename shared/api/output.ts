import * as z from 'zod/mini';
import { errorCodes } from '../http/errors.ts';

// Pieces of the groups' reply schemas. They describe what handlers answer and are never parsed
// at run time: the types keep handlers to them, and the contract test checks every response
// the suites receive against the document made from them. No function but the document's
// bundles this module.

/** An ISO 8601 UTC time, as every `*_at` field is written. */
export const timestamp = z.iso.datetime();
export const nullableTimestamp = z.nullable(timestamp);

/** A page of a listing: its items, and the cursor of the next page (null on the last one). */
export const page = <T extends z.ZodMiniType>(item: T) => z.strictObject({ items: z.array(item), next_cursor: z.nullable(z.string()) });

/** What a route that takes work for later answers (202). */
export const Accepted = z.strictObject({ accepted: z.literal(true) });

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
