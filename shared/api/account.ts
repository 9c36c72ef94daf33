import * as z from 'zod/mini';
import { createApiKeyRequest } from '../domain/accounts/apiKeys.ts';
import { features, plans } from '../domain/plans.ts';
import { adoptSecretsRequest } from '../domain/secrets/owner.ts';
import { productEventRequest } from '../domain/usage/events.ts';
import { cliInstallRequest } from '../domain/usage/installs.ts';
import { usageHistoryQuery } from '../domain/usage/read.ts';
import { scopes } from '../routes.ts';
import { Accepted, lenient, nullableTimestamp, page, timestamp } from './common.ts';

const email = z.email().check(z.maxLength(254));

const IssuedTokens = z.strictObject({
  /** ES256 JWT, 15 minutes; verify with the keys at /v1/auth/jwks. */
  access_token: z.string(),
  /** Rotated by every refresh; a rotated one presented again signs the session out. */
  refresh_token: z.string(),
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

/** The account group (interface §4.4): what its routes take and answer, by name. */
export const accountApi = {
  EmailRequest: z.strictObject({ email }),
  CodeSent: z.strictObject({ sent: z.literal(true) }),
  VerifyCodeRequest: z.strictObject({
    email,
    code: z.string().check(z.regex(/^\d{6}$/, 'the code is 6 digits')),
    device_name: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(100))),
  }),
  IssuedTokens,
  RefreshRequest: z.strictObject({ refresh_token: z.string().check(z.minLength(1), z.maxLength(200)) }),
  Jwks: z.strictObject({
    keys: z.array(z.strictObject({ kty: z.literal('EC'), crv: z.literal('P-256'), x: z.string(), y: z.string(), kid: z.string(), alg: z.literal('ES256'), use: z.literal('sig') })),
  }),
  SessionList: page(
    z.strictObject({ id: z.string(), device_name: z.string(), created_at: timestamp, last_used_at: timestamp, current: z.boolean() }),
  ),
  /** Optional and never refused: logging out always succeeds. */
  LogoutRequest: lenient(z.object({ refresh_token: z.optional(z.string()) })),
  SignedOut: z.strictObject({ signed_out: z.literal(true) }),
  SignedOutEverywhere: z.strictObject({ signed_out: z.int() }),
  TermsRequest: z.strictObject({ version: z.string().check(z.trim(), z.minLength(1), z.maxLength(40)) }),
  TermsAccepted: z.strictObject({ version: z.string(), accepted_at: timestamp }),
  AdoptSecretsRequest: adoptSecretsRequest,
  AdoptionResult: z.strictObject({
    items: z.array(
      z.union([
        z.strictObject({ id: z.string(), adopted: z.literal(true) }),
        z.strictObject({ id: z.string(), adopted: z.literal(false), reason: z.enum(['not_found', 'forbidden', 'ended', 'owned']) }),
      ]),
    ),
  }),
  ApiKeyList: page(ApiKeyView),
  CreateApiKeyRequest: createApiKeyRequest,
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
  UsageHistoryQuery: usageHistoryQuery,
  UsageHistory: page(z.strictObject({ date: z.string(), live_secrets: z.int(), bytes_stored: z.int(), calls: z.int() })),
  ProductEventRequest: productEventRequest,
  Flags: z.strictObject({
    flags: z.strictObject({ ...Object.fromEntries(features.map((feature) => [feature, z.boolean()])), signed_in: z.boolean() }) as z.ZodMiniObject<
      Record<(typeof features)[number] | 'signed_in', z.ZodMiniBoolean>
    >,
  }),
  Regions: z.strictObject({
    current: z.strictObject({ id: z.string(), api_url: z.string() }),
    regions: z.array(z.strictObject({ id: z.string(), api_url: z.string(), current: z.boolean() })),
  }),
  CliInstallRequest: cliInstallRequest,
  Accepted,
};
