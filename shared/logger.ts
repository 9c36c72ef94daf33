import { Logger } from '@aws-lambda-powertools/logger';
import type { Config } from './config.ts';

/**
 * Structured JSON logs. Log calls pass ids, routes, statuses and timings only: never bodies,
 * tokens, envelopes or query strings.
 */
export type AppLogger = Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;

export function createLogger(config: Pick<Config, 'LOG_LEVEL'>): AppLogger {
  return new Logger({ serviceName: 'hushlink', logLevel: config.LOG_LEVEL });
}
