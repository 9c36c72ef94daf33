import type { TransferApi, UploadRef } from './api.ts';
import { ApiError, TransferError } from './errors.ts';
import { pause } from './retry.ts';
import { t } from '../src/i18n.ts';

/** Transient failures (a dropped connection, a 5xx, a 429) a wait for a completion rides out, in a row. */
const completionRetries = 5;

/**
 * Waits for the service to complete a large upload (S3 may take minutes), so the link given
 * works: asking to complete again answers 202 while it is completing, 200 once done, and 409 when
 * the file was not kept (the completion was refused, or the upload aborted meanwhile). Asking
 * again rather than reading the secret works for a request link's response too, which has no
 * metadata to read.
 */
export async function untilCompleted(
  api: TransferApi,
  ref: UploadRef,
  parts: Array<{ part_number: number; etag: string }>,
  options: { signal?: AbortSignal | undefined; completionPollMs?: number | undefined; completionWaitMs?: number | undefined },
): Promise<void> {
  const signal = options.signal ?? new AbortController().signal;
  const giveUpAt = Date.now() + (options.completionWaitMs ?? 30 * 60_000);
  let failures = 0;
  for (;;) {
    await pause(options.completionPollMs ?? 5_000, signal);
    try {
      if ((await api.completeUpload(ref, parts, signal)).state === 'active') return;
      failures = 0;
    } catch (error) {
      if (error instanceof ApiError && error.status === 409) {
        throw new TransferError('completion_failed', t('cli.transfer.notKept', { reason: error.message }), { cause: error });
      }
      if (signal.aborted) throw error;
      const transient = !(error instanceof ApiError) || error.status >= 500 || error.status === 429;
      if (!transient)
        throw new TransferError('completion_failed', t('cli.transfer.notKept', { reason: (error as Error).message }), { cause: error });
      if (++failures > completionRetries) {
        throw new TransferError('completion_timeout', t('cli.transfer.completionUnknown'), { cause: error });
      }
    }
    if (Date.now() >= giveUpAt) {
      throw new TransferError('completion_timeout', t('cli.transfer.stillCompleting'));
    }
  }
}
