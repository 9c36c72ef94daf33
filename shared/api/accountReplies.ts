import * as z from 'zod/mini';
import { features, plans } from '../domain/plans.ts';
import { languages } from '../languages.ts';
import { scopes } from '../routes.ts';
import { Accepted, nullableTimestamp, page, timestamp } from './output.ts';

const IssuedTokens = z.strictObject({
  /** ES256 JWT, 15 minutes; verify with the keys at /v1/auth/jwks. */
  access_token: z.string(),
  /**
   * Rotated by every refresh; a rotated one presented again signs the session out. Absent when
   * the browser asked for it as a cookie (`session_cookie`, or a refresh by the cookie): it is
   * then in the `Set-Cookie` header only (ADR 0178).
   */
  refresh_token: z.optional(z.string()),
  token_type: z.literal('Bearer'),
  expires_in: z.int(),
  user: z.strictObject({ id: z.string(), email: z.string() }),
});

const ApiKeyView = z.strictObject({
  id: z.string(),
  name: z.string(),
  /** The key's first 16 characters, to recognise it by. */
  prefix: z.string(),
  scopes: z.array(z.enum(scopes)),
  created_at: timestamp,
  expires_at: nullableTimestamp,
  last_used_at: nullableTimestamp,
});

/**
 * What the account group's routes answer, by the names the route table uses: the types its
 * handlers are held to, and the document's. Never parsed at run time, so no function bundles it.
 */
export const accountReplies = {
  CodeSent: z.strictObject({ sent: z.literal(true) }),
  IssuedTokens,
  Jwks: z.strictObject({
    keys: z.array(
      z.strictObject({
        kty: z.literal('EC'),
        crv: z.literal('P-256'),
        x: z.string(),
        y: z.string(),
        kid: z.string(),
        alg: z.literal('ES256'),
        use: z.literal('sig'),
      }),
    ),
  }),
  SessionList: page(
    z.strictObject({ id: z.string(), device_name: z.string(), created_at: timestamp, last_used_at: timestamp, current: z.boolean() }),
  ),
  SignedOut: z.strictObject({ signed_out: z.literal(true) }),
  SignedOutEverywhere: z.strictObject({ signed_out: z.int() }),
  TermsAccepted: z.strictObject({ version: z.string(), accepted_at: timestamp }),
  /** The signed-in account; `locale` is the language its mails go out in, null when none was chosen (issue 32). */
  Account: z.strictObject({ id: z.string(), email: z.string(), locale: z.nullable(z.enum(languages)) }),
  AdoptionResult: z.strictObject({
    items: z.array(
      z.union([
        z.strictObject({ id: z.string(), adopted: z.literal(true) }),
        z.strictObject({ id: z.string(), adopted: z.literal(false), reason: z.enum(['not_found', 'forbidden', 'ended', 'owned']) }),
      ]),
    ),
  }),
  ApiKeyList: page(ApiKeyView),
  /** `key` is the value itself: shown here once, stored only as a hash. */
  CreatedApiKey: z.strictObject({ ...ApiKeyView.def.shape, key: z.string() }),
  ApiKeyRevoked: z.strictObject({ revoked: z.literal(true) }),
  Usage: z.strictObject({
    live_secrets: z.int(),
    bytes_stored: z.int(),
    calls_this_month: z.int(),
    /** `yyyy-mm`, UTC. */
    month: z.string(),
    plan: z.enum(plans),
  }),
  UsageHistory: page(z.strictObject({ date: z.string(), live_secrets: z.int(), bytes_stored: z.int(), calls: z.int() })),
  Flags: z.strictObject({
    flags: z.strictObject({
      ...Object.fromEntries(features.map((feature) => [feature, z.boolean()])),
      signed_in: z.boolean(),
    }) as z.ZodMiniObject<Record<(typeof features)[number] | 'signed_in', z.ZodMiniBoolean>>,
  }),
  Regions: z.strictObject({
    current: z.strictObject({ id: z.string(), api_url: z.string() }),
    regions: z.array(z.strictObject({ id: z.string(), api_url: z.string(), current: z.boolean() })),
  }),
  Accepted,
};
