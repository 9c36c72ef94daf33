import { NotFound, Unauthenticated } from '../refusals.ts';
import { endSecret } from './end.ts';
import { isTerminal, type Secret } from './model.ts';
import type { SecretPorts } from './ports.ts';
import { holdsDeleteToken } from './read.ts';
import { recipientIdPattern, secretIdPattern } from './rules.ts';

/** Who asks to revoke a link: the owner (by credential) or the holder of the delete token, or nobody. */
export interface LinkRevoker {
  ownerId: string | null;
  deleteToken: string | null;
}

const notFound = () => new NotFound('No secret of yours has this link.');

/**
 * Revokes one per-recipient link (interface §3 rule 3): the other links and the secret keep
 * working; when no link has a view left, the secret burns. Anyone who is not the owner and
 * does not hold the delete token learns nothing: not found, as for an unknown secret. Revoking a
 * revoked link again, or a link of an ended secret, changes nothing and says so the same way.
 */
export async function revokeRecipient(id: string, recipientId: string, revoker: LinkRevoker, ports: SecretPorts): Promise<void> {
  if (revoker.ownerId === null && revoker.deleteToken === null) {
    throw new Unauthenticated('Send the owner’s credential, or the secret’s delete token as `x-delete-token`.', { challenge: 'bearer' });
  }
  if (!secretIdPattern.test(id) || !recipientIdPattern.test(recipientId)) throw notFound();
  // A claim may take a view between the read and the write: read again and retry then.
  for (let attempt = 0; attempt < 5; attempt++) {
    const secret = await ports.secrets.get(id);
    if (!secret || !mayRevoke(secret, revoker)) throw notFound();
    const link = secret.recipients?.find((recipient) => recipient.id === recipientId);
    if (!link) throw notFound();
    if (link.state === 'revoked' || isTerminal(secret.state)) return;
    const result = await ports.secrets.revokeRecipient(id, recipientId, link.viewsLeft);
    if (!result.revoked) continue;
    // Its views were the last ones left: every link is spent or revoked, so the secret burns.
    if (result.secretViewsLeft <= 0) await endSecret(id, 'burned', ports);
    return;
  }
  throw new Error(`revoking link ${recipientId} of ${id} kept losing to claims`);
}

const mayRevoke = (secret: Secret, revoker: LinkRevoker) =>
  (revoker.ownerId !== null && secret.ownerId === revoker.ownerId) || holdsDeleteToken(secret, revoker.deleteToken);
