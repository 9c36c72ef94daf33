import { en } from 'zod/locales';
import * as z from 'zod/mini';
import { parseDnsServers } from './adapters/dnsTxt.ts';
import { defaultRateLimits, fileLimits, type RateLimit, type RateLimits } from './limits.ts';
import type { RateClass } from './routes.ts';

// English issue messages, as in shared/http/errors.ts (zod/mini loads no locale of its own).
if (!z.config().localeError) z.config(en());

/** A JSON-valued setting: parsed, or one issue saying what it must be. */
const json = (expected: string) =>
  z.pipe(
    z.string(),
    z.transform((raw: string, ctx) => {
      try {
        return JSON.parse(raw) as unknown;
      } catch {
        ctx.issues.push({ code: 'custom', message: `must be ${expected}`, input: raw });
        return z.NEVER;
      }
    }),
  );

const rateWindow = z.partial(
  z.strictObject({
    limit: z.int().check(z.minimum(1), z.maximum(1_000_000_000)),
    windowSeconds: z.int().check(z.minimum(1), z.maximum(86_400)),
  }),
);

/**
 * Operators' changes to the rate limits (`HUSHLINK_RATE_LIMITS`, CDK context `rateLimits`): per
 * rate class, the windows or single numbers to change, e.g.
 * `{"secret_claim":{"perIp":{"limit":600}}}`; everything not named keeps its default.
 */
export const rateLimitOverrides = z.strictObject(
  Object.fromEntries(
    Object.keys(defaultRateLimits).map((rate) => [
      rate,
      z.optional(z.strictObject({ perIp: z.optional(rateWindow), perCredential: z.optional(rateWindow) })),
    ]),
  ) as Record<
    RateClass,
    z.ZodMiniOptional<z.ZodMiniObject<{ perIp: z.ZodMiniOptional<typeof rateWindow>; perCredential: z.ZodMiniOptional<typeof rateWindow> }>>
  >,
);
export type RateLimitOverrides = z.infer<typeof rateLimitOverrides>;

/** The defaults with the operator's overrides laid over them, window by window. */
export function mergeRateLimits(overrides: RateLimitOverrides | undefined, defaults: RateLimits = defaultRateLimits): RateLimits {
  const merged = { ...defaults };
  for (const [rate, change] of Object.entries(overrides ?? {}) as Array<[RateClass, RateLimitOverrides[RateClass]]>) {
    if (!change) continue;
    const current: RateLimit = defaults[rate];
    merged[rate] = {
      perIp: { ...current.perIp, ...change.perIp },
      ...(current.perCredential || change.perCredential
        ? { perCredential: { ...(current.perCredential ?? current.perIp), ...change.perCredential } }
        : {}),
    };
  }
  return merged;
}

/** Drops trailing slashes of a URL that was already validated. */
const withoutTrailingSlash = z.transform((url: string) => url.replace(/\/+$/, ''));

/**
 * Every setting the service reads, validated once at start. Lambda reads them from the
 * environment the stack sets; the local runtime passes the same names with local defaults.
 */
