/**
 * `hushlink keys create|list|revoke`: the account's API keys. Session only: the service lets no
 * key administer its account, so with HUSHLINK_API_KEY set these refuse before asking.
 */
import type * as z from 'zod/mini';
import type { accountReplies } from '../../../shared/api/accountReplies.ts';
import { credentialLimits } from '../../../shared/limits.ts';
import { scopes, type Scope } from '../../../shared/routes.ts';
import { ApiError } from '../../transfer/index.ts';
import { apiClient } from '../api.ts';
import { list, text, type Command, type CommandHelp, type Context } from '../command.ts';
import { durationWithin } from '../duration.ts';
import { CliError, exitCodes, usageError } from '../errors.ts';
import { columns, type MessageKey, padColumns, t } from '../i18n.ts';

type ApiKeyList = z.output<typeof accountReplies.ApiKeyList>;
type ApiKeyView = ApiKeyList['items'][number];
type CreatedApiKey = z.output<typeof accountReplies.CreatedApiKey>;

const subcommands = ['create', 'list', 'revoke'] as const;
/** Every scope of the route table, said in a few words (a new one fails to compile until it is). */
const scopeMeanings: Record<Scope, MessageKey> = {
  'secrets:write': 'cli.keys.scopeSecretsWrite',
  'secrets:read': 'cli.keys.scopeSecretsRead',
  'receipts:read': 'cli.keys.scopeReceiptsRead',
};
/** The service's bounds for `expires_in`. */
const shortestKeySeconds = 3600;

export const keys: Command = {
  name: 'keys',
  positionals: 2,
  options: {
    name: { type: 'string' },
    scope: { type: 'string', multiple: true },
    expires: { type: 'string' },
  },
  help: {
    usage: `hushlink keys create --name NAME --scope SCOPE [--scope SCOPE…] [--expires DURATION]
       hushlink keys list
       hushlink keys revoke ID`,
    get summary() {
      return t('cli.keys.summary');
    },
    get description() {
      return `${t('cli.keys.description')}

${t('cli.keys.scopes')}
${scopes.map((scope) => `  ${scope.padEnd(15)}${t(scopeMeanings[scope])}`).join('\n')}

${t('cli.keys.descriptionSession')}`;
    },
    get options(): CommandHelp['options'] {
      return [
        ['--name NAME', t('cli.keys.optionName')],
        ['--scope SCOPE', t('cli.keys.optionScope', { scopes: scopes.join(', ') })],
        ['--expires DURATION', t('cli.keys.optionExpires')],
      ];
    },
    get examples(): CommandHelp['examples'] {
      return [
        ['hushlink keys create --name ci --scope secrets:write', t('cli.keys.exampleCreate')],
        [
          'export HUSHLINK_API_KEY=$(hushlink keys create --name deploy --scope secrets:write --scope secrets:read --expires 90d)',
          t('cli.keys.exampleExport'),
        ],
        ['hushlink keys list', t('cli.keys.exampleList')],
        ['hushlink keys list --json', t('cli.keys.exampleListJson')],
        ['hushlink keys revoke key_3hT9…', t('cli.keys.exampleRevoke')],
      ];
    },
  },
  run: async (context) => {
    const [subcommand, id] = context.positionals;
    if (!subcommands.includes(subcommand as (typeof subcommands)[number])) {
      throw usageError(subcommand === undefined ? t('cli.keys.noSubcommand') : t('cli.keys.unknownSubcommand', { name: subcommand }));
    }
    const creating = subcommand === 'create';
    if (!creating && ['name', 'scope', 'expires'].some((option) => context.values[option] !== undefined)) {
      throw usageError(t('cli.keys.createOnly'));
    }
    if (subcommand !== 'revoke' && id !== undefined) throw usageError(t('cli.main.tooManyArguments', { arguments: id, command: 'keys' }));
    if (subcommand === 'create') return createKey(context);
    if (subcommand === 'list') return listKeys(context);
    return revokeKey(context, id);
  },
};

