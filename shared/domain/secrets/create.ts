import { HttpError } from '../../http/errors.ts';
import { newDeleteToken, newEventId, newSecretId, sha256Base64Url } from '../../ids.ts';
import type { Secret } from './model.ts';
import type { SecretPorts } from './ports.ts';
import type { CreateSecretRequest } from './rules.ts';

export interface CreatedSecret {
  secret: Secret;
  /** Returned once; only its hash is stored. */
  deleteToken: string;
}

export async function createSecret(request: CreateSecretRequest, ports: SecretPorts): Promise<CreatedSecret> {
  const now = ports.clock.now();
  const expiresAt = now + request.expires_in * 1000;
  const notBefore = request.not_before === undefined ? undefined : Date.parse(request.not_before);
  if (notBefore !== undefined && notBefore >= expiresAt) {
    throw new HttpError(400, 'invalid_request', 'not_before must be before the secret expires.', {
      errors: [{ path: 'body.not_before', message: 'must be before the expiry' }],
    });
  }
  const id = newSecretId();
  const deleteToken = newDeleteToken();
  const secret: Secret = {
    id,
    state: 'active',
    kind: request.kind,
    envelope: Buffer.from(request.envelope, 'base64'),
    salt: request.salt,
    sizeBytes: request.size_bytes,
    maxViews: request.max_views,
    viewsLeft: request.max_views,
    createdAt: now,
    expiresAt,
    ...(notBefore === undefined ? {} : { notBefore }),
    ...(request.claim_verifier === undefined ? {} : { claimVerifier: request.claim_verifier }),
    deleteTokenHash: sha256Base64Url(deleteToken),
    refusedProofs: 0,
    deniedEvents: 0,
    events: [{ id: newEventId(), type: 'secret.created', at: now }],
  };
  await ports.secrets.insert(secret);
  return { secret, deleteToken };
}
