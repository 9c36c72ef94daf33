/**
 * `hushlink login`: signs in with a code emailed to the address, or through the organization's
 * single sign-on in the browser (`--sso`, see ../sso.ts), and keeps the session for this
 * deployment in credentials.json (mode 0600). The code is asked on the terminal, where a wrong
 * one may be typed again while the service allows; piped, stdin's next line is the code and a
 * wrong one ends the command, since a script would only send the same line again. An address
 * some workspace's single sign-on speaks for is offered it on a terminal; piped, it is told of
 * `--sso` and goes on with the code, so a script is never asked a question it did not expect.
 */
import { ApiError } from '../../transfer/index.ts';
import { signInLimits } from '../../../shared/limits.ts';
import { apiClient, type ApiClient } from '../api.ts';
import { flag, text, type Command, type CommandHelp, type Context } from '../command.ts';
import { cliDeviceName, credentialsFile, storedSession, type IssuedTokens, type StoredSession } from '../credentials.ts';
import { CliError, exitCodes, explain, usageError } from '../errors.ts';
import { t } from '../i18n.ts';
import { answerer, saysNo } from '../prompt.ts';
import { discoverSso, signInWithSso, ssoWaitMs, waitOf, type SsoFound } from '../sso.ts';

/** What the service takes as an address is its own check; this only catches a slip. */
const addressPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const codePattern = new RegExp(`^\\d{${signInLimits.codeDigits}}$`);

export const login: Command = {
  name: 'login',
  positionals: 0,
  options: {
    email: { type: 'string' },
    sso: { type: 'boolean' },
    'no-browser': { type: 'boolean' },
  },
  help: {
    usage: 'hushlink login [--email ADDRESS] [--sso [--no-browser]]',
    get summary() {
      return t('cli.login.summary');
    },
    get description() {
      return t('cli.login.description', { digits: signInLimits.codeDigits, minutes: ssoWaitMs / 60_000 });
    },
    get options(): CommandHelp['options'] {
      return [
        ['--email ADDRESS', t('cli.login.optionEmail')],
        ['--sso', t('cli.login.optionSso')],
        ['--no-browser', t('cli.login.optionNoBrowser')],
      ];
    },
    get examples(): CommandHelp['examples'] {
      return [
        ['hushlink login', t('cli.login.exampleAsk')],
        ['hushlink login --email ana@example.com', t('cli.login.exampleEmail')],
        ['hushlink login --sso --email ana@acme.example', t('cli.login.exampleSso')],
        ['hushlink login --sso --no-browser', t('cli.login.exampleNoBrowser')],
        ['hushlink login --api https://hushlink.example.com', t('cli.login.exampleApi')],
        ['fetch-code | hushlink login --email ci@example.com', t('cli.login.exampleScript')],
      ];
    },
  },
  run: async (context) => {
    const ask = answerer(context);
    const email = text(context.values, 'email') ?? (await ask(t('cli.login.askEmail')));
    if (!addressPattern.test(email)) throw usageError(t('cli.login.badEmail', { email }), 'bad_email');
    const api = apiClient(context.api, context);
    let session: StoredSession;
    if (flag(context.values, 'sso')) {
      session = await signInWithSso(context, api, email, undefined, (tokens) => keep(context, api, tokens));
    } else {
      const found = await offeredSso(context, api, email);
      if (found && (await wantsSso(context, email, found, ask))) {
        session = await signInWithSso(context, api, email, found, (tokens) => keep(context, api, tokens));
      } else {
        await startSignIn(api, email, context.signal);
        context.stderr.write(
          `${
            found?.enforced
              ? // The service answers every address alike: only the workspace's owners get a code (break-glass), anyone else a link.
                t('cli.login.breakGlassSent', { workspace: found.workspace.name, email })
              : t('cli.login.codeSent', { email, minutes: signInLimits.codeSeconds / 60 })
          }\n`,
        );
        session = await keep(context, api, await verifyCode(context, api, email, ask));
      }
    }
    context.stderr.write(`${t('cli.login.signedIn', { api: context.api, email: session.email })}\n`);
    if (context.env.HUSHLINK_API_KEY) context.stderr.write(`${t('cli.login.apiKeySet')}\n`);
    if (context.json)
      context.stdout.write(`${JSON.stringify({ api: context.api, email: session.email, user_id: session.user_id }, null, 2)}\n`);
  },
};

/** Keeps the session for this deployment, ending the one it replaces. */
async function keep(context: Context, api: ApiClient, tokens: IssuedTokens): Promise<StoredSession> {
  const session = storedSession(tokens);
  const replaced = await credentialsFile(context.env).update((sessions) => ({
    value: { ...sessions, [context.api]: session },
    result: sessions?.[context.api],
  }));
  if (replaced) await endReplaced(api, replaced);
  return session;
}

