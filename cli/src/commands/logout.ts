/**
 * `hushlink logout`: ends this deployment's session at the service, then forgets it here.
 * Under the config lock, so a command refreshing at the same moment cannot rotate the token
 * away between the read and the logout (the service would be told an old one and keep it).
 */
import { apiClient, lockedCallMs } from '../api.ts';
import { flag, type Command, type CommandHelp } from '../command.ts';
import { credentialsFile, withoutSession } from '../credentials.ts';
import { t } from '../i18n.ts';

export const logout: Command = {
  name: 'logout',
  positionals: 0,
  options: {
    all: { type: 'boolean' },
  },
  help: {
    usage: 'hushlink logout [--all]',
    get summary() {
      return t('cli.logout.summary');
    },
    get description() {
      return t('cli.logout.description');
    },
    get options(): CommandHelp['options'] {
      return [['--all', t('cli.logout.optionAll')]];
    },
    get examples(): CommandHelp['examples'] {
      return [
        ['hushlink logout', t('cli.logout.exampleHere')],
        ['hushlink logout --all', t('cli.logout.exampleEverywhere')],
        ['hushlink logout --api https://hushlink.example.com', t('cli.logout.exampleApi')],
      ];
    },
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
      context.stderr.write(`${t('cli.logout.notSignedIn', { api: context.api })}\n`);
      if (context.json) context.stdout.write(`${JSON.stringify({ api: context.api, signed_out: false }, null, 2)}\n`);
      return;
    }
    const signedOut = flag(context.values, 'all')
      ? t('cli.logout.signedOutAll', { api: context.api, email, count: ended })
      : t('cli.logout.signedOut', { api: context.api, email });
    context.stderr.write(`${signedOut}\n`);
    if (context.env.HUSHLINK_API_KEY) context.stderr.write(`${t('cli.logout.apiKeyStillSet')}\n`);
    if (context.json)
      context.stdout.write(
        `${JSON.stringify({ api: context.api, email, signed_out: true, ...(flag(context.values, 'all') ? { sessions_ended: ended } : {}) }, null, 2)}\n`,
      );
  },
};
