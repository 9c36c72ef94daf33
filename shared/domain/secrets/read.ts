import { constantTimeEqual, sha256Base64Url } from '../../ids.ts';
import { servedOn } from '../domains/linkHosts.ts';
import { Forbidden, NotFound } from '../refusals.ts';
import type { HostClaim } from '../domains/model.ts';
import { endSecret } from './end.ts';
import { isTerminal, type Secret } from './model.ts';
import type { SecretPorts } from './ports.ts';
import { secretIdPattern } from './rules.ts';

/**
 * A secret the secrets routes know: none for a malformed id, and none for a file sent in
 * response to a request link, which opens only from its requester's inbox (no link, no view,
 * no revoking, adopting or reporting it; its delete token only completes or aborts its upload).
 */
export async function findSecret(id: string, ports: { secrets: Pick<SecretPorts['secrets'], 'get'> }): Promise<Secret | null> {
  const secret = secretIdPattern.test(id) ? await ports.secrets.get(id) : null;
  return secret && !secret.response ? secret : null;
}

/**
 * A secret as its link's holder reaches it, on the host the request arrived on: on a
 * workspace's hostname, none that was not made on it (rule 5), as for an id no secret has. The
 * sender's own routes (revoking, adopting) go by `findSecret`: their proof is the delete token
 * or the owner's credential, not the link.
 */
export async function findSecretOn(
  id: string,
  hostClaim: HostClaim | null,
  ports: { secrets: Pick<SecretPorts['secrets'], 'get'> },
): Promise<Secret | null> {
  const secret = await findSecret(id, ports);
  return secret && servedOn(secret, hostClaim) ? secret : null;
}

/**
 * Reads a secret without claiming it. TTL deletion is lazy, so expiry is checked here; the
 * first read after expiry also ends the secret (exactly once, by condition).
 */
export async function readSecret(id: string, recipientId: string | null, hostClaim: HostClaim | null, ports: SecretPorts): Promise<Secret> {
  const secret = await findSecretOn(id, hostClaim, ports);
  if (!secret) throw new NotFound('No secret has this id.');
  // A link's page asks about its link: one the secret does not have is not a link at all.
  if (recipientId !== null && !secret.recipients?.some((link) => link.id === recipientId)) {
    throw new NotFound('This secret has no such link.');
  }
  if (isTerminal(secret.state)) return secret;
  // The last view was taken but the claim's burn did not land (claimSecret never fails for it).
  const ending = secret.viewsLeft <= 0 && secret.state === 'active' ? 'burned' : secret.expiresAt <= ports.clock.now() ? 'expired' : null;
  if (ending === null) return secret;
  await endSecret(id, ending, ports);
  // Read back, so this first answer after the end says what every later one will.
  return (await ports.secrets.get(id)) ?? secret;
}

/**
 * Revokes with the delete token, or as the owner. Revoking an ended secret again is not an
 * error: the caller asked for it to be unreadable, and it is.
 */
export async function revokeSecret(id: string, deleteToken: string | null, ownerId: string | null, ports: SecretPorts): Promise<void> {
  const secret = await findSecret(id, ports);
  if (!secret) throw new NotFound('No secret has this id.');
  const isOwner = ownerId !== null && secret.ownerId === ownerId;
  if (!isOwner && !holdsDeleteToken(secret, deleteToken)) {
    throw new Forbidden('Only the owner, or the holder of its delete token, can revoke this secret.');
  }
  if (isTerminal(secret.state)) return;
  if (await endSecret(id, 'revoked', ports)) return;
  // Refused: the sweep expired it, or the last view was taken first; then finish that burn
  // here rather than leave it to the claim that took it. Either way it is unreadable.
  await endSecret(id, 'burned', ports);
}

/** Constant-time check of a presented delete token against the stored hash. */
export function holdsDeleteToken(secret: Secret, deleteToken: string | null): boolean {
  if (deleteToken === null) return false;
  return constantTimeEqual(Buffer.from(sha256Base64Url(deleteToken)), Buffer.from(secret.deleteTokenHash));
}
