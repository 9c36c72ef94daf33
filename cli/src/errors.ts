/**
 * How the CLI fails: one human sentence, the problem's `code`, and an exit code a script can
 * branch on (documented in `hushlink --help` and docs/cli.md, "Exit codes").
 */
import { EnvelopeError } from '../../shared/envelope/index.ts';
import { ApiError, TransferError } from '../transfer/index.ts';
import { formatBytes } from './progress.ts';

export const exitCodes = {
  ok: 0,
  /** Bad arguments, a missing file, an output that exists: nothing was asked of the service. */
  usage: 1,
  /** The service refused: gone, locked, too early, not signed in, over a limit… */
  refused: 2,
  /** The service could not be reached, or failed (5xx): trying again later may work. */
  network: 3,
  /** The key in the link, or the passphrase, does not open the secret. */
  wrongKey: 4,
  /** Interrupted (Ctrl-C), as shells report SIGINT. */
  interrupted: 130,
} as const;
export type ExitCode = (typeof exitCodes)[keyof typeof exitCodes];

export class CliError extends Error {
  constructor(
    readonly exitCode: ExitCode,
    /** A stable snake_case code: the API problem's, the envelope's, or the CLI's own. */
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CliError';
  }
}

export const usageError = (message: string, code = 'usage') => new CliError(exitCodes.usage, code, message);

/** Sentences for the problems a person meets most; others fall back to the server's own title. */
const refusals: Record<string, string> = {
  not_found: 'No such secret: it never existed, or its tombstone is gone.',
  gone: 'This secret is gone: it was already viewed, expired or revoked.',
  locked: 'This secret is locked after too many wrong attempts.',
  too_early: 'This secret cannot be opened yet.',
  rate_limited: 'Too many requests; wait a moment and try again.',
  unauthorized: 'Not signed in, or the sign-in has ended: run `hushlink login`.',
  forbidden: 'The service refused this with the credentials given.',
  payload_too_large: 'This is larger than the service accepts.',
  proof_refused: 'The key in the link or the passphrase does not open this secret.',
};

/** Turns anything thrown into a CliError (unknown errors are bugs: exit 1 with their message). */
export function explain(error: unknown, api?: string): CliError {
  if (error instanceof CliError) return error;
  if (error instanceof ApiError) return fromProblem(error);
  if (error instanceof EnvelopeError) {
    const wrong = ['wrong_key', 'wrong_passphrase', 'passphrase_required', 'salt_mismatch', 'tampered', 'forged', 'key_mismatch'].includes(
      error.code,
    );
    return new CliError(wrong ? exitCodes.wrongKey : exitCodes.usage, error.code, error.message, { cause: error });
  }
  if (error instanceof TransferError) {
    const code = error.code;
    if (code === 'wrong_passphrase' || code === 'passphrase_required')
      return new CliError(exitCodes.wrongKey, code, error.message, { cause: error });
    if (code === 'transfer_failed') return new CliError(exitCodes.network, code, error.message, { cause: error });
    return new CliError(exitCodes.usage, code, error.message, { cause: error });
  }
  if (isAbort(error)) return new CliError(exitCodes.interrupted, 'interrupted', 'Interrupted.');
  if (isNetwork(error)) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return new CliError(
      exitCodes.network,
      'network',
      `Could not reach ${api ?? 'the service'}${cause?.code ? ` (${cause.code})` : ''}. Check --api or HUSHLINK_API, and the connection.`,
      { cause: error },
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new CliError(exitCodes.usage, 'error', message, { cause: error });
}

function fromProblem(error: ApiError): CliError {
  const problem = error.problem;
  const detail = typeof problem.detail === 'string' ? problem.detail : typeof problem.title === 'string' ? problem.title : undefined;
  if (error.status >= 500 || error.status === 0) {
    return new CliError(
      exitCodes.network,
      error.code,
      `The service failed (${error.status})${detail ? `: ${detail.replace(/\.$/, '')}` : ''}. Try again later.`,
      { cause: error },
    );
  }
  if (problem.reason === 'plan_limit' && typeof problem.limit_bytes === 'number') {
    const limit = formatBytes(problem.limit_bytes);
    return new CliError(
      exitCodes.refused,
      'plan_limit',
      `Files are limited to ${limit} on this plan: sign in to an account whose plan takes larger ones, or send a smaller file.`,
      { cause: error },
    );
  }
  if (error.code === 'proof_refused') {
    const left =
      typeof problem.attempts_left === 'number'
        ? ` ${problem.attempts_left} attempt${problem.attempts_left === 1 ? '' : 's'} left before it locks.`
        : '';
    return new CliError(exitCodes.wrongKey, error.code, `${refusals.proof_refused}${left}`, { cause: error });
  }
  const fields = Array.isArray(problem.errors)
    ? (problem.errors as Array<{ path?: unknown; message?: unknown }>)
        .map((item) => `${String(item.path ?? '')}: ${String(item.message ?? '')}`)
        .join('; ')
    : '';
  const notBefore = typeof problem.not_before === 'string' ? ` It opens from ${problem.not_before}.` : '';
  // The service's own detail says more than a generic sentence about a refusal as broad as 403.
  const generic = error.code === 'forbidden' || error.code === 'invalid_request' ? undefined : refusals[error.code];
  const sentence = `${generic ?? detail ?? refusals[error.code] ?? `The service answered ${error.status}.`}${error.code === 'too_early' ? notBefore : ''}`;
  const retry = typeof problem.retry_after === 'number' ? ` Retry after ${problem.retry_after} s.` : '';
  return new CliError(exitCodes.refused, error.code, `${sentence}${fields ? ` (${fields})` : ''}${retry}`, { cause: error });
}

const isAbort = (error: unknown) =>
  error instanceof Error && (error.name === 'AbortError' || (error as { code?: string }).code === 'ABORT_ERR');
const isNetwork = (error: unknown) => error instanceof TypeError && /fetch failed|network/i.test(error.message);
