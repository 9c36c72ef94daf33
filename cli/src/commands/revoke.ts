/** `hushlink revoke`: ends a secret (or one recipient's link) with its delete token or as its owner. */
import { apiClient } from '../api.ts';
import { flag, text, type Command } from '../command.ts';
import { CliError, exitCodes } from '../errors.ts';
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
    summary: 'Revoke a secret before it is opened.',
    description: `Ends a secret at once: its ciphertext is deleted and its links answer "gone". Give the delete
token \`send\` printed (or HUSHLINK_DELETE_TOKEN); a secret sent while signed in (or with an API key)
is revoked by its owner without one. Given one recipient's link, only that link is revoked, unless --all.
Credentials go only to your deployment (--api, HUSHLINK_API): a link on another host is revoked there
with --token alone.`,
    options: [
      ['--token DELETE_TOKEN', 'The delete token printed when it was sent.'],
      ['--all', "With a recipient's link: revoke the whole secret, every link."],
    ],
    examples: [
      ['hushlink revoke sec_2kQ… --token dt_…', 'Revoke with the delete token.'],
      ['hushlink revoke "$LINK"', 'Revoke a secret you sent while signed in.'],
      ['hushlink revoke "https://…/s/sec_…/r/rcp_…#…"', "Revoke only that recipient's link."],
    ],
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
      throw new CliError(
        exitCodes.refused,
        'other_deployment',
        `That link is on ${base}, not on your deployment (${context.api}, from --api or HUSHLINK_API), so no credential of yours is sent there. Revoke it with its delete token (--token), or, if the secret is yours, by id: hushlink revoke ${ref.id}.`,
      );
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
      context.stderr.write(one ? `Revoked the link ${ref.recipientId} of ${ref.id}.\n` : `Revoked ${ref.id}: its links no longer open.\n`);
  },
};
