import type { RateClass } from './routes.ts';

/** Every number the service enforces, in one place (DESIGN.md §3). */
export const secretLimits = {
  expiresInSeconds: { min: 60, max: 30 * 24 * 3600, default: 24 * 3600 },
  maxViews: { min: 1, max: 100, default: 1 },
  /** Decoded text envelope; files go through /v1/files. */
  textEnvelopeBytes: 256 * 1024,
  /** Refused claim proofs before a secret locks. */
  refusedProofsBeforeLock: 5,
  /** How long a terminal secret keeps its tombstone (state, no payload) before TTL removes it. */
  tombstoneSeconds: 30 * 24 * 3600,
} as const;

/** The local gateway refuses bodies over API Gateway's own payload limit. */
export const maxRequestBodyBytes = 10 * 1024 * 1024;

export interface RateWindow {
  /** Requests allowed per window. */
  limit: number;
  windowSeconds: number;
}

/** Fixed windows kept in DynamoDB, per client IP (and per credential once routes carry one). */
export interface RateLimit {
  perIp: RateWindow;
}

export type RateLimits = Record<RateClass, RateLimit>;

export const defaultRateLimits: RateLimits = {
  secret_create: { perIp: { limit: 60, windowSeconds: 60 } },
  secret_claim: { perIp: { limit: 30, windowSeconds: 60 } },
};
