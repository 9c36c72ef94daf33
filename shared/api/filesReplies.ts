import * as z from 'zod/mini';
import { timestamp } from './output.ts';

const part = z.strictObject({ part_number: z.int(), url: z.string() });

/** What the files group's routes answer: types and the document only, never parsed at run time. */
export const filesReplies = {
  FileUpload: z.strictObject({
    id: z.string(),
    upload_id: z.string(),
    /** Every part but the last is this long: a whole number of envelope chunks, at least 8 MiB. */
    part_size: z.int(),
    part_count: z.int(),
    /** A presigned UploadPart URL for each part still to send (resuming: those S3 does not have). */
    parts: z.array(part),
    urls_expire_at: timestamp,
    url_base: z.string(),
    delete_token: z.string(),
    expires_at: timestamp,
    /** Recipient links, as for a text secret. */
    recipients: z.optional(
      z.array(
        z.strictObject({
          recipient_id: z.string(),
          label: z.nullable(z.string()),
          email: z.nullable(z.string()),
          restricted: z.boolean(),
          url_base: z.string(),
        }),
      ),
    ),
    /** Resuming: the parts S3 has already (ListParts), which are not sent again. */
    uploaded: z.optional(z.array(z.strictObject({ part_number: z.int(), etag: z.string(), size: z.int() }))),
  }),
  CompletedUpload: z.strictObject({ id: z.string(), state: z.literal('active'), size_bytes: z.int() }),
  /** A large upload's completion, left to the completion sweep: the secret stays pending until its object is ready. */
  CompletingUpload: z.strictObject({ id: z.string(), state: z.literal('completing'), size_bytes: z.int() }),
  AbortedUpload: z.strictObject({ id: z.string(), state: z.literal('revoked') }),
};
