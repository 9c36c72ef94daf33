import type { Platform } from '../platform.ts';
import type { ApiKeyStore, SessionStore } from '../domain/accounts/ports.ts';
import { SigningKeyList, TokenVerifier } from '../domain/accounts/tokenVerifier.ts';
import type { CallCounter } from '../domain/usage/ports.ts';
import { DynamoApiKeyStore } from '../store/apiKeys.ts';
import { DynamoRateCounter } from '../store/rateLimits.ts';
import { DynamoSessionStore } from '../store/sessions.ts';
import { DynamoSigningKeyStore } from '../store/signingKeys.ts';
import { DynamoCallCounter } from '../store/usage.ts';
import { RateLimiter } from './rateLimit.ts';

/**
 * What every API function carries, whichever group it serves: the platform, and what the
 * shared steps of a request use (rate limits, the caller's credential, the call counter).
 */
export interface ApiDeps extends Platform {
  rateLimiter: RateLimiter;
  sessions: SessionStore;
  apiKeys: ApiKeyStore;
  signingKeys: SigningKeyList;
  accessTokens: TokenVerifier;
  calls: CallCounter;
}

export function apiDeps(platform: Platform): ApiDeps {
  const { db, config, clock, logger } = platform;
  const signingKeys = new SigningKeyList(new DynamoSigningKeyStore(db, config.TABLE_NAME), clock);
  return {
    ...platform,
    rateLimiter: new RateLimiter(new DynamoRateCounter(db, config.TABLE_NAME), config.rateLimits, clock, logger),
    sessions: new DynamoSessionStore(db, config.TABLE_NAME),
    apiKeys: new DynamoApiKeyStore(db, config.TABLE_NAME),
    signingKeys,
    accessTokens: new TokenVerifier(signingKeys, clock, config.WEB_ORIGIN),
    calls: new DynamoCallCounter(db, config.TABLE_NAME),
  };
}
