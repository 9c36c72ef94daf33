import { ssoPolicyOf } from '../fakes/accountGroup.ts';
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { revokeApiKey } from '../../shared/domain/accounts/apiKeys.ts';
import { chainedRefreshToken, newChainKey } from '../../shared/domain/accounts/refreshChain.ts';
import { refreshSession, type SessionPorts } from '../../shared/domain/accounts/sessions.ts';
import { resendSignInCode, signInWithLink, verifySignInCode, type SignInPorts } from '../../shared/domain/accounts/signIn.ts';
import type { Session } from '../../shared/domain/accounts/model.ts';
import { configuredApp, type ChatApp } from '../../shared/domain/chat/app.ts';
import { answerChatCommand } from '../../shared/domain/chat/command.ts';
import { completeChatInstall, type ChatInstallPorts } from '../../shared/domain/chat/install.ts';
import { subscribeChat, type ChatSubscribePorts } from '../../shared/domain/chat/subscribe.ts';
import { issueChatToken, issueInstallState } from '../../shared/domain/chat/tokens.ts';
import { Forbidden, Invalid, NotFound, RateLimited, type Refusal, Unauthenticated } from '../../shared/domain/refusals.ts';
import { deleteEndpoint, listDeliveries, queueTestDelivery, registerEndpoint } from '../../shared/domain/webhooks/endpoints.ts';
import type { WebhookEndpoint } from '../../shared/domain/webhooks/model.ts';
import type { WebhookStore } from '../../shared/domain/webhooks/ports.ts';
import { HttpError, problemBody } from '../../shared/http/errors.ts';
import { toHttpError } from '../../shared/http/refusals.ts';
import { newSessionId, sha256Base64Url } from '../../shared/ids.ts';
import { signInLimits, webhookLimits } from '../../shared/limits.ts';
import { type DestinationRefused, parseWebhookUrl } from '../../shared/webhooks/destination.ts';
import { StoppedClock } from '../support/clock.ts';

// The accounts, webhooks and chat use cases refuse in the domain's words (issue 27); what a client
// reads of each refusal is exactly what the HttpError it replaced said: status, code, detail,
// problem members, field errors and headers. Each expectation is that former HttpError, verbatim.