async function createKey(context: Context): Promise<undefined> {
  const name = text(context.values, 'name')?.trim();
  if (!name) throw usageError(t('cli.keys.nameNeeded'));
  const chosen = list(context.values, 'scope');
  if (chosen.length === 0) throw usageError(t('cli.keys.scopeNeeded', { scopes: scopes.join(', ') }));
  const unknown = chosen.filter((scope) => !scopes.includes(scope as Scope));
  if (unknown.length)
    throw usageError(
      t('cli.keys.unknownScope', { given: unknown.map((scope) => `"${scope}"`).join(', '), scopes: scopes.join(', ') }),
      'bad_scope',
    );
  const expiresIn = durationWithin(text(context.values, 'expires'), '--expires', {
    min: shortestKeySeconds,
    max: credentialLimits.apiKeyMaxSeconds,
  });
  const created = await apiClient(context.api, context).call<CreatedApiKey>('POST', '/v1/api-keys', {
    auth: 'session',
    signal: context.signal,
    json: { name, scopes: [...new Set(chosen)], ...(expiresIn === undefined ? {} : { expires_in: expiresIn }) },
  });
  if (context.json) {
    context.stdout.write(`${JSON.stringify(created, null, 2)}\n`);
  } else {
    context.stdout.write(`${created.key}\n`);
    const key = { id: created.id, name: created.name, scopes: created.scopes.join(', ') };
    context.stderr.write(
      `${created.expires_at ? t('cli.keys.created', { ...key, expires: created.expires_at }) : t('cli.keys.createdNeverExpiring', key)}\n`,
    );
  }
  context.stderr.write(`${t('cli.keys.shownOnce')}\n`);
}

async function listKeys(context: Context): Promise<undefined> {
  const { items } = await apiClient(context.api, context).call<ApiKeyList>('GET', '/v1/api-keys', {
    auth: 'session',
    signal: context.signal,
  });
  if (context.json) {
    context.stdout.write(`${JSON.stringify(items, null, 2)}\n`);
    return;
  }
  if (items.length === 0) {
    context.stderr.write(`${t('cli.keys.none')}\n`);
    return;
  }
  const headings = [
    t('cli.keys.columnId'),
    t('cli.keys.columnName'),
    t('cli.keys.columnPrefix'),
    t('cli.keys.columnScopes'),
    t('cli.keys.columnCreated'),
    t('cli.keys.columnExpires'),
    t('cli.keys.columnLastUsed'),
  ];
  context.stdout.write(table(headings, items.map(row)));
}

const row = (key: ApiKeyView): string[] => [
  key.id,
  key.name,
  `${key.prefix}…`,
  key.scopes.join(','),
  key.created_at,
  key.expires_at ?? t('cli.keys.never'),
  key.last_used_at ?? t('cli.keys.never'),
];

/** Columns padded to their widest cell; a name with a newline or tab would break the rows, so those become spaces. */
function table(headings: string[], rows: string[][]): string {
  const cells = [headings, ...rows].map((cellsOfRow) => cellsOfRow.map((cell) => cell.replace(/\s/g, ' ')));
  const widths = headings.map((_, column) => Math.max(...cells.map((cellsOfRow) => columns(cellsOfRow[column]!))));
  return `${cells.map((cellsOfRow) => cellsOfRow.map((cell, column) => (column === cellsOfRow.length - 1 ? cell : padColumns(cell, widths[column]!))).join('  ')).join('\n')}\n`;
}

async function revokeKey(context: Context, id: string | undefined): Promise<undefined> {
  if (id === undefined) throw usageError(t('cli.keys.noId'));
  try {
    await apiClient(context.api, context).call('DELETE', `/v1/api-keys/${encodeURIComponent(id)}`, {
      auth: 'session',
      signal: context.signal,
    });
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      throw new CliError(exitCodes.refused, error.code, t('cli.keys.noSuchKey', { id }), { cause: error });
    }
    throw error;
  }
  if (context.json) context.stdout.write(`${JSON.stringify({ id, revoked: true }, null, 2)}\n`);
  else context.stderr.write(`${t('cli.keys.revoked', { id })}\n`);
}
