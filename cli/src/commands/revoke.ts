/** `hushlink revoke`: ends a secret (or one recipient's link) with its delete token or as its owner. */
import { apiClient } from '../api.ts';
import { flag, text, type Command } from '../command.ts';
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
is revoked by its owner without one. Given one recipient's link, only that link is revoked, unless --all.`,
    options: [
      ['--token DELETE_TOKEN', 'The delete token printed when it was sent.'],
      ['--all', 'With a recipient\'s link: revoke the whole secret, every link.'],
    ],
    examples: [
      ['hushlink revoke sec_2kQ… --token dt_…', 'Revoke with the delete token.'],
      ['hushlink revoke "$LINK"', 'Revoke a secret you sent while signed in.'],
      ['hushlink revoke "https://…/s/sec_…/r/rcp_…#…"', 'Revoke only that recipient\'s link.'],
    ],
  },
  run: async (context) => {
    const ref = secretRef(context.positionals[0], 'revoke');
    const api = apiClient(ref.origin && !text(context.values, 'api') ? ref.origin : context.api, context.env);
    const token = text(context.values, 'token') ?? context.env.HUSHLINK_DELETE_TOKEN;
    const headers = token ? { 'x-delete-token': token } : undefined;
    const path = `/v1/secrets/${encodeURIComponent(ref.id)}`;
    const one = ref.recipientId !== undefined && !flag(context.values, 'all');
    if (one) await api.call('DELETE', `${path}/recipients/${encodeURIComponent(ref.recipientId!)}`, { auth: 'optional', signal: context.signal, ...(headers ? { headers } : {}) });
    else await api.call('DELETE', path, { auth: 'optional', signal: context.signal, ...(headers ? { headers } : {}) });
    const revoked = one ? { id: ref.id, recipient_id: ref.recipientId, state: 'revoked' } : { id: ref.id, state: 'revoked' };
    if (context.json) context.stdout.write(`${JSON.stringify(revoked, null, 2)}\n`);
    else context.stderr.write(one ? `Revoked the link ${ref.recipientId} of ${ref.id}.\n` : `Revoked ${ref.id}: its links no longer open.\n`);
  },
};
