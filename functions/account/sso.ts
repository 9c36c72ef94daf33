import { deviceNameOf } from '../../shared/domain/accounts/sessions.ts';
import { completeSsoSignIn, exchangeSsoCode, ssoCallbackUrl, startSsoSignIn } from '../../shared/domain/sso/signIn.ts';
import type { Operations } from '../../shared/http/group.ts';
import type { OperationOf } from '../../shared/routes.ts';
import type { AccountDeps } from '../account.ts';
import { issued } from './issued.ts';

type SsoOperation = Extract<OperationOf<'account'>, 'startSsoSignIn' | 'completeSsoSignIn' | 'exchangeSsoCode'>;

/** A redirect nobody keeps: the location carries a state or a one-time code. */
const redirect = (location: string) =>
  ({ status: 302, body: undefined, headers: { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' } }) as const;

/** Single sign-on through a workspace's identity provider (issue 29, beyond the interface). */
export const ssoOperations: Pick<Operations<'account', AccountDeps>, SsoOperation> = {
  async startSsoSignIn(request, deps) {
    const { email, return_to: returnTo, client_challenge: clientChallenge, loopback } = request.query;
    const { location } = await startSsoSignIn({ email, returnTo, clientChallenge, loopback }, deps);
    return redirect(location);
  },

  async completeSsoSignIn(request, deps) {
    // The callback URL the provider was given, with the query as it arrived: never the request's
    // own Host, which a client chooses.
    const url = new URL(ssoCallbackUrl(deps.config));
    url.search = request.rawQueryString;
    const { location } = await completeSsoSignIn({ state: request.query.state, error: request.query.error, url }, deps);
    return redirect(location);
  },

  async exchangeSsoCode(request, deps) {
    const { code, code_verifier: codeVerifier, device_name: deviceName, session_cookie: asCookie } = request.body;
    const tokens = await exchangeSsoCode({ code, codeVerifier, deviceName: deviceNameOf(deviceName, request.headers['user-agent']) }, deps);
    return issued(tokens, asCookie === true);
  },
};
