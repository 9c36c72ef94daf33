/**
 * Dispatch: the first argument names the command, node:util parseArgs reads the rest against
 * that command's options, and every failure becomes one sentence on stderr and an exit code.
 */
import { parseArgs } from 'node:util';
import cliPackage from '../package.json' with { type: 'json' };
import { commonOptions, defaultApi, text, type Context } from './command.ts';
import { commands } from './commands/index.ts';
import { CliError, exitCodes, explain, usageError } from './errors.ts';
import { commandHelp, programHelp } from './help.ts';
import { t, useLanguage } from './i18n.ts';

export const version = cliPackage.version;

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [name, ...rest] = argv;
  const stdout = process.stdout;
  const stderr = process.stderr;
  if (name === undefined) {
    stderr.write(programHelp(commands, version));
    return exitCodes.usage;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    const topic = rest[0] === undefined ? undefined : commands.find((command) => command.name === rest[0]);
    if (rest[0] !== undefined && !topic) return fail(usageError(t('cli.main.unknownCommand', { name: rest[0] })), false);
    stdout.write(topic ? commandHelp(topic) : programHelp(commands, version));
    return exitCodes.ok;
  }
  if (name === '--version' || name === '-V') {
    stdout.write(`${version}\n`);
    return exitCodes.ok;
  }
  const command = commands.find((candidate) => candidate.name === name);
  if (!command) return fail(usageError(t('cli.main.unknownCommand', { name })), false);

  let parsed: { values: Context['values']; positionals: string[] };
  try {
    parsed = parseArgs({
      args: rest,
      options: { ...commonOptions, ...command.options },
      allowPositionals: true,
      strict: true,
    }) as typeof parsed;
  } catch (error) {
    return fail(usageError(t('cli.main.badArguments', { problem: argumentProblem(error as Error), command: command.name })), false);
  }
  const json = parsed.values.json === true;
  // A script reads --json: it is English in every locale (the sentences inside it included).
  if (json) useLanguage('en');
  if (parsed.values.help === true) {
    stdout.write(commandHelp(command));
    return exitCodes.ok;
  }
  if (parsed.positionals.length > command.positionals) {
    return fail(
      usageError(
        t('cli.main.tooManyArguments', { arguments: parsed.positionals.slice(command.positionals).join(' '), command: command.name }),
      ),
      json,
    );
  }

  const interrupt = new AbortController();
  const onSigint = () => {
    // A second Ctrl-C does not wait for the clean-up.
    if (interrupt.signal.aborted) process.exit(exitCodes.interrupted);
    interrupt.abort();
  };
  process.on('SIGINT', onSigint);
  let api: string | undefined;
  try {
    api = apiOf(text(parsed.values, 'api') ?? env.HUSHLINK_API ?? defaultApi);
    const context: Context = {
      values: parsed.values,
      positionals: parsed.positionals,
      api,
      json,
      env,
      signal: interrupt.signal,
      stdout,
      stderr,
      stdin: process.stdin,
    };
    // A command that finished despite a late Ctrl-C did its work: its code stands.
    return (await command.run(context)) ?? exitCodes.ok;
  } catch (error) {
    return fail(
      interrupt.signal.aborted ? new CliError(exitCodes.interrupted, 'interrupted', t('cli.main.interrupted')) : explain(error, api),
      json,
    );
  } finally {
    process.off('SIGINT', onSigint);
  }
}

/** An http(s) origin with an optional path prefix, without a trailing slash. */
function apiOf(given: string): string {
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw usageError(t('cli.main.apiNotUrl', { given }));
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw usageError(t('cli.main.apiNotHttp', { given }));
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

/**
 * What node:util parseArgs refused, in this process's language: its three sentences are known
 * (the option is taken from them); any other is said in its own words, as Node wrote it.
 */
function argumentProblem(error: Error): string {
  const message = error.message;
  const unknown = /^Unknown option '(.+?)'\. To specify a positional argument/s.exec(message);
  if (unknown) return t('cli.main.unknownOption', { option: unknown[1]! });
  const missing = /^Option '(.+?) <value>' argument missing$/.exec(message);
  if (missing) return t('cli.main.missingValue', { option: missing[1]! });
  const valued = /^Option '(.+?)' does not take an argument$/.exec(message);
  if (valued) return t('cli.main.takesNoValue', { option: valued[1]! });
  return message.replace(/\. To specify a positional argument.*$/s, '.');
}

function fail(error: CliError, json: boolean): number {
  if (json) process.stderr.write(`${JSON.stringify({ error: { code: error.code, message: error.message, exit_code: error.exitCode } })}\n`);
  else process.stderr.write(`hushlink: ${error.message} [${error.code}]\n`);
  return error.exitCode;
}
