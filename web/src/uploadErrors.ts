/** How an upload ends when it does not complete: cancelled by the person, or failed. */
import { t } from './i18n.ts';

/** The person pressed Cancel: the upload was aborted. */
export class UploadCancelled extends Error {
  constructor() {
    super(t('upload.cancelled'));
    this.name = 'UploadCancelled';
  }
}

/** Why the upload could not finish; `message` (in the page's language) is said to the person as it is. */
export class UploadFailed extends Error {
  constructor(
    message: string,
    readonly retryable = true,
    /** The storage's HTTP status, when it answered. */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'UploadFailed';
  }
}
