/** The help texts: the whole program's and each command's, plain text for any terminal or pipe. */
import { commonHelp, type Command } from './command.ts';

const column = (rows: Array<[string, string]>, indent = '  ') => {
  const width = Math.min(30, Math.max(...rows.map(([left]) => left.length)) + 2);
  return rows
    .map(([left, right]) =>
      left.length + 2 > width ? `${indent}${left}\n${indent}${' '.repeat(width)}${right}` : `${indent}${left.padEnd(width)}${right}`,
    )
    .join('\n');
};

export const exitCodeHelp: Array<[string, string]> = [
  ['0', 'Done.'],
  ['1', 'Usage: bad arguments, a file missing or already there; nothing was asked of the service.'],
  ['2', 'Refused by the service: gone, locked, too early, not signed in, over a limit.'],
  ['3', 'Network: the service could not be reached, or failed; try again later.'],
  ['4', 'Wrong key or passphrase: the link or the passphrase does not open the secret.'],
  ['130', 'Interrupted (Ctrl-C); an upload in progress is aborted and nothing is kept.'],
];

export const environmentHelp: Array<[string, string]> = [
  ['HUSHLINK_API', 'The deployment to use (as --api).'],
  ['HUSHLINK_API_KEY', 'An API key, used instead of the signed-in session.'],
  ['HUSHLINK_PASSPHRASE', 'The passphrase, instead of a prompt.'],
  ['HUSHLINK_DELETE_TOKEN', 'The delete token for `revoke`, instead of --token.'],
  ['HUSHLINK_NO_BROWSER', '1: `login --sso` prints the sign-in address without opening a browser (as --no-browser).'],
  ['HUSHLINK_CONFIG_DIR', 'Where credentials and request keys are kept (else $XDG_CONFIG_HOME/hushlink or ~/.config/hushlink).'],
];

export function programHelp(commands: readonly Command[], version: string): string {
  return `hushlink ${version}: share secrets that open once, end-to-end encrypted.

Usage: hushlink <command> [options]

Commands:
${column(commands.map((command) => [command.name, command.help.summary]))}

Run \`hushlink <command> --help\` for a command's options and examples.

Examples:
${column([
  ['echo "db password" | hushlink send', 'Send a text from stdin; prints the link.'],
  ['hushlink send backup.tar --views 2', 'Send a file that opens twice.'],
  ['hushlink open "https://…/s/sec_…#…"', 'Open a link: text to stdout, a file to its name.'],
  ['hushlink request --prompt "API key"', 'Ask someone to send you a secret.'],
])}

Exit codes:
${column(exitCodeHelp)}

Environment:
${column(environmentHelp)}
`;
}

export function commandHelp(command: Command): string {
  const help = command.help;
  return `Usage: ${help.usage}

${help.description}

Options:
${column([...help.options, ...commonHelp])}

Examples:
${column(help.examples)}

Exit codes: 0 done, 1 usage, 2 refused by the service, 3 network, 4 wrong key or passphrase, 130 interrupted.
`;
}
