/**
 * How the CLI fails: one human sentence, the problem's `code`, and an exit code a script can
 * branch on (documented in `hushlink --help` and docs/cli.md, "Exit codes").
 */
import { EnvelopeError, type EnvelopeErrorCode } from '../../shared/envelope/index.ts';
import { ApiError, TransferError } from '../transfer/index.ts';
import { type MessageKey, sentences, t } from './i18n.ts';
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
const refusals: Record<string, MessageKey> = {
  not_found: 'cli.refusal.notFound',
  gone: 'cli.refusal.gone',
  locked: 'cli.refusal.locked',
  too_early: 'cli.refusal.tooEarly',
  rate_limited: 'cli.refusal.rateLimited',
  unauthorized: 'cli.refusal.unauthorized',
  forbidden: 'cli.refusal.forbidden',
  payload_too_large: 'cli.refusal.payloadTooLarge',
  proof_refused: 'cli.refusal.proofRefused',
};
const refusal = (code: string): string | undefined => (Object.hasOwn(refusals, code) ? t(refusals[code]!) : undefined);

/** shared/envelope's sentences (its EnvelopeError speaks English), by code, in this process's language. */
export const envelopeSentences: Record<EnvelopeErrorCode, MessageKey> = {
  not_envelope: 'cli.envelope.notEnvelope',
  unsupported_version: 'cli.envelope.unsupportedVersion',
  malformed: 'cli.envelope.malformed',
  salt_mismatch: 'cli.envelope.saltMismatch',
  wrong_key: 'cli.envelope.wrongKey',
  wrong_passphrase: 'cli.envelope.wrongPassphrase',
  passphrase_required: 'cli.envelope.passphraseRequired',
  tampered: 'cli.envelope.tampered',
  bad_link: 'cli.envelope.badLink',
  key_mismatch: 'cli.envelope.keyMismatch',
  forged: 'cli.envelope.forged',
};

/**
 * An EnvelopeError's message in this process's language: its code's sentence, and the detail
 * EnvelopeError puts after it (`Sentence. (detail)`; none of the sentences holds ". (").
 */
export function envelopeMessage(error: EnvelopeError): string {
  const key = envelopeSentences[error.code];
  if (!key) return error.message;
  const at = error.message.indexOf('. (');
  const sentence = t(key);
  return at === -1 || !error.message.endsWith(')')
    ? sentence
    : t('cli.envelope.withDetail', { sentence, detail: error.message.slice(at + 3, -1) });
}

/** Turns anything thrown into a CliError (unknown errors are bugs: exit 1 with their message). */
export function explain(error: unknown, api?: string): CliError {
  if (error instanceof CliError) return error;
  if (error instanceof ApiError) return fromProblem(error);
  if (error instanceof EnvelopeError) {
    const wrong = ['wrong_key', 'wrong_passphrase', 'passphrase_required', 'salt_mismatch', 'tampered', 'forged', 'key_mismatch'].includes(
      error.code,
    );
    return new CliError(wrong ? exitCodes.wrongKey : exitCodes.usage, error.code, envelopeMessage(error), { cause: error });
  }
  if (error instanceof TransferError) {
    const code = error.code;
    if (code === 'wrong_passphrase' || code === 'passphrase_required')
      return new CliError(exitCodes.wrongKey, code, error.message, { cause: error });
    if (code === 'transfer_failed') return new CliError(exitCodes.network, code, error.message, { cause: error });
    return new CliError(exitCodes.usage, code, error.message, { cause: error });
  }
  if (isAbort(error)) return new CliError(exitCodes.interrupted, 'interrupted', t('cli.errors.interrupted'));
  if (isNetwork(error)) {
    const code = (error as { cause?: { code?: string; message?: string } }).cause?.code;
    const cause = code ? ` (${code})` : '';
    return new CliError(
      exitCodes.network,
      'network',
      api ? t('cli.errors.unreachable', { api, cause }) : t('cli.errors.unreachableService', { cause }),
      { cause: error },
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new CliError(exitCodes.usage, 'error', message, { cause: error });
}

function fromProblem(error: ApiError): CliError {
  const problem = error.problem;
  // The service's own words are English (problem bodies stay English for API clients): said as they are.
  const detail = typeof problem.detail === 'string' ? problem.detail : typeof problem.title === 'string' ? problem.title : undefined;
  if (error.status >= 500 || error.status === 0) {
    return new CliError(
      exitCodes.network,
      error.code,
      detail
        ? t('cli.errors.serviceFailedDetail', { status: error.status, detail: detail.replace(/\.$/, '') })
        : t('cli.errors.serviceFailed', { status: error.status }),
      { cause: error },
    );
  }
  if (problem.reason === 'plan_limit' && typeof problem.limit_bytes === 'number') {
    return new CliError(exitCodes.refused, 'plan_limit', t('cli.errors.planLimit', { limit: formatBytes(problem.limit_bytes) }), {
      cause: error,
    });
  }
  if (error.code === 'proof_refused') {
    const message =
      typeof problem.attempts_left === 'number'
        ? t('cli.errors.proofRefusedAttempts', { attempts: problem.attempts_left })
        : t('cli.refusal.proofRefused');
    return new CliError(exitCodes.wrongKey, error.code, message, { cause: error });
  }
  const fields = Array.isArray(problem.errors)
    ? (problem.errors as Array<{ path?: unknown; message?: unknown }>)
        .map((item) => `${String(item.path ?? '')}: ${String(item.message ?? '')}`)
        .join('; ')
    : '';
  // The service's own detail says more than a generic sentence about a refusal as broad as 403.
  const generic = error.code === 'forbidden' || error.code === 'invalid_request' ? undefined : refusal(error.code);
  let sentence = generic ?? detail ?? refusal(error.code) ?? t('cli.errors.serviceAnswered', { status: error.status });
  if (error.code === 'too_early' && typeof problem.not_before === 'string')
    sentence = sentences(sentence, t('cli.errors.opensFrom', { time: problem.not_before }));
  if (fields) sentence = `${sentence} (${fields})`;
  if (typeof problem.retry_after === 'number') sentence = sentences(sentence, t('cli.errors.retryAfter', { seconds: problem.retry_after }));
  return new CliError(exitCodes.refused, error.code, sentence, { cause: error });
}

const isAbort = (error: unknown) =>
  error instanceof Error && (error.name === 'AbortError' || (error as { code?: string }).code === 'ABORT_ERR');
const isNetwork = (error: unknown) => error instanceof TypeError && /fetch failed|network/i.test(error.message);