/**
 * The single sign-on that speaks for the address, if any. A service that cannot say (an older
 * one, a hiccup) leaves the emailed code, which then reports any real trouble itself.
 */
async function offeredSso(context: Context, api: ApiClient, email: string): Promise<SsoFound | undefined> {
  try {
    const found = await discoverSso(api, email, context.signal);
    // A directory without a client names the provider but cannot sign anyone in through it.
    return found.sso && found.sign_in ? found : undefined;
  } catch (error) {
    if (context.signal.aborted || explain(error).exitCode === exitCodes.interrupted) throw error;
    return undefined;
  }
}

/** On a terminal, asks (yes unless "n"); piped, says how to use it and goes on with the code. */
async function wantsSso(context: Context, email: string, found: SsoFound, ask: (question: string) => Promise<string>): Promise<boolean> {
  const about = { workspace: found.workspace.name, email };
  if (context.stdin.isTTY !== true) {
    context.stderr.write(`${found.enforced ? t('cli.login.ssoRequiredPiped', about) : t('cli.login.ssoOfferedPiped', about)}\n`);
    return false;
  }
  const answer = await ask(found.enforced ? t('cli.login.ssoRequiredAsk', about) : t('cli.login.ssoOfferedAsk', about));
  return !saysNo(answer);
}

async function startSignIn(api: ApiClient, email: string, signal: AbortSignal): Promise<void> {
  try {
    await api.call('POST', '/v1/auth/otp/start', { json: { email }, signal });
  } catch (error) {
    if (error instanceof ApiError && error.status === 429) {
      throw new CliError(exitCodes.refused, error.code, t('cli.login.tooManyCodesAsked', { email, wait: waitOf(error) }), { cause: error });
    }
    throw error;
  }
}

/** Asks for the code until one signs in: another code on an empty line, another try after a wrong one on a terminal. */
async function verifyCode(
  context: Context,
  api: ApiClient,
  email: string,
  ask: (question: string) => Promise<string>,
): Promise<IssuedTokens> {
  const retries = context.stdin.isTTY === true;
  const device = cliDeviceName();
  for (;;) {
    const answer = (await ask(t('cli.login.askCode'))).replace(/[\s-]+/g, '');
    if (answer === '' || answer.toLowerCase() === 'r') {
      await resend(context, api, email);
      continue;
    }
    if (!codePattern.test(answer)) {
      const digits = t('cli.login.codeDigits', { digits: signInLimits.codeDigits });
      if (!retries) throw usageError(digits, 'bad_code');
      context.stderr.write(`${digits}\n`);
      continue;
    }
    try {
      return await api.call<IssuedTokens>('POST', '/v1/auth/otp/verify', {
        json: { email, code: answer, device_name: device },
        signal: context.signal,
      });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.status === 403 && error.problem.reason === 'sso_required') {
        throw new CliError(exitCodes.refused, 'sso_required', t('cli.login.ssoOnly', { email }), { cause: error });
      }
      if (error.status === 429)
        throw new CliError(exitCodes.refused, error.code, t('cli.login.tooManyCodesTried', { email, wait: waitOf(error) }), {
          cause: error,
        });
      if (error.status !== 401) throw error;
      // Wrong, expired or used: the service does not say which. Its budget counts this source's tries across codes.
      const left = typeof error.problem.attempts_left === 'number' ? error.problem.attempts_left : 0;
      const wrong = left > 0 ? t('cli.login.wrongCode', { left }) : t('cli.login.wrongCodeLast');
      if (!retries || left === 0) throw new CliError(exitCodes.refused, error.code, wrong, { cause: error });
      context.stderr.write(`${wrong}\n`);
    }
  }
}

async function resend(context: Context, api: ApiClient, email: string): Promise<void> {
  try {
    await api.call('POST', '/v1/auth/otp/resend', { json: { email }, signal: context.signal });
    context.stderr.write(`${t('cli.login.resent', { email, minutes: signInLimits.codeSeconds / 60 })}\n`);
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 429)) throw error;
    context.stderr.write(`${t('cli.login.justSent', { wait: waitOf(error) })}\n`);
  }
}

/** The session a new sign-in replaced is ended too, so no token of it is left valid. */
async function endReplaced(api: ApiClient, replaced: StoredSession): Promise<void> {
  await api.call('POST', '/v1/auth/logout', { json: { refresh_token: replaced.refresh_token } }).catch(() => undefined);
}
