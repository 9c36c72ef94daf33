import { t } from '../src/i18n.ts';

/** A problem+json answer of the API, as the transfer functions met it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    /** The problem's `code` (`forbidden`, `proof_refused`, …), or `http_<status>` when the body had none. */
    readonly code: string,
    /** The whole problem body: its extra members (`reason`, `attempts_left`, …) say more. */
    readonly problem: Record<string, unknown>,
    what: string,
  ) {
    super(
      typeof problem.detail === 'string'
        ? t('cli.transfer.apiAnsweredDetail', { what, status, code, detail: problem.detail })
        : t('cli.transfer.apiAnswered', { what, status, code }),
    );
    this.name = 'ApiError';
  }
}

export type TransferErrorCode =
  /** The file is not the one the upload began with (its size, its bytes while read, or a resume's proof). */
  | 'file_changed'
  /** A part or a range failed every attempt. */
  | 'transfer_failed'
  /** The download's target exists and `overwrite` was not given. */
  | 'exists'
  /** The link is of a text secret, or is not a Hushlink link at all. */
  | 'not_a_file'
  | 'bad_link'
  /** The file (or the upload to resume) was sealed with a passphrase and none, or another, was given. */
  | 'passphrase_required'
  | 'wrong_passphrase'
  /** No state file, or one this version cannot read. */
  | 'no_state'
  /** A large upload the service completes in the background ended without its file (refused, aborted), or took too long. */
  | 'completion_failed'
  | 'completion_timeout';

/** What went wrong in a transfer outside the API and the envelope (those throw ApiError and EnvelopeError). */
export class TransferError extends Error {
  constructor(
    readonly code: TransferErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'TransferError';
  }
}
