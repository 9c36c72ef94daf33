import { en } from 'zod/locales';
import * as z from 'zod/mini';

// English issue messages, as in shared/http/errors.ts (zod/mini loads no locale of its own).
if (!z.config().localeError) z.config(en());

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
      /** Sender of sign-in codes and notices; an SES-verified identity in AWS. */
      MAIL_FROM: z._default(z.email(), 'no-reply@hushlink.local'),
      /**
       * Every region the service is deployed to, as a JSON array of `{id, api_url}` (served by
       * `GET /v1/regions`); it must name `REGION`. Unset: this region alone, at `WEB_ORIGIN`.
       */
      REGIONS: z.optional(
        z.pipe(
          z.pipe(
            z.string(),
            z.transform((raw: string, ctx) => {
              try {
                return JSON.parse(raw) as unknown;
              } catch {
                ctx.issues.push({ code: 'custom', message: 'must be a JSON array of {id, api_url}', input: raw });
                return z.NEVER;
              }
            }),
          ),
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
    })
    .check(
      z.refine((config) => !config.REGIONS || config.REGIONS.some((region) => region.id === config.REGION), {
        path: ['REGIONS'],
        message: 'must include REGION',
      }),
    ),
  z.transform((config) => ({ ...config, REGIONS: config.REGIONS ?? [{ id: config.REGION, api_url: config.WEB_ORIGIN }] })),
);

export type Config = z.infer<typeof configSchema>;

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid configuration: ${problems.join('; ')}`);
  }
  return parsed.data;
}
