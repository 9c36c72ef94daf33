import * as z from 'zod/mini';
import { requestLimits, secretLimits } from '../limits.ts';
import { decodedBase64Length } from '../domain/secrets/rules.ts';
import { requestKems } from '../domain/requests/kems.ts';
import { pageQuery } from './input.ts';
import { base64Envelope, hostnameNeedsWorkspace, labelEnvelope, linkHostname, salt } from './secrets.ts';

const { expiresInSeconds, maxResponses, promptEnvelopeBytes, listPageSize, inboxPageSize } = requestLimits;

/** Unpadded base64url, as keys and HPKE's outputs travel. */
const base64url = (what: string, maxChars: number) =>
  z
    .string()
    .check(
      z.minLength(1, `${what} must not be empty`),
      z.maxLength(maxChars),
      z.regex(/^[A-Za-z0-9_-]+$/, `${what} must be unpadded base64url`),
    );

/** A key's wire form: at most a P-256 point (65 bytes, 87 characters); the domain checks the exact length and the point. */
const keyBytes = (what: string) => base64url(what, 88);

/**
 * HPKE's outputs for one response: `enc`, the encapsulated key, and `wrapped_key`, the 32-byte
 * key its envelope was sealed under, sealed to the requester (lengths checked against the
 * request's KEM by the domain).
 */
export const wrappedKeyFields = {
  enc: keyBytes('enc'),
  wrapped_key: base64url('wrapped_key', 128),
};

const createRequestRequest = z
  .strictObject({
    public_key: keyBytes('public_key'),
    kem: z.enum(requestKems),
    /** The prompt, sealed (an envelope v1 under a key only link holders derive); the server never reads it. */
    prompt_envelope: z.optional(base64Envelope(promptEnvelopeBytes)),
    expires_in: z._default(z.int().check(z.minimum(expiresInSeconds.min), z.maximum(expiresInSeconds.max)), expiresInSeconds.default),
    max_responses: z._default(z.int().check(z.minimum(maxResponses.min), z.maximum(maxResponses.max)), maxResponses.default),
    workspace_id: z.optional(z.string().check(z.maxLength(64))),
    /** With `workspace_id`: `url_base` is on this hostname the workspace verified, and responders reach the link there and on this service's own host only. */
    hostname: z.optional(linkHostname),
    /** A private label sealed in the requester's browser: kept, and answered in their own listing alone. */
    label_envelope: z.optional(labelEnvelope),
  })
  .check(
    z.superRefine((body, ctx) => {
      if (body.hostname !== undefined && body.workspace_id === undefined)
        ctx.addIssue({ code: 'custom', path: ['hostname'], message: hostnameNeedsWorkspace });
    }),
  );
export type CreateRequestRequest = z.output<typeof createRequestRequest>;

const responseRequest = z
  .strictObject({
    kind: z.literal('text', { error: "kind must be 'text'; a file response goes through /v1/files/multipart with request_id" }),
    envelope: base64Envelope(secretLimits.textEnvelopeBytes),
    salt,
    size_bytes: z.int().check(z.minimum(1), z.maximum(secretLimits.textEnvelopeBytes)),
    ...wrappedKeyFields,
  })
  .check(
    z.superRefine((body, ctx) => {
      if (decodedBase64Length(body.envelope) !== body.size_bytes)
        ctx.addIssue({ code: 'custom', path: ['size_bytes'], message: 'size_bytes must equal the decoded length of envelope' });
    }),
  );
export type ResponseRequest = z.output<typeof responseRequest>;

/**
 * What the requests group's routes take (interface §4.3), by the names the route table uses.
 * Its answers are in requestsReplies.ts.
 */
export const requestsRequests = {
  CreateRequestRequest: createRequestRequest,
  RequestListQuery: pageQuery(listPageSize),
  InboxQuery: pageQuery(inboxPageSize),
  ResponseRequest: responseRequest,
};