async function refusalOf(work: Promise<unknown>): Promise<unknown> {
  try {
    await work;
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal');
}

async function expectRefusal(work: Promise<unknown>, kind: abstract new (...args: never[]) => Refusal, before: HttpError): Promise<void> {
  const error = await refusalOf(work);
  const after = toHttpError(error);
  expect(problemBody(after)).toEqual(problemBody(before));
  expect(after.extras.headers ?? {}).toEqual(before.extras.headers ?? {});
  expect(error).toBeInstanceOf(kind);
}

const unused = new Proxy(
  {},
  {
    get: (_, name) => {
      throw new Error(`unexpected call: ${String(name)}`);
    },
  },
);
const clock = new StoppedClock();

describe('accounts', () => {
  it('an API key that is not the caller’s is not found', async () => {
    const apiKeys = { ...unused, delete: async () => false } as never;
    await expectRefusal(
      revokeApiKey('usr_1', 'key_AAAAAAAAAAAAAAAA', { apiKeys }),
      NotFound,
      new HttpError(404, 'not_found', 'You have no API key with this id.'),
    );
  });

  it('a refresh token naming no session, and one rotated away, are unauthenticated without a challenge', async () => {
    const session: Session = {
      id: newSessionId(),
      userId: 'usr_1',
      deviceName: 'd',
      createdAt: clock.now(),
      lastUsedAt: clock.now(),
      refreshHash: sha256Base64Url('current'),
      rotatedHashes: [],
      chainKey: newChainKey(),
      refreshExpiresAt: clock.now() + 3600_000,
    };
    const ports = {
      clock,
      users: unused,
      accessTokens: unused,
      sessions: { get: async () => structuredClone(session), revoke: async () => {} },
    } as unknown as SessionPorts;
    await expectRefusal(
      refreshSession('hlr_nothing', ports),
      Unauthenticated,
      new HttpError(401, 'unauthorized', 'This refresh token is not valid; sign in again.'),
    );
    await expectRefusal(
      refreshSession(chainedRefreshToken(session.id, session.chainKey!), ports),
      Unauthenticated,
      new HttpError(401, 'unauthorized', 'This refresh token was already used; the session is signed out for safety.', {
        members: { reason: 'refresh_token_reused' },
      }),
    );
  });

  const signIn = (over: Partial<Record<keyof SignInPorts, unknown>>) =>
    ({
      clock,
      ssoPolicy: ssoPolicyOf(false),
      rateCounter: { addIfBelow: async () => 1 },
      signInCodes: { get: async () => ({ codes: [], version: 0 }) },
      ...over,
    }) as unknown as SignInPorts;

  it('a resend within the cooldown is rate limited until it ends', async () => {
    const ports = signIn({ signInCodes: { markAsked: async () => clock.now() - 10_000 } });
    const wait = signInLimits.resendCooldownSeconds - 10;
    await expectRefusal(
      resendSignInCode('ana@example.com', '192.0.2.1', ports),
      RateLimited,
      new HttpError(429, 'rate_limited', `A code was just sent; you can ask again in ${wait} s.`, {
        headers: { 'retry-after': String(wait) },
      }),
    );
  });

  it('a code for an address under SSO is forbidden; a wrong code tells the guesses left', async () => {
    await expectRefusal(
      verifySignInCode('ana@example.com', '12345678', 'd', '192.0.2.1', signIn({ ssoPolicy: ssoPolicyOf(true) })),
      Forbidden,
      new HttpError(403, 'forbidden', 'This address signs in through its organization’s single sign-on.', {
        members: { reason: 'sso_required' },
      }),
    );
    const left = Math.min(...signInLimits.guessesPerSource.map((window) => window.limit)) - 1;
    await expectRefusal(
      verifySignInCode('ana@example.com', '12345678', 'd', '192.0.2.1', signIn({})),
      Unauthenticated,
      new HttpError(401, 'unauthorized', 'That code is not right, or it has expired or been used.', { members: { attempts_left: left } }),
    );
  });

  it('a sign-in link under SSO is forbidden as its code is; one that does not work is a 401 that tells nothing more', async () => {
    const token = `hls_${'A'.repeat(43)}`;
    await expectRefusal(
      signInWithLink('ana@example.com', token, 'd', signIn({ ssoPolicy: ssoPolicyOf(true) })),
      Forbidden,
      new HttpError(403, 'forbidden', 'This address signs in through its organization’s single sign-on.', {
        members: { reason: 'sso_required' },
      }),
    );
    // No guess is counted: the rate counter is never asked.
    await expectRefusal(
      signInWithLink('ana@example.com', token, 'd', signIn({ rateCounter: unused })),
      Unauthenticated,
      new HttpError(
        401,
        'unauthorized',
        'This sign-in link does not work: it has expired, or it or its code was used. Ask for a new code.',
      ),
    );
  });
});

describe('webhooks', () => {
  const endpoint: WebhookEndpoint = {
    id: 'whk_AAAAAAAAAAAAAAAAAAAAAA',
    userId: 'usr_1',
    url: 'https://example.com/',
    events: [],
    sealedSecret: 's',
    enabled: true,
    consecutiveFailures: 0,
    createdAt: 0,
  };
  const store = (over: Partial<WebhookStore>) => ({ ...unused, ...over }) as WebhookStore;
  const registering = (webhooks: WebhookStore) => ({
    webhooks,
    clock,
    local: false,
    sealer: { seal: async () => 'sealed', open: async () => '' },
    resolver: { resolve4: async () => ['93.184.215.14'], resolve6: async () => [] },
  });
  const notFound = new HttpError(404, 'not_found', 'No webhook endpoint of yours has this id.');

  it('a URL that cannot receive webhooks is invalid, naming the field and why', async () => {
    let refused: DestinationRefused | undefined;
    try {
      parseWebhookUrl('http://example.com/hook', { local: false });
    } catch (error) {
      refused = error as DestinationRefused;
    }
    await expectRefusal(
      registerEndpoint('usr_1', { url: 'http://example.com/hook' }, registering(store({}))),
      Invalid,
      new HttpError(400, 'invalid_request', 'This URL cannot receive webhooks.', {
        errors: [{ path: 'body.url', message: refused!.message }],
        members: { reason: refused!.reason },
      }),
    );
  });

  it('one endpoint beyond the limit is forbidden', async () => {
    await expectRefusal(
      registerEndpoint('usr_1', { url: 'https://example.com/hook' }, registering(store({ insertEndpoint: async () => false }))),
      Forbidden,
      new HttpError(403, 'forbidden', `An account can have at most ${webhookLimits.endpointsPerUser} webhook endpoints; delete one first.`),
    );
  });

  it('an endpoint that is not the caller’s is not found, whatever is asked of it', async () => {
    const none = { webhooks: store({ getEndpoint: async () => null }), clock };
    await expectRefusal(deleteEndpoint('usr_1', 'not-an-id', none), NotFound, notFound);
    await expectRefusal(queueTestDelivery('usr_1', endpoint.id, none), NotFound, notFound);
    await expectRefusal(listDeliveries('usr_1', endpoint.id, 10, null, none), NotFound, notFound);
    const goneMeanwhile = { webhooks: store({ getEndpoint: async () => endpoint, deleteEndpoint: async () => false }) };
    await expectRefusal(deleteEndpoint('usr_1', endpoint.id, goneMeanwhile), NotFound, notFound);
  });

  it('a cursor the log did not give out is invalid, in the query', async () => {
    const invalidCursor = Object.assign(new Error('bad cursor'), { name: 'InvalidCursor' });
    const webhooks = store({
      getEndpoint: async () => endpoint,
      listDeliveries: async () => {
        throw invalidCursor;
      },
    });
    await expectRefusal(
      listDeliveries('usr_1', endpoint.id, 10, 'x', { webhooks }),
      Invalid,
      new HttpError(400, 'invalid_request', 'The cursor is not one this listing gave out.', {
        errors: [{ path: 'query.cursor', message: 'is not valid here' }],
      }),
    );
  });
});

describe('chat', () => {
  const app: ChatApp = {
    clientId: 'c',
    clientSecret: 'client-secret',
    signingSecret: 'signing-secret',
    apiUrl: 'https://slack.test/api/',
    api: unused as ChatApp['api'],
  };
  const config = { WEB_ORIGIN: 'https://hushlink.test' };
  const signed = (body: string) => {
    const timestamp = String(Math.floor(clock.now() / 1000));
    const signature = `v0=${createHmac('sha256', 'signing-secret').update(`v0:${timestamp}:${body}`).digest('hex')}`;
    return { rawBody: Buffer.from(body), timestamp, signature };
  };

  it('a deployment without the chat app says so', async () => {
    await expectRefusal(
      configuredApp(async () => null),
      Forbidden,
      new HttpError(
        403,
        'chat_not_configured',
        'This deployment has no chat app: its operator sets SLACK_CLIENT_ID and the Slack secrets to turn it on.',
      ),
    );
  });

  it('a command not signed by Slack is forbidden; one naming no team or user is invalid as a whole', async () => {
    const ports = { chatApp: async () => app, clock, config };
    await expectRefusal(
      answerChatCommand({ ...signed('team_id=T1&user_id=U1'), signature: `v0=${'0'.repeat(64)}` }, ports),
      Forbidden,
      new HttpError(403, 'forbidden', 'This request is not signed by Slack, or not recently.', { members: { reason: 'slack_signature' } }),
    );
    await expectRefusal(
      answerChatCommand(signed('team_id=T1&text=hi'), ports),
      Invalid,
      new HttpError(400, 'invalid_request', 'The command names no team or user.', {
        errors: [{ path: 'body', message: 'team_id and user_id are required' }],
      }),
    );
  });

  it('Slack’s redirect: a missing state, a missing code, a refusal and a refused exchange', async () => {
    const exchangeCode = async () => ({ outcome: 'refused' as const, reason: 'invalid_code' });
    const ports = {
      chatApp: async () => ({ ...app, api: { exchangeCode } }),
      clock,
      config,
      installations: { useInstallState: async () => 'claimed' },
      tokenSealer: unused,
    } as unknown as ChatInstallPorts;
    const state = (await issueInstallState('usr_1', clock.now(), app.clientSecret)).token;
    await expectRefusal(
      completeChatInstall({ code: 'x' }, ports),
      Unauthenticated,
      new HttpError(401, 'unauthorized', 'This install link carries no state: start again from your account page.', {
        members: { reason: 'install_state' },
      }),
    );
    await expectRefusal(
      completeChatInstall({ state }, ports),
      Invalid,
      new HttpError(400, 'invalid_request', 'Slack’s redirect carries no code.', {
        errors: [{ path: 'query.code', message: 'is required' }],
      }),
    );
    await expectRefusal(
      completeChatInstall({ state, error: 'access_denied' }, ports),
      Forbidden,
      new HttpError(403, 'forbidden', 'The install was cancelled in Slack.', {
        members: { reason: 'install_refused', slack_error: 'access_denied' },
      }),
    );
    await expectRefusal(
      completeChatInstall({ state, code: 'x' }, ports),
      Forbidden,
      new HttpError(403, 'forbidden', 'Slack refused the install.', {
        members: { reason: 'install_refused', slack_error: 'invalid_code' },
      }),
    );
  });

  it('subscribing: a bad chat token or delete token is forbidden, a secret that is not there is not found', async () => {
    const chatToken = (await issueChatToken({ teamId: 'T1', slackUserId: 'U1' }, clock.now(), app.clientSecret)).token;
    const ports = (hash: string | null): ChatSubscribePorts => ({
      chatApp: async () => app,
      clock,
      subscriptions: { deleteTokenHashOf: async () => hash, subscribe: async () => 'gone' },
    });
    const request = { secretId: 'sec_1', deleteToken: 'del', chatToken };
    await expectRefusal(
      subscribeChat({ ...request, chatToken: 'not.a.token' }, ports(null)),
      Forbidden,
      new HttpError(403, 'forbidden', 'The chat link has expired or is not valid: run the command again.', {
        members: { reason: 'chat_token' },
      }),
    );
    await expectRefusal(subscribeChat(request, ports(null)), NotFound, new HttpError(404, 'not_found', 'No such secret.'));
    await expectRefusal(
      subscribeChat(request, ports(sha256Base64Url('other'))),
      Forbidden,
      new HttpError(403, 'forbidden', 'The delete token does not match this secret.', { members: { reason: 'delete_token' } }),
    );
    await expectRefusal(
      subscribeChat(request, ports(sha256Base64Url('del'))),
      NotFound,
      new HttpError(404, 'not_found', 'No such secret.'),
    );
  });
});
