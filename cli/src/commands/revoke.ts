/** `hushlink revoke`: ends a secret (or one recipient's link) with its delete token or as its owner. */
import { apiClient } from '../api.ts';
import { flag, text, type Command, type CommandHelp } from '../command.ts';
import { CliError, exitCodes } from '../errors.ts';
import { t } from '../i18n.ts';
import { secretRef } from '../secretRef.ts';

export const revoke: Command = {
  name: 'revoke',
  positionals: 1,
  options: {
    token: { type: 'string' },
    all: { type: 'boolean' },
  },
  help: {
    usage: 'hushlink revoke LINK|ID [--token DELETE_TOKEN]',
    get summary() {
      return t('cli.revoke.summary');
    },
    get description() {
      return t('cli.revoke.description');
    },
    get options(): CommandHelp['options'] {
      return [
        ['--token DELETE_TOKEN', t('cli.revoke.optionToken')],
        ['--all', t('cli.revoke.optionAll')],
      ];
    },
    get examples(): CommandHelp['examples'] {
      return [
        ['hushlink revoke sec_2kQ… --token dt_…', t('cli.revoke.exampleToken')],
        ['hushlink revoke "$LINK"', t('cli.revoke.exampleOwner')],
        ['hushlink revoke "https://…/s/sec_…/r/rcp_…#…"', t('cli.revoke.exampleRecipient')],
      ];
    },
  },
  run: async (context) => {
    const ref = secretRef(context.positionals[0], 'revoke');
    const base = ref.origin && !text(context.values, 'api') ? ref.origin : context.api;
    const elsewhere = base !== context.api;
    const api = apiClient(base, context);
    // HUSHLINK_DELETE_TOKEN is, like the API key, for the configured deployment's secret: a link
    // naming another host gets only a token given for it on the command line.
    const token = text(context.values, 'token') ?? (elsewhere ? undefined : context.env.HUSHLINK_DELETE_TOKEN);
    // Without a token only its owner may revoke it, and no credential of yours goes to another host
    // (but a session signed in there): refused here, before anything is sent.
    if (token === undefined && elsewhere && (await api.bearer('optional')) === undefined) {
      throw new CliError(exitCodes.refused, 'other_deployment', t('cli.revoke.otherDeployment', { base, api: context.api, id: ref.id }));
    }
    const headers = token ? { 'x-delete-token': token } : undefined;
    const path = `/v1/secrets/${encodeURIComponent(ref.id)}`;
    const one = ref.recipientId !== undefined && !flag(context.values, 'all');
    if (one)
      await api.call('DELETE', `${path}/recipients/${encodeURIComponent(ref.recipientId!)}`, {
        auth: 'optional',
        signal: context.signal,
        ...(headers ? { headers } : {}),
      });
    else await api.call('DELETE', path, { auth: 'optional', signal: context.signal, ...(headers ? { headers } : {}) });
    const revoked = one ? { id: ref.id, recipient_id: ref.recipientId, state: 'revoked' } : { id: ref.id, state: 'revoked' };
    if (context.json) context.stdout.write(`${JSON.stringify(revoked, null, 2)}\n`);
    else
      context.stderr.write(
        `${one ? t('cli.revoke.revokedLink', { recipient: ref.recipientId!, id: ref.id }) : t('cli.revoke.revoked', { id: ref.id })}\n`,
      );
  },
};
