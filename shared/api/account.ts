import * as z from 'zod/mini';
import { cliInstallSources, cliInstallSystems, usageLimits } from '../domain/usage/model.ts';
import { languages } from '../languages.ts';
import { credentialLimits } from '../limits.ts';
import { scopes } from '../routes.ts';
import { lenient } from './input.ts';

const email = z.email().check(z.maxLength(254));

const createApiKeyRequest = z.strictObject({
  name: z.string().check(z.trim(), z.minLength(1), z.maxLength(100)),
  scopes: z.array(z.enum(scopes)).check(
    z.minLength(1),
    z.maxLength(scopes.length),
    z.refine((list) => new Set(list).size === list.length, 'scopes must not repeat'),
  ),
  expires_in: z.optional(z.int().check(z.minimum(3600), z.maximum(credentialLimits.apiKeyMaxSeconds))),
});
export type CreateApiKeyRequest = z.infer<typeof createApiKeyRequest>;

const eventName = /^[a-z][a-z0-9_.]{2,63}$/;
const propertyName = /^[a-z][a-z0-9_.]{0,63}$/;
export const maxEventProperties = 20;

/**
 * Numbers as DynamoDB stores them: the document client refuses integers beyond ±(2^53 − 1)
 * (they would lose digits; every larger double is an integer), and DynamoDB refuses a magnitude
 * below 1e-130. A property outside is the caller's input, refused here, not a failed write.
 */
const storedNumberMagnitude = { max: Number.MAX_SAFE_INTEGER, minNonZero: 1e-130 } as const;
const storableNumber = z.number().check(
  z.minimum(-storedNumberMagnitude.max, 'numbers are at most 2^53 − 1 in magnitude'),
  z.maximum(storedNumberMagnitude.max, 'numbers are at most 2^53 − 1 in magnitude'),
  z.refine(
    (value) => value === 0 || Math.abs(value) >= storedNumberMagnitude.minNonZero,
    'numbers other than 0 are at least 1e-130 in magnitude',
  ),
);

/**
 * A product event: a name and at most 20 flat properties, each a short string, a number or a
 * boolean. Nothing else is accepted, so nothing else (no secret, no free text) can be stored.
 */
const productEventRequest = z.strictObject({
  name: z.string().check(z.regex(eventName, 'lowercase letters, digits, `_` and `.`, 3 to 64 characters, starting with a letter')),
  properties: z.optional(
    z
      .record(
        z.string().check(z.regex(propertyName, 'lowercase letters, digits, `_` and `.`, 1 to 64 characters, starting with a letter')),
        z.union([z.string().check(z.maxLength(200)), storableNumber, z.boolean()]),
      )
      .check(z.refine((properties) => Object.keys(properties).length <= maxEventProperties, `at most ${maxEventProperties} properties`)),
  ),
});
export type ProductEventRequest = z.infer<typeof productEventRequest>;

/** `1.2.3`, `v1.2`, `1.2.3-beta.1+build.5`: digits first, then what semver allows. */
const semverish = /^v?\d+(\.\d+){0,2}([-+][0-9A-Za-z.+-]+)?$/;
const cliInstallRequest = z.strictObject({
  source: z.enum(cliInstallSources),
  os: z.enum(cliInstallSystems),
  version: z.string().check(z.maxLength(32), z.regex(semverish, 'a version such as 1.4.2')),
});
export type CliInstallRequest = z.infer<typeof cliInstallRequest>;

const usageHistoryQuery = z.strictObject({
  days: z._default(
    z.coerce.number().check(z.int(), z.minimum(usageLimits.historyDays.min), z.maximum(usageLimits.historyDays.max)),
    usageLimits.historyDays.default,
  ),
});
export type UsageHistoryQuery = z.infer<typeof usageHistoryQuery>;

/**
 * What the account group's routes take (interface §4.4), by the names the route table uses;
 * the group handler parses with them. Its answers are in accountReplies.ts.
 */
