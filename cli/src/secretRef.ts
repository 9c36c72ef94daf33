/** A secret named on the command line: its link (any form) or its bare id. */
import { usageError } from './errors.ts';

export interface SecretRef {
  id: string;
  recipientId?: string;
  /** The link's origin: where its API is. */
  origin?: string;
}

export function secretRef(given: string | undefined, command: string): SecretRef {
  if (given === undefined) throw usageError(`Give the secret's link or id: hushlink ${command} LINK|ID.`);
  if (/^sec_[A-Za-z0-9_-]+$/.test(given)) return { id: given };
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    // Not echoed: what was given may hold a key.
    throw usageError('That is neither a link nor a secret id (sec_…).', 'bad_link');
  }
  const [, s, id, r, recipientId] = url.pathname.split('/');
  if (s !== 's' || !id || (r !== undefined && (r !== 'r' || !recipientId)))
    throw usageError('That is not a Hushlink link (…/s/{id}).', 'bad_link');
  return { id: decodeURIComponent(id), origin: url.origin, ...(recipientId ? { recipientId: decodeURIComponent(recipientId) } : {}) };
}
