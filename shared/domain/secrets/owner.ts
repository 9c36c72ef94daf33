import { Invalid } from '../refusals.ts';
import { isTerminal, type Secret } from './model.ts';
import type { SecretAdoptions, SecretPorts } from './ports.ts';
import { findSecret, holdsDeleteToken } from './read.ts';

/** An anonymous secret its sender asks to own, proven by the delete token its creation gave. */
export interface SecretToAdopt {
  id: string;
  deleteToken: string;
}

export type AdoptionOutcome =
  | { id: string; adopted: true }
  | { id: string; adopted: false; reason: 'not_found' | 'forbidden' | 'ended' | 'owned' };

/**
 * Attaches anonymous secrets to the caller, each proven by its delete token. Every item gets
 * its own answer; one refusal does not stop the others.
 */
export async function adoptSecrets(
  ownerId: string,
  items: readonly SecretToAdopt[],
  ports: { secrets: SecretAdoptions },
): Promise<AdoptionOutcome[]> {
  return Promise.all(
    items.map(async ({ id, deleteToken: token }): Promise<AdoptionOutcome> => {
      const secret = await findSecret(id, ports);
      if (!secret) return { id, adopted: false, reason: 'not_found' };
      if (!holdsDeleteToken(secret, token)) return { id, adopted: false, reason: 'forbidden' };
      if (secret.ownerId === ownerId) return { id, adopted: true };
      if (secret.ownerId !== undefined) return { id, adopted: false, reason: 'owned' };
      if (isTerminal(secret.state)) return { id, adopted: false, reason: 'ended' };
      if (await ports.secrets.adopt(id, ownerId)) return { id, adopted: true };
      const now = await ports.secrets.get(id);
      return { id, adopted: false, reason: now?.ownerId ? 'owned' : 'ended' };
    }),
  );
}

/** Opaque cursors: the store's, as base64url, refused as invalid when tampered with. */
export async function listOwnedSecrets(
  ownerId: string,
  limit: number,
  cursor: string | null,
  ports: SecretPorts,
): Promise<{ items: Secret[]; nextCursor: string | null }> {
  try {
    return await ports.secrets.listForOwner(ownerId, limit, cursor);
  } catch (error) {
    if ((error as Error).name === 'InvalidCursor') {
      throw new Invalid('The cursor is not valid.', [{ field: 'cursor', message: 'is not a cursor this API gave', in: 'query' }]);
    }
    throw error;
  }
}
