import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { systemClock, type Clock } from './clock.ts';
import { loadConfig, type Config } from './config.ts';
import type { SecretStore } from './domain/secrets/ports.ts';
import type { RateCounter } from './http/rateLimit.ts';
import { defaultRateLimits, secretLimits, type RateLimits } from './limits.ts';
import { createLogger, type AppLogger } from './logger.ts';
import { createDocumentClient } from './store/client.ts';
import { DynamoRateCounter } from './store/rateLimits.ts';
import { DynamoSecretStore } from './store/secrets.ts';

/** Everything a function needs, built once per Lambda instance (or once by the local runtime). */
export interface Deps {
  config: Config;
  clock: Clock;
  logger: AppLogger;
  secrets: SecretStore;
  rateCounter: RateCounter;
  rateLimits: RateLimits;
}

export interface DepsOverrides {
  clock?: Clock;
  rateLimits?: RateLimits;
  logger?: AppLogger;
  /** Sees the DynamoDB client before any store uses it (the claim bench meters requests here). */
  instrumentDynamo?: (client: DynamoDBDocumentClient) => void;
}

/** The real wiring, used by Lambda (from its environment) and by the local runtime alike. */
export function buildDeps(config: Config = loadConfig(), overrides: DepsOverrides = {}): Deps {
  const db = createDocumentClient({ region: config.REGION, endpoint: config.DYNAMODB_ENDPOINT });
  overrides.instrumentDynamo?.(db);
  return {
    config,
    clock: overrides.clock ?? systemClock,
    logger: overrides.logger ?? createLogger(config),
    secrets: new DynamoSecretStore(db, config.TABLE_NAME, secretLimits.tombstoneSeconds),
    rateCounter: new DynamoRateCounter(db, config.TABLE_NAME),
    rateLimits: overrides.rateLimits ?? defaultRateLimits,
  };
}

/**
 * A Lambda entry point: builds the dependencies from the environment on first use, so
 * importing a function module (as the local runtime does) creates no clients.
 */
export function lambdaEntry<E, C, R>(create: (deps: Deps) => (event: E, context: C) => Promise<R>) {
  let handler: ((event: E, context: C) => Promise<R>) | undefined;
  return (event: E, context: C): Promise<R> => {
    handler ??= create(buildDeps());
    return handler(event, context);
  };
}
