import type { SlackWorkspaces } from './workspaces.ts';

/** What every Web API method of the emulator shares: its state, the app's credentials, the record of calls, and the shape of an answer. */

/** One Web API call the emulator received, as tests assert it. Tokens and the client secret never appear. */
export interface RecordedCall {
  /** Slack's method name: `oauth.v2.access`, `conversations.open`, `chat.postMessage`. */
  method: string;
  httpMethod: string;
  path: string;
  /** Lower-cased; `authorization` keeps its scheme only (`Bearer [redacted]`). */
  headers: Record<string, string>;
  contentType: string | null;
  /** The arguments as parsed (form or JSON body, and the query); `token` and `client_secret` redacted. */
  body: Record<string, unknown>;
  /**
   * The credential and where it came from: a bot token's team and state, with the SHA-256 of the
   * token (first 16 hex digits, `tokenFingerprint`) so a test can tell which token was sent;
   * client credentials' id and whether the secret matched.
   */
  credential:
    | { kind: 'none' }
    | {
        kind: 'token';
        via: 'bearer' | 'field';
        fingerprint: string;
        teamId: string | null;
        state: 'valid' | 'revoked' | 'expired' | 'unknown';
      }
    | { kind: 'client'; via: 'basic' | 'form'; clientId: string; secretMatches: boolean };
  status: number;
  /** The answer as sent, `access_token` redacted. */
  answer: Record<string, unknown>;
  /** When it was received (the emulator's clock, ms). */
  at: number;
}

export interface ApiContext {
  workspaces: SlackWorkspaces;
  clientId: string;
  clientSecret: string;
  clock: { now(): number };
  calls: RecordedCall[];
  /** Calls still to answer 429 (of one method, or any), and the Retry-After they carry. */
  throttle: { remaining: number; retryAfterSeconds: number; method: string | null };
}

export type Answer = { status?: number; body: Record<string, unknown>; headers?: Record<string, string> };
export type Args = Record<string, unknown>;

export const failure = (error: string, extra: Record<string, unknown> = {}): Answer => ({ body: { ok: false, error, ...extra } });
