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
import { flag, text, type Command, type Context } from '../command.ts';
import { cliDeviceName, credentialsFile, storedSession, type IssuedTokens, type StoredSession } from '../credentials.ts';
import { CliError, exitCodes, explain, usageError } from '../errors.ts';
import { answerer } from '../prompt.ts';
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
    summary: "Sign in with a code emailed to you, or your organization's single sign-on.",
    description: `Signs in to the deployment (--api or HUSHLINK_API) with an ${signInLimits.codeDigits}-digit code emailed to the address:
there is no password. The session is kept in credentials.json in the config folder (mode 0600),
one per deployment, and renewed as it is used; \`hushlink logout\` ends it. Signing in again
replaces it. HUSHLINK_API_KEY, when set, is used instead of the session by every command that
takes a key.

The address and the code are asked on the terminal. At the code prompt, an empty line (or "r")
sends another code, once a minute; a wrong code may be typed again while the service allows it.
When stdin is not a terminal, its lines are the answers (the address unless --email, then the
code), and a wrong code ends the command with exit code 2.

With --sso, the address signs in through its organization's single sign-on instead: the browser
opens at the organization's sign-in (the address is printed too, to open by hand, e.g. from
another window of this computer), and comes back to this command on 127.0.0.1. It waits up to
${ssoWaitMs / 60_000} minutes; Ctrl-C cancels. What the browser brings back works only with a key this command
made and keeps to itself, once, for a minute: it is no use to anyone who sees it. --no-browser
(or HUSHLINK_NO_BROWSER=1) only prints the address. On a terminal, an address whose organization
has single sign-on is offered it without --sso; piped, it is told to use --sso and goes on with
the emailed code. An address whose organization enforces single sign-on gets no code (its
workspace's owners excepted, as a break-glass): use --sso.`,
    options: [
      ['--email ADDRESS', 'The address to sign in with (else it is asked).'],
      ['--sso', "Sign in through your organization's single sign-on, in the browser."],
      ['--no-browser', 'With single sign-on: print the address to open, without opening a browser.'],
    ],
    examples: [
      ['hushlink login', 'Asks the address, then the emailed code.'],
      ['hushlink login --email ana@example.com', 'Sends the code at once; asks for it.'],
      ['hushlink login --sso --email ana@acme.example', "Opens the organization's sign-in in the browser."],
      ['hushlink login --sso --no-browser', 'Prints the sign-in address to open yourself.'],
      ['hushlink login --api https://hushlink.example.com', 'Sign in to another deployment.'],
      ['fetch-code | hushlink login --email ci@example.com', 'A script answers the code on stdin (fetch-code stands for yours).'],
    ],
  },
  run: async (context) => {
    const ask = answerer(context);
    const email = text(context.values, 'email') ?? (await ask('Email address: '));
    if (!addressPattern.test(email)) throw usageError(`"${email}" is not an email address such as name@example.com.`, 'bad_email');
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
          found?.enforced
            ? // The service answers every address alike: only the workspace's owners get a code (break-glass), anyone else a link.
              `If you are an owner of ${found.workspace.name}, a break-glass code was emailed to ${email}; anyone else was emailed a link to its single sign-on instead, and no code.\n`
            : `A sign-in code was emailed to ${email}; it works for ${signInLimits.codeSeconds / 60} minutes.\n`,
        );
        session = await keep(context, api, await verifyCode(context, api, email, ask));
      }
    }
    context.stderr.write(`Signed in to ${context.api} as ${session.email}.\n`);
    if (context.env.HUSHLINK_API_KEY)
      context.stderr.write('HUSHLINK_API_KEY is set: commands use that key instead of this session until it is unset.\n');
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
  const offer = found.enforced
    ? `${found.workspace.name} requires its single sign-on for ${email}`
    : `${email} can sign in through ${found.workspace.name}'s single sign-on`;
  if (context.stdin.isTTY !== true) {
    context.stderr.write(
      found.enforced
        ? `${offer}: run \`hushlink login --sso\`. Going on with an emailed code, which only its owners get (break-glass).\n`
        : `${offer}: run \`hushlink login --sso\` to use it. Going on with an emailed code.\n`,
    );
    return false;
  }
  const answer = await ask(`${offer}, in the browser. Use it? [Y/n] `);
  return !/^n(o)?$/i.test(answer);
}

async function startSignIn(api: ApiClient, email: string, signal: AbortSignal): Promise<void> {
  try {
    await api.call('POST', '/v1/auth/otp/start', { json: { email }, signal });
  } catch (error) {
    if (error instanceof ApiError && error.status === 429) {
      throw new CliError(
        exitCodes.refused,
        error.code,
        `Too many sign-in codes were asked for ${email} from here; try again in ${waitOf(error)}.`,
        { cause: error },
      );
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
    const answer = (await ask(`Code from the email (or press Enter to send another): `)).replace(/[\s-]+/g, '');
    if (answer === '' || answer.toLowerCase() === 'r') {
      await resend(context, api, email);
      continue;
    }
    if (!codePattern.test(answer)) {
      if (!retries) throw usageError(`The code is the ${signInLimits.codeDigits} digits in the email.`, 'bad_code');
      context.stderr.write(`The code is the ${signInLimits.codeDigits} digits in the email.\n`);
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
        throw new CliError(
          exitCodes.refused,
          'sso_required',
          `${email} signs in through its organization's single sign-on, not with an emailed code (none was sent): run \`hushlink login --sso\`.`,
          { cause: error },
        );
      }
      if (error.status === 429)
        throw new CliError(
          exitCodes.refused,
          error.code,
          `Too many codes were tried for ${email} from here; try again in ${waitOf(error)}.`,
          { cause: error },
        );
      if (error.status !== 401) throw error;
      // Wrong, expired or used: the service does not say which. Its budget counts this source's tries across codes.
      const left = typeof error.problem.attempts_left === 'number' ? error.problem.attempts_left : 0;
      const wrong = `That code is not right, or it has expired or been used. ${left > 0 ? `${left} attempt${left === 1 ? '' : 's'} left.` : 'That was the last attempt for now.'}`;
      if (!retries || left === 0) throw new CliError(exitCodes.refused, error.code, wrong, { cause: error });
      context.stderr.write(`${wrong}\n`);
    }
  }
}

async function resend(context: Context, api: ApiClient, email: string): Promise<void> {
  try {
    await api.call('POST', '/v1/auth/otp/resend', { json: { email }, signal: context.signal });
    context.stderr.write(
      `Another code was emailed to ${email}; earlier ones still work for their ${signInLimits.codeSeconds / 60} minutes.\n`,
    );
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 429)) throw error;
    context.stderr.write(`A code was just sent; you can ask for another in ${waitOf(error)}.\n`);
  }
}

/** The session a new sign-in replaced is ended too, so no token of it is left valid. */
async function endReplaced(api: ApiClient, replaced: StoredSession): Promise<void> {
  await api.call('POST', '/v1/auth/logout', { json: { refresh_token: replaced.refresh_token } }).catch(() => undefined);
}
