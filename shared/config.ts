import * as z from 'zod';

/**
 * Every setting the service reads, validated once at start. Lambda reads them from the
 * environment the stack sets; the local runtime passes the same names with local defaults.
 */
const configSchema = z.object({
  /** `local` allows what only makes sense on a developer's machine (the /_dev routes). */
  HUSHLINK_MODE: z.enum(['aws', 'local']).default('aws'),
  TABLE_NAME: z.string().min(1),
  /** Origin of the web client; `url_base` of a secret is `${WEB_ORIGIN}/s/${id}`. */
  WEB_ORIGIN: z.url().transform((origin) => origin.replace(/\/+$/, '')),
  /** Region this deployment serves. */
  REGION: z.string().min(1).default('us-east-1'),
  /** Only for local emulators; unset in AWS. */
  DYNAMODB_ENDPOINT: z.url().optional(),
  LOG_LEVEL: z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT']).default('INFO'),
  /** Sender of sign-in codes and notices; an SES-verified identity in AWS. */
  MAIL_FROM: z.email().default('no-reply@hushlink.local'),
  /**
   * Every region the service is deployed to, as a JSON array of `{id, api_url}` (served by
   * `GET /v1/regions`); it must name `REGION`. Unset: this region alone, at `WEB_ORIGIN`.
   */
  REGIONS: z
    .string()
    .transform((raw, ctx) => {
      try {
        return JSON.parse(raw) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be a JSON array of {id, api_url}' });
        return z.NEVER;
      }
    })
    .pipe(
      z
        .array(z.strictObject({ id: z.string().min(1).max(64), api_url: z.url({ protocol: /^https?$/ }).transform((url) => url.replace(/\/+$/, '')) }))
        .min(1)
        .refine((regions) => new Set(regions.map((region) => region.id)).size === regions.length, 'region ids must be unique'),
    )
    .optional(),
})
  .refine((config) => !config.REGIONS || config.REGIONS.some((region) => region.id === config.REGION), {
    path: ['REGIONS'],
    message: 'must include REGION',
  })
  .transform((config) => ({ ...config, REGIONS: config.REGIONS ?? [{ id: config.REGION, api_url: config.WEB_ORIGIN }] }));

export type Config = z.infer<typeof configSchema>;

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid configuration: ${problems.join('; ')}`);
  }
  return parsed.data;
}
