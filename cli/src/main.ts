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
    if (rest[0] !== undefined && !topic)
      return fail(usageError(`Unknown command "${rest[0]}". Run \`hushlink --help\` for the list.`), false);
    stdout.write(topic ? commandHelp(topic) : programHelp(commands, version));
    return exitCodes.ok;
  }
  if (name === '--version' || name === '-V') {
    stdout.write(`${version}\n`);
    return exitCodes.ok;
  }
  const command = commands.find((candidate) => candidate.name === name);
  if (!command) return fail(usageError(`Unknown command "${name}". Run \`hushlink --help\` for the list.`), false);

  let parsed: { values: Context['values']; positionals: string[] };
  try {
    parsed = parseArgs({
      args: rest,
      options: { ...commonOptions, ...command.options },
      allowPositionals: true,
      strict: true,
    }) as typeof parsed;
  } catch (error) {
    return fail(
      usageError(
        `${(error as Error).message.replace(/\. To specify a positional argument.*$/s, '.')} Run \`hushlink ${command.name} --help\`.`,
      ),
      false,
    );
  }
  const json = parsed.values.json === true;
  if (parsed.values.help === true) {
    stdout.write(commandHelp(command));
    return exitCodes.ok;
  }
  if (parsed.positionals.length > command.positionals) {
    return fail(
      usageError(
        `Too many arguments: ${parsed.positionals.slice(command.positionals).join(' ')}. Run \`hushlink ${command.name} --help\`.`,
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
      interrupt.signal.aborted ? new CliError(exitCodes.interrupted, 'interrupted', 'Interrupted: nothing was kept.') : explain(error, api),
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
    throw usageError(`--api must be a URL such as https://hushlink.example.com (got "${given}").`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw usageError(`--api must be an http(s) URL (got "${given}").`);
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

function fail(error: CliError, json: boolean): number {
  if (json) process.stderr.write(`${JSON.stringify({ error: { code: error.code, message: error.message, exit_code: error.exitCode } })}\n`);
  else process.stderr.write(`hushlink: ${error.message} [${error.code}]\n`);
  return error.exitCode;
}
