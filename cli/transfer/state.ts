import { nodeCrypto } from '../src/nodeCrypto.ts';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { TransferError } from './errors.ts';
import { t } from '../src/i18n.ts';

/**
 * What an upload from a file keeps to resume after its process died: where the file is and
 * how it looked (size, modification time), the key and salt its envelope is sealed under, the
 * upload's ids and delete token, and the settings it was opened with (to start over with them).
 * It holds the link's key, so it is written mode 0600 and removed once the upload completes or
 * is aborted. The passphrase and the credential are never written: the caller gives them again.
 */
export interface UploadState {
  version: 1;
  api: string;
  id: string;
  upload_id: string;
  delete_token: string;
  url_base: string;
  expires_at: string;
  recipients?: Array<{ recipient_id: string; url_base: string }>;
  /** The link key and salt, base64url. */
  key: string;
  salt: string;
  chunk_log2: number;
  /** Whether it was sealed with a passphrase (which a resume must be given again). */
  passphrase: boolean;
  /** The verifier the server holds: a resume given another passphrase is told so, not sealed under it. */
  claim_verifier: string;
  file: { path: string; size: number; mtime_ms: number; name: string; type: string };
  part_size: number;
  part_count: number;
  envelope_bytes: number;
  /** The opening request's settings, without the sealing's (salt, verifiers, size). */
  settings: UploadSettings;
}

export interface UploadSettings {
  expires_in?: number;
  max_views?: number;
  not_before?: string;
  recipients?: Array<{ label?: string; email?: string; restricted?: boolean }>;
}

/** Written whole or not at all: a new file beside it, mode 0600, renamed over it. */
export async function writeState(path: string, state: UploadState): Promise<void> {
  const temporary = `${path}.${nodeCrypto().randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

export async function readState(path: string): Promise<UploadState> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new TransferError('no_state', t('cli.transfer.noState', { path }), { cause: error });
  }
  let state: Partial<UploadState>;
  try {
    state = JSON.parse(text) as Partial<UploadState>;
  } catch (error) {
    throw new TransferError('no_state', t('cli.transfer.notState', { path }), { cause: error });
  }
  if (state.version !== 1 || typeof state.key !== 'string' || typeof state.upload_id !== 'string' || typeof state.file?.path !== 'string') {
    throw new TransferError('no_state', t('cli.transfer.stateVersion', { path }));
  }
  return state as UploadState;
}

export const removeState = (path: string) => rm(path, { force: true });
