import * as z from 'zod/mini';
import { decodedBase64Length, digestPattern, labelEnvelopeBytes, saltPattern } from '../domain/secrets/rules.ts';
import { secretLimits } from '../limits.ts';
import { lenient, pageQuery } from './input.ts';

const { expiresInSeconds, maxViews, textEnvelopeBytes, recipients, recipientLabelChars, receiptsPageSize } = secretLimits;

/** An address as the mailer takes it. */
export const email = z.email().check(z.maxLength(254));

/** One per-recipient link asked for at creation. */
export const recipientRequest = z
  .strictObject({
    label: z.optional(z.string().check(z.minLength(1), z.maxLength(recipientLabelChars))),
    email: z.optional(email),
    /** Only the holder of `email` may open it, after proving the address with an emailed code. */
    restricted: z.optional(z.boolean()),
  })
  .check(
    z.refine((recipient) => !recipient.restricted || recipient.email !== undefined, {
      path: ['email'],
      message: 'a restricted recipient needs an email',
    }),
  );
export const recipientId = z.string().check(z.maxLength(64));

/** Standard base64 with padding, as the interface asks for the envelope. */
const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** An envelope as standard base64 decoding to at most `maxBytes` (longer strings fail before decoding). */
export const base64Envelope = (maxBytes: number) =>
  z
    .string()
    .check(
      z.minLength(1, 'envelope must not be empty'),
      z.maxLength(Math.ceil(maxBytes / 3) * 4, `envelope must decode to at most ${maxBytes} bytes`),
      z.regex(base64, 'envelope must be standard base64 with padding'),
    );

/**
 * A private label, sealed in its owner's browser (docs/adr/0180): standard base64 of at most
 * `labelEnvelopeBytes`, kept with the item and answered to its owner alone.
 */
export const labelEnvelope = base64Envelope(labelEnvelopeBytes).check(
  z.refine((text) => decodedBase64Length(text) <= labelEnvelopeBytes, `label_envelope must decode to at most ${labelEnvelopeBytes} bytes`),
);

/** A 16-byte salt as the envelope's header holds it. */
export const salt = z.string().check(z.regex(saltPattern, 'salt must be 22 base64url characters encoding 16 bytes'));

/**
 * The workspace's verified hostname a link is to be on (issue 17), with its `workspace_id`. Only
 * bounded here (a claim's bound); which hostnames are the workspace's is the domain's to say
 * (shared/domain/domains/linkHosts.ts).
 */
export const linkHostname = z.string().check(z.minLength(1), z.maxLength(300));

/** Why a `hostname` without a `workspace_id` is refused. */
export const hostnameNeedsWorkspace = 'a hostname is a workspace’s: send it with workspace_id';

const createSecretRequest = z
  .strictObject({
    kind: z.literal('text', { error: "kind must be 'text'; files go through /v1/files" }),
    envelope: base64Envelope(textEnvelopeBytes),
    salt,
    size_bytes: z.int().check(z.minimum(1), z.maximum(textEnvelopeBytes)),
    expires_in: z._default(z.int().check(z.minimum(expiresInSeconds.min), z.maximum(expiresInSeconds.max)), expiresInSeconds.default),
    max_views: z._default(z.int().check(z.minimum(maxViews.min), z.maximum(maxViews.max)), maxViews.default),
    claim_verifier: z.optional(z.string().check(z.regex(digestPattern, 'claim_verifier must be a base64url SHA-256 (43 characters)'))),
    /** Per-recipient links: one each, sharing the envelope and key, each with its own `max_views`. */
    recipients: z.optional(z.array(recipientRequest).check(z.minLength(recipients.min), z.maxLength(recipients.max))),
    /** SHA-256 of the link token (docs/envelope.md): only a claim proving the link counts towards a lock. */
    link_verifier: z.optional(z.string().check(z.regex(digestPattern, 'link_verifier must be a base64url SHA-256 (43 characters)'))),
    not_before: z.optional(z.iso.datetime({ offset: true })),
    /** Sent inside a workspace the caller is a member of: its policy must allow the secret (interface §4.7). */
    workspace_id: z.optional(z.string().check(z.maxLength(64))),
    /** With `workspace_id`: `url_base` (and each link's) is on this hostname the workspace verified, and the secret is read there and on this service's own host only. */
    hostname: z.optional(linkHostname),
    /** A private label sealed in the sender's browser: the server keeps the bytes and answers them to the owner alone. */
    label_envelope: z.optional(labelEnvelope),
  })
  .check(
    z.superRefine((body, ctx) => {
      if (body.hostname !== undefined && body.workspace_id === undefined)
        ctx.addIssue({ code: 'custom', path: ['hostname'], message: hostnameNeedsWorkspace });
      const decoded = decodedBase64Length(body.envelope);
      if (decoded > textEnvelopeBytes) {
        ctx.addIssue({ code: 'custom', path: ['envelope'], message: `envelope must decode to at most ${textEnvelopeBytes} bytes` });
      } else if (decoded !== body.size_bytes) {
        ctx.addIssue({ code: 'custom', path: ['size_bytes'], message: 'size_bytes must equal the decoded length of envelope' });
      }
    }),
  );
export type CreateSecretRequest = z.infer<typeof createSecretRequest>;

/**
 * What the secrets group's routes take (interface §4.1), by the names the route table uses;
 * the group handler parses with them. Its answers are in secretsReplies.ts.
 */
export const secretsRequests = {
  CreateSecretRequest: createSecretRequest,
  SecretListQuery: pageQuery({ default: 25, max: 100 }),
  /** Optional and never refused: a body that is not an object, or a token that is not a string, is no proof. */
  ClaimRequest: lenient(
    z.object({
      claim_token: z.optional(z.string()),
      link_token: z.optional(z.string()),
      /** The link claimed through (required once a secret has recipients). */
      recipient_id: z.optional(z.string()),
      /** A restricted link's gate session (`POST .../gate/verify`). */
      gate_token: z.optional(z.string()),
    }),
  ),
  /** A recipient's link reads its own state too (`?recipient_id=`). */
  SecretReadQuery: z.strictObject({ recipient_id: z.optional(recipientId) }),
  ReceiptListQuery: pageQuery(receiptsPageSize),
  /**
   * Curl mode's limits (seconds, views). Never refused (the route lists no 400): a value that is
   * not a whole number takes the default, one out of bounds the nearest bound; unknown
   * parameters are ignored.
   */
  CurlQuery: lenient(z.object({ expires_in: z.optional(z.string()), max_views: z.optional(z.string()) })),
  ReportRequest: z.strictObject({
    secret_id: z.string().check(z.maxLength(64)),
    reason: z.enum(['phishing', 'malware', 'harassment', 'illegal', 'other']),
    details: z.optional(z.string().check(z.maxLength(1000))),
    /** The link token of the secret (docs/envelope.md): a report locks nothing without it. */
    link_token: z.optional(z.string().check(z.maxLength(64))),
  }),
  RevealFeedbackRequest: z.strictObject({ rating: z.enum(['up', 'down']) }),
};
