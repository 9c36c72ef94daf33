import * as z from 'zod/mini';
import { chunkLog2Range } from '../envelope/format.ts';
import { digestPattern, saltPattern } from '../domain/secrets/rules.ts';
import { fileLimits, secretLimits } from '../limits.ts';
import { wrappedKeyFields } from './requests.ts';
import { hostnameNeedsWorkspace, labelEnvelope, linkHostname, recipientRequest } from './secrets.ts';

const { expiresInSeconds, maxViews, recipients } = secretLimits;

/** A file's upload as a client names it again: the secret, its upload and its delete token. */
const uploadRef = {
  id: z.string().check(z.maxLength(64)),
  upload_id: z.string().check(z.minLength(1), z.maxLength(1024)),
  delete_token: z.string().check(z.maxLength(128)),
};

/** A new upload: the envelope's length and the secret's public parameters (the name and type are inside the envelope). */
const newUpload = z
  .strictObject({
    /** The whole envelope: header, encrypted meta block and chunks. */
    size_bytes: z.int().check(z.minimum(1), z.maximum(Number.MAX_SAFE_INTEGER)),
    salt: z.string().check(z.regex(saltPattern, 'salt must be 22 base64url characters encoding 16 bytes')),
    claim_verifier: z.optional(z.string().check(z.regex(digestPattern, 'claim_verifier must be a base64url SHA-256 (43 characters)'))),
    link_verifier: z.optional(z.string().check(z.regex(digestPattern, 'link_verifier must be a base64url SHA-256 (43 characters)'))),
    expires_in: z._default(z.int().check(z.minimum(expiresInSeconds.min), z.maximum(expiresInSeconds.max)), expiresInSeconds.default),
    max_views: z._default(z.int().check(z.minimum(maxViews.min), z.maximum(maxViews.max)), maxViews.default),
    not_before: z.optional(z.iso.datetime({ offset: true })),
    recipients: z.optional(z.array(recipientRequest).check(z.minLength(recipients.min), z.maxLength(recipients.max))),
    /** The envelope's chunk size (2^chunk_log2 plaintext bytes), so parts hold whole chunks; 20 when not said. */
    chunk_log2: z._default(z.int().check(z.minimum(chunkLog2Range.min), z.maximum(chunkLog2Range.max)), chunkLog2Range.default),
    /** Sent inside a workspace the caller is a member of: its policy must allow the file (interface §4.7). */
    workspace_id: z.optional(z.string().check(z.maxLength(64))),
    /** With `workspace_id`: `url_base` (and each link's) is on this hostname the workspace verified, and the file is read there and on this service's own host only. */
    hostname: z.optional(linkHostname),
    /**
     * Whether the envelope is sealed with a passphrase, as its header will say: a workspace's
     * policy is checked on this at opening, and completion refuses a header that says otherwise.
     */
    passphrase: z._default(z.boolean(), false),
    /**
     * A response to a request link (interface §4.3): the link's id and the file's key wrapped to
     * the requester, instead of recipients; it reaches their inbox once complete.
     */
    request_id: z.optional(z.string().check(z.maxLength(64))),
    enc: z.optional(wrappedKeyFields.enc),
    wrapped_key: z.optional(wrappedKeyFields.wrapped_key),
    /** A private label sealed in the sender's browser (as a text's); not on a response to a request link, which is the requester's. */
    label_envelope: z.optional(labelEnvelope),
  })
  .check(
    z.superRefine((body, ctx) => {
      const given = [body.request_id, body.enc, body.wrapped_key].filter((field) => field !== undefined).length;
      if (given !== 0 && given !== 3)
        ctx.addIssue({
          code: 'custom',
          path: ['request_id'],
          message: 'a response to a request link needs request_id, enc and wrapped_key together',
        });
      if (body.request_id !== undefined && body.recipients !== undefined)
        ctx.addIssue({ code: 'custom', path: ['recipients'], message: 'a response to a request link has no recipients' });
      if (body.request_id !== undefined && body.label_envelope !== undefined)
        ctx.addIssue({ code: 'custom', path: ['label_envelope'], message: 'a response to a request link has no label' });
      if (body.request_id !== undefined && body.workspace_id !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['workspace_id'],
          message: 'a response to a request link is the requester’s, not sent in a workspace',
        });
      if (body.hostname !== undefined && body.workspace_id === undefined)
        ctx.addIssue({ code: 'custom', path: ['hostname'], message: hostnameNeedsWorkspace });
    }),
  );

/**
 * What the files group's routes take (interface §4.2), by the names the route table uses.
 * Its answers are in filesReplies.ts.
 */
export const filesRequests = {
  /** A new upload, or `{resume}` to carry on with one (fresh URLs for what S3 does not have). */
  FileUploadRequest: z.union([newUpload, z.strictObject({ resume: z.strictObject(uploadRef) })]),
  CompleteUploadRequest: z.strictObject({
    ...uploadRef,
    parts: z
      .array(
        z.strictObject({
          part_number: z.int().check(z.minimum(1), z.maximum(fileLimits.maxParts)),
          etag: z.string().check(z.minLength(1), z.maxLength(128)),
        }),
      )
      .check(z.minLength(1), z.maxLength(fileLimits.maxParts)),
  }),
  AbortUploadRequest: z.strictObject(uploadRef),
};
export type NewUploadRequest = z.output<typeof newUpload>;
