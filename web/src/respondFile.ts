/**
 * The responder page's file: chosen instead of the text, sealed chunk by chunk under a fresh key
 * as it uploads (`fileUpload.ts`, as the compose page's), that key wrapped to the requester and
 * sent with the upload's opening (`/v1/files/multipart` with `request_id`, `enc`, `wrapped_key`);
 * completing the upload is what delivers it to their inbox. A progress screen with Cancel; a
 * cancelled, failed or abandoned upload is aborted, so nothing of it is kept.
 */
import { fileSealer, fromBase64Url } from '../../shared/envelope/index.ts';
import { announce, byId, setVisible } from './dom.ts';
import { guardedUpload } from './guardedUpload.ts';
import { t, tNodes } from './i18n.ts';
import { formatBytes } from './progress.ts';
import { requestsApi } from './requestsApi.ts';
import { dataNode } from './revealMessages.ts';

const textField = byId('text-field');
const fileInput = byId<HTMLInputElement>('respond-file');
const fileLabel = byId('respond-file-label');
const chosen = byId('file-chosen');
const chosenText = byId('file-chosen-text');
const removeButton = byId<HTMLButtonElement>('file-remove');

let file: File | null = null;

export function chosenFile(): File | null {
  return file;
}

function choose(picked: File | null): void {
  file = picked;
  setVisible(textField, !picked);
  fileLabel.textContent = picked ? t('respond.form.fileChosenLabel') : t('respond.form.fileLabel');
  setVisible(chosen, Boolean(picked));
  if (!picked) {
    fileInput.value = '';
    return;
  }
  chosenText.replaceChildren(...tNodes('respond.form.fileChosen', { name: dataNode(picked.name), size: formatBytes(picked.size) }));
  announce(t('respond.form.fileChosenAnnounce', { name: picked.name, size: formatBytes(picked.size) }));
}

/** Forgets the file (after it was sent). */
export function resetFile(): void {
  choose(null);
}

export interface FileResponse {
  requestId: string;
  /** Wraps the file's fresh key to the requester (the served key checked against the link again). */
  wrap(responseKey: Uint8Array): Promise<{ enc: string; wrappedKey: string }>;
  /** Shows the upload screen (and hides the form). */
  showUpload(): void;
}

/** Seals, wraps, uploads and completes; throws `UploadCancelled`, `UploadFailed` or `ApiError`. */
export async function sendFileResponse(picked: File, response: FileResponse): Promise<void> {
  const sealer = await fileSealer({ meta: { name: picked.name, type: picked.type || 'application/octet-stream', size: picked.size } });
  const wrapped = await response.wrap(fromBase64Url(sealer.key));
  await guardedUpload(
    {
      file: picked,
      sealer,
      // No claim ever reaches a response's file: its verifiers are not sent.
      open: (body) =>
        requestsApi.openFileResponse({
          size_bytes: body.size_bytes,
          salt: body.salt,
          chunk_log2: body.chunk_log2,
          request_id: response.requestId,
          enc: wrapped.enc,
          wrapped_key: wrapped.wrappedKey,
        }),
      settings: {},
    },
    response.showUpload,
  );
}

fileInput.addEventListener('change', () => choose(fileInput.files?.[0] ?? null));
removeButton.addEventListener('click', () => {
  choose(null);
  announce(t('respond.form.fileRemovedAnnounce'));
  byId('respond-text').focus();
});
