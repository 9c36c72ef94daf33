import * as z from 'zod/mini';
import { secretLimits } from '../../limits.ts';

/** Standard base64 with padding, as the interface asks for the envelope. */
const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** 16 bytes as unpadded base64url: 22 characters, the last one carrying only 2 bits. */
export const saltPattern = /^[A-Za-z0-9_-]{21}[AQgw]$/;
/** 32 bytes (a SHA-256) as unpadded base64url: 43 characters, the last one carrying 4 bits. */
export const digestPattern = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;
/** Secret ids: `sec_` and 16 random bytes as base64url. */
export const secretIdPattern = /^sec_[A-Za-z0-9_-]{21}[AQgw]$/;

const { expiresInSeconds, maxViews, textEnvelopeBytes } = secretLimits;

/** Largest base64 text that can decode to an allowed envelope; longer strings fail before decoding. */
const maxEnvelopeChars = Math.ceil(textEnvelopeBytes / 3) * 4;

export const createSecretRequest = z
  .strictObject({
    kind: z.literal('text', { error: "kind must be 'text'; files go through /v1/files" }),
    envelope: z
      .string()
      .check(
        z.minLength(1, 'envelope must not be empty'),
        z.maxLength(maxEnvelopeChars, `envelope must decode to at most ${textEnvelopeBytes} bytes`),
        z.regex(base64, 'envelope must be standard base64 with padding'),
      ),
    salt: z.string().check(z.regex(saltPattern, 'salt must be 22 base64url characters encoding 16 bytes')),
    size_bytes: z.int().check(z.minimum(1), z.maximum(textEnvelopeBytes)),
    expires_in: z._default(z.int().check(z.minimum(expiresInSeconds.min), z.maximum(expiresInSeconds.max)), expiresInSeconds.default),
    max_views: z._default(z.int().check(z.minimum(maxViews.min), z.maximum(maxViews.max)), maxViews.default),
    claim_verifier: z.optional(z.string().check(z.regex(digestPattern, 'claim_verifier must be a base64url SHA-256 (43 characters)'))),
    not_before: z.optional(z.iso.datetime({ offset: true })),
  })
  .check(
    z.superRefine((body, ctx) => {
      const decoded = decodedBase64Length(body.envelope);
      if (decoded > textEnvelopeBytes) {
        ctx.addIssue({ code: 'custom', path: ['envelope'], message: `envelope must decode to at most ${textEnvelopeBytes} bytes` });
      } else if (decoded !== body.size_bytes) {
        ctx.addIssue({ code: 'custom', path: ['size_bytes'], message: 'size_bytes must equal the decoded length of envelope' });
      }
    }),
  );

export type CreateSecretRequest = z.infer<typeof createSecretRequest>;

/** Length of the bytes a valid padded base64 string decodes to, without decoding it. */
export function decodedBase64Length(text: string): number {
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  return (text.length / 4) * 3 - padding;
}
