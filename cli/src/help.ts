/** The help texts: the whole program's and each command's, plain text for any terminal or pipe. */
import { commonHelp, type Command } from './command.ts';
import { columns, padColumns, t } from './i18n.ts';

const column = (rows: Array<[string, string]>, indent = '  ') => {
  const width = Math.min(30, Math.max(...rows.map(([left]) => columns(left))) + 2);
  return rows
    .map(([left, right]) =>
      columns(left) + 2 > width ? `${indent}${left}\n${indent}${' '.repeat(width)}${right}` : `${indent}${padColumns(left, width)}${right}`,
    )
    .join('\n');
};

export const exitCodeHelp = (): Array<[string, string]> => [
  ['0', t('cli.help.exit0')],
  ['1', t('cli.help.exit1')],
  ['2', t('cli.help.exit2')],
  ['3', t('cli.help.exit3')],
  ['4', t('cli.help.exit4')],
  ['130', t('cli.help.exit130')],
];

export const environmentHelp = (): Array<[string, string]> => [
  ['HUSHLINK_API', t('cli.help.envApi')],
  ['HUSHLINK_API_KEY', t('cli.help.envApiKey')],
  ['HUSHLINK_PASSPHRASE', t('cli.help.envPassphrase')],
  ['HUSHLINK_DELETE_TOKEN', t('cli.help.envDeleteToken')],
  ['HUSHLINK_NO_BROWSER', t('cli.help.envNoBrowser')],
  ['HUSHLINK_CONFIG_DIR', t('cli.help.envConfigDir')],
];

export function programHelp(commands: readonly Command[], version: string): string {
  return `${t('cli.help.tagline', { version })}

${t('cli.help.usage')} hushlink <command> [options]

${t('cli.help.commands')}
${column(commands.map((command) => [command.name, command.help.summary]))}

${t('cli.help.commandHelp')}

${t('cli.help.examples')}
${column([
  ['echo "db password" | hushlink send', t('cli.help.exampleSendStdin')],
  ['hushlink send backup.tar --views 2', t('cli.help.exampleSendFile')],
  ['hushlink open "https://…/s/sec_…#…"', t('cli.help.exampleOpen')],
  ['hushlink request --prompt "API key"', t('cli.help.exampleRequest')],
])}

${t('cli.help.exitCodes')}
${column(exitCodeHelp())}

${t('cli.help.environment')}
${column(environmentHelp())}
`;
}

export function commandHelp(command: Command): string {
  const help = command.help;
  return `${t('cli.help.usage')} ${help.usage}

${help.description}

${t('cli.help.options')}
${column([...help.options, ...commonHelp()])}

${t('cli.help.examples')}
${column(help.examples)}

${t('cli.help.exitCodesLine')}
`;
}
