import { createHmac } from 'node:crypto';
import { constantTimeEqual } from '../../ids.ts';
import { chatLimits } from '../../limits.ts';

/**
 * Slack's request signing (`v0`), as its "Verifying requests from Slack" page describes it:
 *
 *     X-Slack-Request-Timestamp: <unix seconds>
 *     X-Slack-Signature: v0=<hex HMAC-SHA-256 of `v0:<timestamp>:<raw body>`>
 *
 * keyed with the app's signing secret as UTF-8 text (not decoded). The body is the bytes as
 * received, never parsed and serialized again, nor decoded as text: form bodies may hold any
 * byte, and a decode would replace what is not UTF-8.
 */
export const slackTimestampHeader = 'x-slack-request-timestamp';
export const slackSignatureHeader = 'x-slack-signature';

export type SlackRequestRefusal = 'missing_headers' | 'malformed' | 'stale' | 'mismatch';

export type SlackRequestVerification = { ok: true; timestamp: number } | { ok: false; reason: SlackRequestRefusal };

export interface VerifySlackRequestInput {
  rawBody: Buffer;
  /** The `X-Slack-Request-Timestamp` header's value. */
  timestamp: string | undefined;
  /** The `X-Slack-Signature` header's value. */
  signature: string | undefined;
  signingSecret: string;
  /** Milliseconds since the epoch, from the injected clock. */
  now: number;
}

/** Unix seconds as Slack writes them: digits, no sign, no leading zero, no fraction. */
const wholeSeconds = /^[1-9][0-9]*$/;
/** `v0=` and an HMAC-SHA-256 in hex (either case: the bytes are compared): 32 bytes, so exactly 64 digits. */
const v0Signature = /^v0=([0-9a-fA-F]{64})$/;

/**
 * Checks, in this order: both headers present, both well formed, the timestamp within
 * `chatLimits.signatureToleranceSeconds` of `now` in either direction (bounds included; Slack's
 * docs compare the absolute difference, a request from the future is no more trusted than an
 * old one), then the signature, compared in constant time. A refusal names the first check
 * that failed; which one is not secret, only the expected signature is. Throws only for the
 * caller's mistakes (an empty secret, a clock that is no time).
 *
 * A valid signature proves the request is Slack's and recent, not that it is the first of its
 * kind: within the window the same request may be sent again.
 */
export function verifySlackRequest(input: VerifySlackRequestInput): SlackRequestVerification {
  const { rawBody, timestamp, signature, signingSecret, now } = input;
  if (typeof signingSecret !== 'string' || signingSecret.length === 0) {
    // An empty key is a key anyone knows: refusing every request is the only safe answer.
    throw new TypeError('verifySlackRequest: the signing secret is empty');
  }
  if (!Number.isFinite(now)) throw new TypeError('verifySlackRequest: now must be milliseconds since the epoch');

  if (!timestamp || !signature) return { ok: false, reason: 'missing_headers' };
  const presented = v0Signature.exec(signature)?.[1];
  const seconds = wholeSeconds.test(timestamp) ? Number(timestamp) : Number.NaN;
  if (presented === undefined || !Number.isSafeInteger(seconds)) return { ok: false, reason: 'malformed' };

  if (Math.abs(Math.floor(now / 1000) - seconds) > chatLimits.signatureToleranceSeconds) return { ok: false, reason: 'stale' };

  // The timestamp enters the base string as sent; its strict form makes that the number read.
  const expected = createHmac('sha256', Buffer.from(signingSecret, 'utf8')).update(`v0:${timestamp}:`, 'utf8').update(rawBody).digest();
  return constantTimeEqual(Buffer.from(presented, 'hex'), expected) ? { ok: true, timestamp: seconds } : { ok: false, reason: 'mismatch' };
}
