import { Logger } from '@aws-lambda-powertools/logger';
import type { Config } from './config.ts';

/**
 * Keys Powertools writes itself: an attribute of the same name is dropped from the line (with
 * a warning line instead), so a 500's `message` once never reached the log. Errors log theirs
 * as `error_message`.
 */
type ReservedKey = 'level' | 'message' | 'sampling_rate' | 'service' | 'timestamp';

/** A line's own attributes: ids, routes, statuses, timings, error names and messages. */
export type LogAttributes = Record<string, unknown> & { [key in ReservedKey]?: never };

type LogMethod = (message: string, attributes?: LogAttributes) => void;

/**
 * Structured JSON logs. Log calls pass ids, routes, statuses and timings only: never bodies,
 * tokens, envelopes or query strings; a reserved key is a type error.
 */
export interface AppLogger {
  debug: LogMethod;
  info: LogMethod;
  warn: LogMethod;
  error: LogMethod;
}

export function createLogger(config: Pick<Config, 'LOG_LEVEL'>): AppLogger {
  const logger = new Logger({ serviceName: 'hushlink', logLevel: config.LOG_LEVEL });
  return {
    debug: (message, attributes = {}) => logger.debug(message, attributes),
    info: (message, attributes = {}) => logger.info(message, attributes),
    warn: (message, attributes = {}) => logger.warn(message, attributes),
    error: (message, attributes = {}) => logger.error(message, attributes),
  };
}
