/**
 * `hushlink logout`: ends this deployment's session at the service, then forgets it here.
 * Under the config lock, so a command refreshing at the same moment cannot rotate the token
 * away between the read and the logout (the service would be told an old one and keep it).
 */
import { apiClient, lockedCallMs } from '../api.ts';
import { flag, type Command } from '../command.ts';
import { credentialsFile, withoutSession } from '../credentials.ts';

export const logout: Command = {
  name: 'logout',
  positionals: 0,
  options: {
    all: { type: 'boolean' },
  },
  help: {
    usage: 'hushlink logout [--all]',
    summary: 'Sign out: end the session kept for this deployment.',
    description: `Ends the session \`hushlink login\` made for the deployment (--api or HUSHLINK_API): the service
refuses its tokens from then on, and it is removed from credentials.json (the file too, once it
holds no other deployment's). Not signed in, it says so and succeeds. With --all, every session
of the account ends: the browser's and other machines' too. API keys are not touched: revoke
them with \`hushlink keys revoke\`. If the service cannot be reached, the session is kept, so
that running it again ends it there too.`,
    options: [['--all', 'Sign out every session of the account, on every device.']],
    examples: [
      ['hushlink logout', 'Sign out on this machine.'],
      ['hushlink logout --all', 'Sign out everywhere (a lost laptop, a shared browser).'],
      ['hushlink logout --api https://hushlink.example.com', 'Sign out of another deployment.'],
    ],
  },
  run: async (context) => {
    const file = credentialsFile(context.env);
    const api = apiClient(context.api, context);
    let ended = 0;
    if (flag(context.values, 'all')) {
      // A session route: the client refreshes the access token first if it has to.
      if ((await file.read())?.[context.api])
        ended = (await api.call<{ signed_out: number }>('POST', '/v1/auth/logout-all', { auth: 'session', signal: context.signal }))
          .signed_out;
    }
    const email = await file.update(async (sessions) => {
      const session = sessions?.[context.api];
      if (!session) return { value: sessions, result: undefined };
      await api.call('POST', '/v1/auth/logout', {
        json: { refresh_token: session.refresh_token },
        signal: AbortSignal.any([context.signal, AbortSignal.timeout(lockedCallMs)]),
      });
      return { value: withoutSession(sessions, context.api), result: session.email };
    });
    if (email === undefined) {
      context.stderr.write(`Not signed in to ${context.api}; nothing to do.\n`);
      if (context.json) context.stdout.write(`${JSON.stringify({ api: context.api, signed_out: false }, null, 2)}\n`);
      return;
    }
    const everywhere = flag(context.values, 'all') ? ` and ${ended} session${ended === 1 ? '' : 's'} ended everywhere` : '';
    context.stderr.write(`Signed out of ${context.api} (${email})${everywhere}.\n`);
    if (context.env.HUSHLINK_API_KEY) context.stderr.write('HUSHLINK_API_KEY is still set: commands keep using that key.\n');
    if (context.json)
      context.stdout.write(
        `${JSON.stringify({ api: context.api, email, signed_out: true, ...(flag(context.values, 'all') ? { sessions_ended: ended } : {}) }, null, 2)}\n`,
      );
  },
};
