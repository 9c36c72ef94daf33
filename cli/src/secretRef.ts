/** A secret named on the command line: its link (any form) or its bare id. */
import { usageError } from './errors.ts';
import { t } from './i18n.ts';

export interface SecretRef {
  id: string;
  recipientId?: string;
  /** The link's origin: where its API is. */
  origin?: string;
}

export function secretRef(given: string | undefined, command: string): SecretRef {
  if (given === undefined) throw usageError(t('cli.secretRef.missing', { command }));
  if (/^sec_[A-Za-z0-9_-]+$/.test(given)) return { id: given };
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    // Not echoed: what was given may hold a key.
    throw usageError(t('cli.secretRef.neither'), 'bad_link');
  }
  const [, s, id, r, recipientId] = url.pathname.split('/');
  if (s !== 's' || !id || (r !== undefined && (r !== 'r' || !recipientId))) throw usageError(t('cli.secretRef.notHushlink'), 'bad_link');
  return { id: decodeURIComponent(id), origin: url.origin, ...(recipientId ? { recipientId: decodeURIComponent(recipientId) } : {}) };
}
