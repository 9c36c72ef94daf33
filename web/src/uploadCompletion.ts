import { ApiError } from './api.ts';
import { filesApi, type UploadRef } from './filesApi.ts';
import { t } from './i18n.ts';
import { UploadFailed } from './uploadErrors.ts';

/** Between asks whether the server has completed a large upload, how many failed asks in a row are ridden out, and the longest wait. */
const completionPollMs = 3_000;
const completionRetries = 5;
const completionWaitMs = 30 * 60_000;

/**
 * Waits while the server completes a large upload (202 `completing`): asking to complete again
 * answers 202 while it does, 200 once done, 409 when the file was not kept (asking again works
 * for a request link's response too, which has no metadata to read). A few failed asks in a row
 * (a dropped connection, a 5xx) are ridden out; 30 minutes is the most it waits.
 */
export async function untilCompleted(
  ref: UploadRef,
  parts: Parameters<typeof filesApi.completeUpload>[1],
  signal: AbortSignal,
): Promise<void> {
  const giveUpAt = Date.now() + completionWaitMs;
  let failures = 0;
  for (;;) {
    signal.throwIfAborted();
    await new Promise<void>((resolve, reject) => {
      const cancel = () => (clearTimeout(timer), reject(signal.reason));
      const timer = setTimeout(() => (signal.removeEventListener('abort', cancel), resolve()), completionPollMs);
      signal.addEventListener('abort', cancel, { once: true });
    });
    try {
      if ((await filesApi.completeUpload(ref, parts)).state === 'active') return;
      failures = 0;
    } catch (error) {
      if (error instanceof ApiError && error.status === 409) throw new UploadFailed(t('upload.failed.notFinished'), false);
      if (++failures > completionRetries) throw new UploadFailed(t('upload.failed.finishUnreachable'));
    }
    if (Date.now() >= giveUpAt) throw new UploadFailed(t('upload.failed.stillFinishing'), false);
  }
}
