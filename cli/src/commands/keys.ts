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
import { list, text, type Command, type Context } from '../command.ts';
import { durationWithin } from '../duration.ts';
import { CliError, exitCodes, usageError } from '../errors.ts';

type ApiKeyList = z.output<typeof accountReplies.ApiKeyList>;
type ApiKeyView = ApiKeyList['items'][number];
type CreatedApiKey = z.output<typeof accountReplies.CreatedApiKey>;

const subcommands = ['create', 'list', 'revoke'] as const;
/** Every scope of the route table, said in a few words (a new one fails to compile until it is). */
const scopeMeanings: Record<Scope, string> = {
  'secrets:write': 'create and revoke secrets',
  'secrets:read': 'list secrets',
  'receipts:read': 'read their receipts',
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
    summary: 'Create, list and revoke API keys.',
    description: `API keys let scripts and CI use the service as this account without a session: give one as
HUSHLINK_API_KEY. \`create\` prints the new key alone on stdout, and only this once (the service
keeps only its hash); \`list\` shows each key's id, name, first characters, scopes and dates;
\`revoke ID\` ends a key at once.

Scopes:
${scopes.map((scope) => `  ${scope.padEnd(15)}${scopeMeanings[scope]}`).join('\n')}

These need the signed-in session (\`hushlink login\`): an API key cannot manage keys, so
HUSHLINK_API_KEY must be unset.`,
    options: [
      ['--name NAME', 'create: what the key is for (up to 100 characters).'],
      ['--scope SCOPE', `create: what it may do; repeat for several (${scopes.join(', ')}).`],
      ['--expires DURATION', 'create: when it stops working: 1h to 365d, e.g. 30d (default: never).'],
    ],
    examples: [
      ['hushlink keys create --name ci --scope secrets:write', 'A key that can send; prints it once.'],
      [
        'export HUSHLINK_API_KEY=$(hushlink keys create --name deploy --scope secrets:write --scope secrets:read --expires 90d)',
        'Create a key and use it at once.',
      ],
      ['hushlink keys list', "A table of the account's keys."],
      ['hushlink keys list --json', 'The keys as a JSON array.'],
      ['hushlink keys revoke key_3hT9…', 'End a key (its id is in the list).'],
    ],
  },
  run: async (context) => {
    const [subcommand, id] = context.positionals;
    if (!subcommands.includes(subcommand as (typeof subcommands)[number])) {
      throw usageError(
        `${subcommand === undefined ? 'Name a subcommand' : `Unknown subcommand "${subcommand}"`}: hushlink keys create|list|revoke. Run \`hushlink keys --help\`.`,
      );
    }
    const creating = subcommand === 'create';
    if (!creating && ['name', 'scope', 'expires'].some((option) => context.values[option] !== undefined)) {
      throw usageError(`--name, --scope and --expires are for \`hushlink keys create\`.`);
    }
    if (subcommand !== 'revoke' && id !== undefined) throw usageError(`Too many arguments: ${id}. Run \`hushlink keys --help\`.`);
    if (subcommand === 'create') return createKey(context);
    if (subcommand === 'list') return listKeys(context);
    return revokeKey(context, id);
  },
};

async function createKey(context: Context): Promise<undefined> {
  const name = text(context.values, 'name')?.trim();
  if (!name) throw usageError('Give the key a name: --name NAME (what it is for).');
  const chosen = list(context.values, 'scope');
  if (chosen.length === 0) throw usageError(`Give it at least one --scope: ${scopes.join(', ')}.`);
  const unknown = chosen.filter((scope) => !scopes.includes(scope as Scope));
  if (unknown.length)
    throw usageError(`Unknown scope ${unknown.map((scope) => `"${scope}"`).join(', ')}: the scopes are ${scopes.join(', ')}.`, 'bad_scope');
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
    context.stderr.write(
      `Created ${created.id} "${created.name}" (${created.scopes.join(', ')}), ${created.expires_at ? `expiring ${created.expires_at}` : 'never expiring'}.\n`,
    );
  }
  context.stderr.write('The key is shown this once: keep it now (HUSHLINK_API_KEY uses it).\n');
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
    context.stderr.write('No API keys: `hushlink keys create` makes one.\n');
    return;
  }
  context.stdout.write(table(['ID', 'NAME', 'PREFIX', 'SCOPES', 'CREATED', 'EXPIRES', 'LAST USED'], items.map(row)));
}

const row = (key: ApiKeyView): string[] => [
  key.id,
  key.name,
  `${key.prefix}…`,
  key.scopes.join(','),
  key.created_at,
  key.expires_at ?? 'never',
  key.last_used_at ?? 'never',
];

/** Columns padded to their widest cell; a name with a newline or tab would break the rows, so those become spaces. */
function table(headings: string[], rows: string[][]): string {
  const cells = [headings, ...rows].map((cellsOfRow) => cellsOfRow.map((cell) => cell.replace(/\s/g, ' ')));
  const widths = headings.map((_, column) => Math.max(...cells.map((cellsOfRow) => cellsOfRow[column]!.length)));
  return `${cells.map((cellsOfRow) => cellsOfRow.map((cell, column) => (column === cellsOfRow.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  ')).join('\n')}\n`;
}

async function revokeKey(context: Context, id: string | undefined): Promise<undefined> {
  if (id === undefined) throw usageError('Name the key: hushlink keys revoke ID (ids are in `hushlink keys list`).');
  try {
    await apiClient(context.api, context).call('DELETE', `/v1/api-keys/${encodeURIComponent(id)}`, {
      auth: 'session',
      signal: context.signal,
    });
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      throw new CliError(
        exitCodes.refused,
        error.code,
        `This account has no API key ${id} (revoked already, or never made): \`hushlink keys list\` shows its keys.`,
        { cause: error },
      );
    }
    throw error;
  }
  if (context.json) context.stdout.write(`${JSON.stringify({ id, revoked: true }, null, 2)}\n`);
  else context.stderr.write(`Revoked ${id}: it no longer works.\n`);
}