const configSchema = z.pipe(
  z
    .object({
      /** `local` allows what only makes sense on a developer's machine (the /_dev routes). */
      HUSHLINK_MODE: z._default(z.enum(['aws', 'local']), 'aws'),
      TABLE_NAME: z.string().check(z.minLength(1)),
      /** Origin of the web client; `url_base` of a secret is `${WEB_ORIGIN}/s/${id}`. */
      WEB_ORIGIN: z.pipe(z.url(), withoutTrailingSlash),
      /** Region this deployment serves. */
      REGION: z._default(z.string().check(z.minLength(1)), 'us-east-1'),
      /** Only for local emulators; unset in AWS. */
      DYNAMODB_ENDPOINT: z.optional(z.url()),
      LOG_LEVEL: z._default(z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT']), 'INFO'),
      /**
       * The value CloudFront adds to API requests (shared/http/clientAddress.ts); unset in local
       * mode and on functions no request reaches through CloudFront.
       */
      ORIGIN_VERIFY: z.optional(z.string().check(z.minLength(32))),
      /** The work queue (webhook relay and deliveries); unset locally, where it is in process. */
      QUEUE_URL: z.optional(z.url()),
      /** KMS key sealing webhook signing secrets; only the functions that seal or open them get it. */
      WEBHOOK_KEY_ID: z.optional(z.string().check(z.minLength(1))),
      /** The files bucket (file secrets' envelopes); only the functions that sign for it or delete from it get it. */
      FILES_BUCKET: z.optional(z.string().check(z.minLength(3), z.maxLength(63))),
      /**
       * The payment provider (Stripe). In AWS the secret API key and the webhook signing secret
       * are in Secrets Manager (`STRIPE_SECRETS_ARN`, a JSON `{secret_key, webhook_secret}`),
       * read at cold start by the functions that call the provider, never in a template or a log;
       * locally they are given directly, with `STRIPE_API_URL` naming the emulator.
       */
      STRIPE_SECRETS_ARN: z.optional(z.string().check(z.regex(/^arn:aws[a-z-]*:secretsmanager:/))),
      STRIPE_SECRET_KEY: z.optional(z.string().check(z.regex(/^(sk|rk)_/))),
      STRIPE_WEBHOOK_SECRET: z.optional(z.string().check(z.regex(/^whsec_/))),
      STRIPE_API_URL: z.optional(z.url({ protocol: /^https?$/ })),
      /**
       * The chat integration (Slack, issue 19): its app's client id, and its client secret and
       * request signing secret, in Secrets Manager in AWS (`SLACK_SECRETS_ARN`, a JSON
       * `{client_secret, signing_secret}`, read at cold start by the functions that need them,
       * never in a template or a log), given directly locally, with `SLACK_API_URL` naming the
       * emulator. Without a client id the chat routes answer 403 `chat_not_configured`.
       */
      SLACK_CLIENT_ID: z.optional(z.string().check(z.regex(/^[0-9]+\.[0-9]+$/))),
      SLACK_SECRETS_ARN: z.optional(z.string().check(z.regex(/^arn:aws[a-z-]*:secretsmanager:/))),
      SLACK_CLIENT_SECRET: z.optional(z.string().check(z.regex(/^[0-9a-f]{32}$/))),
      SLACK_SIGNING_SECRET: z.optional(z.string().check(z.regex(/^[0-9a-f]{32}$/))),
      SLACK_API_URL: z.optional(z.url({ protocol: /^https?$/ })),
      /** The prices sold: Pro per account a month, and a Team seat a month (CDK context in AWS). */
      PRICE_PRO: z._default(z.string().check(z.minLength(1)), 'price_pro_monthly'),
      PRICE_TEAM_SEAT: z._default(z.string().check(z.minLength(1)), 'price_team_seat_monthly'),
      /**
       * The DNS servers custom domains' TXT records are looked up at, comma-separated `ip` or
       * `ip:port` (shared/adapters/dnsTxt.ts); unset or empty: the system's. The local runtime
       * names its own DNS server (local/dns.ts).
       */
      DNS_SERVERS: z.optional(
        z.pipe(
          z.string(),
          z.transform((raw, context) => {
            try {
              return parseDnsServers(raw);
            } catch (error) {
              context.issues.push({ code: 'custom', input: raw, message: (error as Error).message });
              return z.NEVER;
            }
          }),
        ),
      ),
      /**
       * Where verified custom hostnames are served (shared/adapters/cloudfrontTenants.ts): the
       * stack's multi-tenant distribution, its connection group and that group's routing endpoint,
       * every hostname's CNAME target. Only the schedule function gets them; unset locally.
       */
      CUSTOM_HOSTNAMES_DISTRIBUTION_ID: z.optional(z.string().check(z.regex(/^E[A-Z0-9]{5,}$/))),
      CUSTOM_HOSTNAMES_CONNECTION_GROUP_ID: z.optional(z.string().check(z.regex(/^cg_[A-Za-z0-9]+$/))),
      CUSTOM_HOSTNAMES_TARGET: z.optional(z.string().check(z.regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/))),
      /**
       * Uploads larger than this many bytes complete in the background (the completion sweep):
       * S3 may take minutes to complete a large one, longer than a request may last.
       */
      INLINE_COMPLETION_BYTES: z._default(
        z.pipe(z.union([z.string(), z.number()]), z.pipe(z.transform(Number), z.int().check(z.positive()))),
        fileLimits.inlineCompletionBytes,
      ),
      /** Where enterprise enquiries are mailed. */
      SALES_EMAIL: z._default(z.email(), 'sales@hushlink.local'),
      /** Sender of sign-in codes and notices; an SES-verified identity in AWS. */
      MAIL_FROM: z._default(z.email(), 'no-reply@hushlink.local'),
      /**
       * Every region the service is deployed to, as a JSON array of `{id, api_url}` (served by
       * `GET /v1/regions`); it must name `REGION`. Unset: this region alone, at `WEB_ORIGIN`.
       */
      REGIONS: z.optional(
        z.pipe(
          json('a JSON array of {id, api_url}'),
          z
            .array(
              z.strictObject({
                id: z.string().check(z.minLength(1), z.maxLength(64)),
                api_url: z.pipe(z.url({ protocol: /^https?$/ }), withoutTrailingSlash),
              }),
            )
            .check(
              z.minLength(1),
              z.refine((regions) => new Set(regions.map((region) => region.id)).size === regions.length, 'region ids must be unique'),
            ),
        ),
      ),
      /** Changes to the default rate limits (`shared/limits.ts`), as JSON; see `rateLimitOverrides`. */
      HUSHLINK_RATE_LIMITS: z.optional(z.pipe(json('a JSON object of rate classes'), rateLimitOverrides)),
    })
    .check(
      z.refine((config) => !config.REGIONS || config.REGIONS.some((region) => region.id === config.REGION), {
        path: ['REGIONS'],
        message: 'must include REGION',
      }),
    ),
  z.transform(({ HUSHLINK_RATE_LIMITS: rateOverrides, ...config }) => ({
    ...config,
    REGIONS: config.REGIONS ?? [{ id: config.REGION, api_url: config.WEB_ORIGIN }],
    /** The limits every function enforces: the defaults with `HUSHLINK_RATE_LIMITS` over them. */
    rateLimits: mergeRateLimits(rateOverrides),
  })),
);

export type Config = z.infer<typeof configSchema>;

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.flatMap((issue) =>
      // Name each unknown key where it stands, so a typo points at itself.
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => `${[...issue.path, key].join('.')}: is not a known name here`)
        : [`${issue.path.join('.')}: ${issue.message}`],
    );
    throw new Error(`Invalid configuration: ${problems.join('; ')}`);
  }
  return parsed.data;
}
