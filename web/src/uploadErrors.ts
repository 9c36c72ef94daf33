/** How an upload ends when it does not complete: cancelled by the person, or failed. */

/** The person pressed Cancel: the upload was aborted. */
export class UploadCancelled extends Error {
  constructor() {
    super('The upload was cancelled.');
    this.name = 'UploadCancelled';
  }
}

/** Why the upload could not finish; `message` is said to the person as it is. */
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
