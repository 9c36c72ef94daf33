import { constantTimeEqual, sha256Base64Url } from '../../ids.ts';
import type { Secret } from './model.ts';
import { digestPattern } from './rules.ts';

/**
 * Verifiers are SHA-256 of the 32 token bytes (docs/envelope.md). A token that is not 32 bytes
 * of canonical base64url (empty, malformed, of another length) is no proof at all: it is
 * answered as a missing one and never counts towards a lock.
 */
export function digestOf(token: string | null): string | null {
  return token !== null && digestPattern.test(token) ? sha256Base64Url(Buffer.from(token, 'base64url')) : null;
}

/** True when the secret keeps a link verifier and the link token presented matches it (constant time). */
export function provesLink(secret: Pick<Secret, 'linkVerifier'>, linkHash: string | null): boolean {
  return (
    secret.linkVerifier !== undefined && linkHash !== null && constantTimeEqual(Buffer.from(linkHash), Buffer.from(secret.linkVerifier))
  );
}
