import { z } from 'zod';

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
});

export type Config = z.infer<typeof configSchema>;

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid configuration: ${problems.join('; ')}`);
  }
  return parsed.data;
}
