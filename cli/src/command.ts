/**
 * A command: its options for node:util parseArgs, its help (usage, description, examples), and
 * what it runs. Options shared by every command (`--api`, `--json`, `--help`) are added here.
 */
import type { ParseArgsConfig } from 'node:util';
import { t } from './i18n.ts';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;
export type Values = Record<string, string | boolean | string[] | boolean[] | undefined>;

export interface CommandHelp {
  /** `hushlink send [FILE|-] [options]` */
  usage: string;
  /** One line for the command list. */
  summary: string;
  /** What it does, in a few sentences. */
  description: string;
  /** `--flag VALUE` and what it means, in the order shown. */
  options: Array<[string, string]>;
  /** Commands with a line saying what each does. */
  examples: Array<[string, string]>;
}

export interface Command {
  name: string;
  /** In this process's language, each field a getter: `hushlink --help` reads only the summaries. */
  readonly help: CommandHelp;
  options: OptionSpec;
  /** How many positionals it takes at most. */
  positionals: number;
  run: (context: Context) => Promise<number | undefined>;
}

export interface Context {
  values: Values;
  positionals: string[];
  /** `--api`, else HUSHLINK_API, else the local runtime's URL; no trailing slash. */
  api: string;
  json: boolean;
  env: NodeJS.ProcessEnv;
  /** Fires on Ctrl-C: transfers abort cleanly before the process exits 130. */
  signal: AbortSignal;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  stdin: NodeJS.ReadStream;
}

export const commonOptions = {
  api: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies OptionSpec;

export const commonHelp = (): Array<[string, string]> => [
  ['--api URL', t('cli.help.optionApi')],
  ['--json', t('cli.help.optionJson')],
  ['-h, --help', t('cli.help.optionHelp')],
];

export const defaultApi = 'http://localhost:3000';

/** A value of a string option, or undefined. */
export const text = (values: Values, name: string): string | undefined => {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
};
export const flag = (values: Values, name: string): boolean => values[name] === true;
export const list = (values: Values, name: string): string[] => {
  const value = values[name];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
};