export const accountRequests = {
  EmailRequest: z.strictObject({ email }),
  VerifyCodeRequest: z.strictObject({
    email,
    code: z.string().check(z.regex(/^\d{8}$/, 'the code is 8 digits')),
    device_name: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(100))),
    /** A browser's ask (ADR 0178): the refresh token as an HttpOnly cookie for /v1/auth, and none in the answer's body. */
    session_cookie: z.optional(z.boolean()),
  }),
  /** A sign-in link's token (`/signin#email=…&token=…`) with the address it was mailed to (ADR 0167). */
  SignInLinkRequest: z.strictObject({
    email,
    token: z.string().check(z.regex(/^hls_[A-Za-z0-9_-]{43}$/, 'the token from the sign-in link: hls_ and 43 characters')),
    device_name: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(100))),
    /** A browser's ask (ADR 0178): the refresh token as an HttpOnly cookie for /v1/auth, and none in the answer's body. */
    session_cookie: z.optional(z.boolean()),
  }),
  /** Single sign-on (issue 29): the address whose workspace's provider to go through, and where to land. */
  SsoStartQuery: z.strictObject({
    email,
    return_to: z.optional(z.string().check(z.maxLength(512))),
    /** A native client's (the CLI's) own PKCE challenge (S256), with the loopback address it listens on (RFC 8252). */
    client_challenge: z.optional(z.string().check(z.regex(/^[A-Za-z0-9_-]{43}$/, 'an S256 PKCE challenge: 43 base64url characters'))),
    loopback: z.optional(z.string().check(z.maxLength(200))),
  }),
  /** The provider's redirect back, by OAuth's names; what it carries is checked by the sign-in, not refused here. */
  SsoCallbackQuery: lenient(
    z.object({
      code: z.optional(z.string().check(z.maxLength(2048))),
      state: z.optional(z.string().check(z.maxLength(4096))),
      iss: z.optional(z.string().check(z.maxLength(2048))),
      error: z.optional(z.string().check(z.maxLength(256))),
      error_description: z.optional(z.string().check(z.maxLength(2048))),
    }),
  ),
  SsoExchangeRequest: z.strictObject({
    code: z.string().check(z.regex(/^hlx_[A-Za-z0-9_-]{43}$/, 'the one-time code from the sign-in page: hlx_ and 43 characters')),
    /** A native client's PKCE verifier for its `client_challenge`. */
    code_verifier: z.optional(z.string().check(z.regex(/^[A-Za-z0-9._~-]{43,128}$/, 'a PKCE verifier: 43 to 128 characters'))),
    device_name: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(100))),
    /** A browser's ask (ADR 0178): the refresh token as an HttpOnly cookie for /v1/auth, and none in the answer's body. */
    session_cookie: z.optional(z.boolean()),
  }),
  /** A browser signed in with `session_cookie` sends `{}`: its token is the cookie's (ADR 0178). */
  RefreshRequest: z.strictObject({ refresh_token: z.optional(z.string().check(z.minLength(1), z.maxLength(200))) }),
  /** Optional and never refused: logging out always succeeds. */
  LogoutRequest: lenient(z.object({ refresh_token: z.optional(z.string()) })),
  TermsRequest: z.strictObject({ version: z.string().check(z.trim(), z.minLength(1), z.maxLength(40)) }),
  /** The language of the account's mails (issue 32): one of the ten by its tag, or null to forget it. */
  AccountUpdateRequest: z.strictObject({ locale: z.nullable(z.enum(languages)) }),
  AdoptSecretsRequest: z.strictObject({
    secrets: z
      .array(z.strictObject({ id: z.string().check(z.maxLength(64)), delete_token: z.string().check(z.maxLength(128)) }))
      .check(z.minLength(1), z.maxLength(100)),
  }),
  CreateApiKeyRequest: createApiKeyRequest,
  UsageHistoryQuery: usageHistoryQuery,
  ProductEventRequest: productEventRequest,
  CliInstallRequest: cliInstallRequest,
};
