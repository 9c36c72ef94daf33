import * as z from 'zod/mini';
import { page, timestamp } from './output.ts';
import { requestKems } from '../domain/requests/kems.ts';

/** What every response in the inbox carries besides its sealed secret: what opens it, for the requester's key alone. */
const sealedResponse = {
  response_id: z.string(),
  created_at: timestamp,
  /** The envelope's salt, as any secret's. */
  salt: z.string(),
  /** The envelope's length in bytes. */
  size_bytes: z.int(),
  /** HPKE's encapsulated key, base64url. */
  enc: z.string(),
  /** The key the envelope is sealed under, sealed to the requester's public key (HPKE, PSK mode), base64url. */
  wrapped_key: z.string(),
};

/** What the requests group's routes answer: types and the document only, never parsed at run time. */
export const requestsReplies = {
  RequestCreated: z.strictObject({
    id: z.string(),
    /** The requester appends `#`, the public key's fingerprint, `.` and the link secret. */
    url_base: z.string(),
    expires_at: timestamp,
  }),
  RequestList: page(
    z.strictObject({
      id: z.string(),
      /** Taking responses: neither closed nor expired, and not full. */
      open: z.boolean(),
      created_at: timestamp,
      expires_at: timestamp,
      responses: z.int(),
      max_responses: z.int(),
      /** Its private label as sealed in the requester's browser (standard base64), when it has one. */
      label_envelope: z.optional(z.string()),
    }),
  ),
  /** What a responder's page needs: never who asked. */
  RequestLink: z.strictObject({
    id: z.string(),
    public_key: z.string(),
    kem: z.enum(requestKems),
    /** The sealed prompt (standard base64 of an envelope v1), or null. */
    prompt_envelope: z.nullable(z.string()),
    open: z.boolean(),
    expires_at: timestamp,
    responses_left: z.int(),
  }),
  RequestClosed: z.strictObject({ id: z.string(), open: z.literal(false) }),
  Inbox: page(
    z.union([
      z.strictObject({ ...sealedResponse, kind: z.literal('text'), envelope: z.string() }),
      z.strictObject({
        ...sealedResponse,
        kind: z.literal('file'),
        /** A presigned GET of the file's envelope (accepts `Range`), issued with this answer. */
        download: z.strictObject({ url: z.string(), expires_at: timestamp }),
      }),
    ]),
  ),
  ResponseCreated: z.strictObject({ response_id: z.string() }),
};
