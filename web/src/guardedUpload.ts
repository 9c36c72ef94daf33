/**
 * A file's upload (`fileUpload.ts`) on the upload screen the compose page and the responder's
 * page share (#upload-title, #upload-name, #upload-progress, #upload-status, #upload-cancel):
 * the progress, said every quarter; Cancel, which aborts it; and, until it ends, leaving the page
 * asks first and aborts it on the server (a request that outlives the page).
 */
import { announce, byId, focusHeading } from './dom.ts';
import { abortOnLeave, type FileUpload, type UploadRef } from './filesApi.ts';
import { uploadFile, type UploadInput } from './fileUpload.ts';
import { t } from './i18n.ts';
import { formatBytes, ProgressView } from './progress.ts';

/**
 * Shows the upload screen with `showScreen` (the page hides what it had), then uploads and
 * completes; throws `UploadCancelled`, `UploadFailed` or `ApiError`. The screen stays up.
 */
export async function guardedUpload<Settings>(
  input: Pick<UploadInput<Settings>, 'file' | 'sealer' | 'open' | 'settings'>,
  showScreen: () => void,
): Promise<FileUpload> {
  const { file, sealer } = input;
  const cancelButton = byId<HTMLButtonElement>('upload-cancel');
  const cancel = new AbortController();
  let ref: UploadRef | null = null;
  // Closing or leaving the page mid-upload aborts it (a request that outlives the page).
  const leave = () => void (ref && abortOnLeave(ref));
  const warn = (event: BeforeUnloadEvent) => event.preventDefault();
  const onCancel = () => {
    cancelButton.disabled = true;
    cancelButton.textContent = t('upload.cancelling');
    announce(t('upload.cancellingAnnounce'));
    cancel.abort();
  };
  const view = new ProgressView(byId<HTMLProgressElement>('upload-progress'), byId('upload-status'), sealer.envelopeSize(file.size));
  byId('upload-name').textContent = t('upload.name', { name: file.name, size: formatBytes(file.size) });
  cancelButton.disabled = false;
  cancelButton.textContent = t('upload.cancel');
  cancelButton.addEventListener('click', onCancel);
  window.addEventListener('pagehide', leave);
  window.addEventListener('beforeunload', warn);
  showScreen();
  focusHeading(byId('upload-title'));
  let said = 0;
  try {
    return await uploadFile({
      file,
      sealer,
      open: input.open,
      settings: input.settings,
      signal: cancel.signal,
      opened: (opened) => void (ref = opened),
      progress: (sent) => {
        view.update(sent);
        // The live region hears every quarter, not every move of the bar.
        const quarter = Math.floor(view.percent() / 25) * 25;
        if (quarter > said && quarter < 100) announce(t('upload.progressAnnounce', { share: (said = quarter) / 100 }));
      },
      completing: () => {
        byId('upload-status').textContent = t('upload.finishing');
        announce(t('upload.finishingAnnounce'));
      },
    });
  } finally {
    cancelButton.removeEventListener('click', onCancel);
    window.removeEventListener('pagehide', leave);
    window.removeEventListener('beforeunload', warn);
  }
}
