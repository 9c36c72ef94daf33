import { randomBytes } from 'node:crypto';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { createKey, jwtPayload, latestCode, mailsTo, newEmail, signIn } from '../support/accounts.ts';
import { seal } from '../../shared/envelope/envelope.ts';
import { apiClient, claimPair, linkPair, startTestRuntime, textSecretBody } from '../support/runtime.ts';
import { invitationToken, setWorkspace } from '../support/workspaces.ts';
import { stripeClient } from '../../shared/adapters/stripe.ts';
import { sha256Base64Url } from '../../shared/ids.ts';
import { signSlashCommand, slashCommand } from '../../local/slack/signing.ts';
import { signInAt } from '../../local/oidc/provider.ts';

/** Everything the service writes to stdout/stderr while this file runs, at the most verbose level. */
const captured: string[] = [];
const writes = { out: process.stdout.write.bind(process.stdout), err: process.stderr.write.bind(process.stderr) };

let runtime: Runtime;
beforeAll(async () => {
  const capture = (chunk: unknown) => {
    captured.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
    return true;
  };
  process.stdout.write = capture as typeof process.stdout.write;
  process.stderr.write = capture as typeof process.stderr.write;
  runtime = await startTestRuntime({ logLevel: 'DEBUG', identityProvider: true });
});
afterAll(async () => {
  await runtime?.stop();
  process.stdout.write = writes.out;
  process.stderr.write = writes.err;
});

describe('logs', () => {
  it('carry requests but never envelopes, salts, tokens, codes, keys or addresses', async () => {
    const api = apiClient(runtime);
    const { token, verifier } = claimPair();
    const body = textSecretBody({ claim_verifier: verifier, link_verifier: linkPair().verifier, max_views: 2 });
    const created = await api.post('/v1/secrets', body);
    expect(created.status).toBe(201);
    const id: string = created.body.id;
    const deleteToken: string = created.body.delete_token;

    expect((await api.post(`/v1/secrets/${id}/claim`, { claim_token: 'wrong-token' })).status).toBe(403);
    expect((await api.post(`/v1/secrets/${id}/claim`, { claim_token: token })).status).toBe(200);
    expect((await api.delete(`/v1/secrets/${id}`, { 'x-delete-token': 'hdt_wrong' })).status).toBe(403);
    expect((await api.delete(`/v1/secrets/${id}`, { 'x-delete-token': deleteToken })).status).toBe(204);
    expect((await api.post('/v1/secrets', { ...body, size_bytes: 1 })).status).toBe(400);
    runtime.clock.advance(3 * 24 * 3600);
    await runtime.scheduler.run('expire-secrets');

    // Account credentials: the sign-in code, tokens and an API key, used and refreshed.
    const email = newEmail('logs');
    const session = await signIn(runtime, email);
    const code = latestCode(runtime, email)!;
    const key = await createKey(runtime, session, ['secrets:write', 'secrets:read']);
    expect((await api.get('/v1/secrets', key.auth)).status).toBe(200);
    expect((await api.post('/v1/secrets', textSecretBody(), session.auth)).status).toBe(201);
    const refreshed = await api.post('/v1/auth/refresh', { refresh_token: session.refresh_token });
    expect(refreshed.status).toBe(200);
    // Again within the grace window: the same new token, kept sealed in the table meanwhile.
    expect((await api.post('/v1/auth/refresh', { refresh_token: session.refresh_token })).body.refresh_token).toBe(
      refreshed.body.refresh_token,
    );
    const stored = (await runtime.stores.sessions.get(jwtPayload(refreshed.body.access_token).sid as string))!;
    // The sealed token of the grace window, and the key every refresh token of the session is tagged with.
    const [sealed, chainKey] = [stored.grace!.sealedNext, stored.chainKey!];
    expect((await api.post('/v1/auth/otp/verify', { email, code: '00000000' })).status).toBe(401);
    // A sign-in link (ADR 0167): its page opened, its token used, used again, and a wrong one.
    const linkEmail = newEmail('link-logs');
    expect((await api.post('/v1/auth/otp/start', { email: linkEmail })).status).toBe(200);
    const signInLink = new URL(/^http:\/\/\S+$/m.exec(mailsTo(runtime, linkEmail)[0]!.text)![0]);
    const linkToken = new URLSearchParams(signInLink.hash.slice(1)).get('token')!;
    expect((await fetch(signInLink.href)).status).toBe(200);
    const byLink = await api.post('/v1/auth/otp/link', { email: linkEmail, token: linkToken });
    expect(byLink.status).toBe(200);
    expect((await api.post('/v1/auth/otp/link', { email: linkEmail, token: linkToken })).status).toBe(401);
    // Another last character: 'A' itself ends one token in 16 (43 base64url characters carry 256 bits).
    const altered = `${linkToken.slice(0, -1)}${linkToken.endsWith('A') ? 'Q' : 'A'}`;
    expect((await api.post('/v1/auth/otp/link', { email: linkEmail, token: altered })).status).toBe(401);
    // The token, its random part, its stored hash, the link's fragment and what the session got.
    const signInLinkSecrets = [
      linkToken,
      linkToken.slice(4),
      sha256Base64Url(`signin-link:${linkToken}`),
      signInLink.hash.slice(1),
      encodeURIComponent(linkEmail),
      linkEmail,
      byLink.body.access_token,
      byLink.body.refresh_token,
    ];
    // The web client's session per browser (ADR 0178): a cookie set, refreshed, and cleared by logout.
    const cookieEmail = newEmail('cookie-logs');
    expect((await api.post('/v1/auth/otp/start', { email: cookieEmail })).status).toBe(200);
    const cookieSignIn = await api.post('/v1/auth/otp/verify', {
      email: cookieEmail,
      code: latestCode(runtime, cookieEmail),
      session_cookie: true,
    });
    const firstCookie = cookieSignIn.headers.getSetCookie()[0]!.split(';')[0]!;
    const cookieRefreshed = await api.post('/v1/auth/refresh', {}, { cookie: firstCookie, 'sec-fetch-site': 'same-origin' });
    expect(cookieRefreshed.status).toBe(200);
    const nextCookie = cookieRefreshed.headers.getSetCookie()[0]!.split(';')[0]!;
    expect((await api.post('/v1/auth/logout', {}, { cookie: nextCookie, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    signInLinkSecrets.push(
      cookieSignIn.body.access_token,
      firstCookie.split('=')[1]!,
      cookieRefreshed.body.access_token,
      nextCookie.split('=')[1]!,
    );

    // A webhook endpoint's signing secret, and a delivery relayed from the stream and sent.
    const receiver = createServer((request, response) => request.resume().on('end', () => response.writeHead(204).end()));
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
    const hook = await api.post('/v1/webhooks', { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook` }, session.auth);
    expect(hook.status).toBe(201);
    expect((await api.post('/v1/secrets', textSecretBody(), session.auth)).status).toBe(201);
    await runtime.drainWork();
    receiver.close();

    // A secret with links: a restricted one's gate code and session, the link token of a claim,
    // a receipt's user agent, and curl mode's plaintext and key.
    const restricted = newEmail('gate-logs');
    const link = linkPair();
    const linked = await api.post(
      '/v1/secrets',
      textSecretBody({ claim_verifier: verifier, link_verifier: link.verifier, recipients: [{ email: restricted, restricted: true }] }),
      session.auth,
    );
    expect(linked.status).toBe(201);
    const recipientId: string = linked.body.recipients[0].recipient_id;
    expect((await api.post(`/v1/secrets/${linked.body.id}/gate/start`, { recipient_id: recipientId, email: restricted })).status).toBe(200);
    const gateCode = /\b(\d{6})\b/.exec(mailsTo(runtime, restricted)[0]!.text)![1]!;
    expect(
      (await api.post(`/v1/secrets/${linked.body.id}/gate/verify`, { recipient_id: recipientId, email: restricted, code: '000000' }))
        .status,
    ).toBe(401);
    const gate = await api.post(`/v1/secrets/${linked.body.id}/gate/verify`, {
      recipient_id: recipientId,
      email: restricted,
      code: gateCode,
    });
    expect(gate.status).toBe(200);
    const agent = `Mozilla/5.0 (logs-canary-${Date.now()})`;
    const opened = await api.post(
      `/v1/secrets/${linked.body.id}/claim`,
      { claim_token: token, link_token: link.token, recipient_id: recipientId, gate_token: gate.body.gate_token },
      { 'user-agent': agent },
    );
    expect(opened.status).toBe(200);
    const curlPlaintext = `curl-canary-${Date.now()}-plaintext`;
    const curled = await api.call('POST', '/v1/curl', { body: curlPlaintext, headers: { 'content-type': 'text/plain' } });
    expect(curled.status).toBe(200);
    const curlKey = new URL(String(curled.body).trim()).hash.slice(1);
    // A file: its part URLs and the claim's download URL are credentials (a view, an upload),
    // and so is its delete token; the salt is the client's.
    const fileSalt = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('base64url');
    const file = await api.post('/v1/files/multipart', {
      size_bytes: 1000,
      salt: fileSalt,
      claim_verifier: verifier,
      link_verifier: linkPair().verifier,
    });
    expect(file.status).toBe(200);
    const fileRef = { id: file.body.id, upload_id: file.body.upload_id, delete_token: file.body.delete_token };
    const put = await fetch(file.body.parts[0].url, { method: 'PUT', body: new Uint8Array(1000) });
    expect(put.status).toBe(200);
    expect((await api.post('/v1/files/multipart', { resume: fileRef })).status).toBe(200);
    expect(
      (await api.post('/v1/files/multipart/complete', { ...fileRef, parts: [{ part_number: 1, etag: put.headers.get('etag') }] })).status,
    ).toBe(200);
    const fileClaim = await api.post(`/v1/secrets/${file.body.id}/claim`, { claim_token: token });
    expect(fileClaim.status).toBe(200);
    expect((await fetch(fileClaim.body.download.url, { headers: { range: 'bytes=0-9' } })).status).toBe(206);
    const signatureOf = (url: string) => new URL(url).searchParams.get('X-Amz-Signature')!;
    const fileSecrets = [fileSalt, file.body.delete_token, signatureOf(file.body.parts[0].url), signatureOf(fileClaim.body.download.url)];
    // A request link: its sealed prompt, and a response's envelope and wrapped key.
    const prompt = Buffer.from(
      (await seal({ kind: 'text', plaintext: new TextEncoder().encode(`prompt-canary-${Date.now()}`) })).envelope,
    ).toString('base64');
    const requestLink = await api.post(
      '/v1/requests',
      { public_key: randomBytes(32).toString('base64url'), kem: 'x25519', prompt_envelope: prompt },
      session.auth,
    );
    expect(requestLink.status).toBe(201);
    expect((await api.get(`/v1/requests/${requestLink.body.id}`)).body.prompt_envelope).toBe(prompt);
    const responseBody = {
      kind: 'text',
      envelope: randomBytes(60).toString('base64'),
      salt: randomBytes(16).toString('base64url'),
      size_bytes: 60,
      enc: randomBytes(32).toString('base64url'),
      wrapped_key: randomBytes(48).toString('base64url'),
    };
    expect((await api.post(`/v1/requests/${requestLink.body.id}/responses`, responseBody)).status).toBe(201);
    expect((await api.get(`/v1/requests/${requestLink.body.id}/inbox`, session.auth)).status).toBe(200);
    const requestSecrets = [prompt, responseBody.envelope, responseBody.enc, responseBody.wrapped_key];
    // A workspace invitation: its token (mailed in /join#…), refused for another address, then
    // accepted; the invitee's address; the audit trail exported (addresses in every row).
    const workspace = await api.post('/v1/workspaces', { name: 'Canary' }, session.auth);
    await setWorkspace(runtime, workspace.body.id, { seats: 3, plan: 'team' });
    const invitee = newEmail('invitee-logs');
    expect(
      (await api.post(`/v1/workspaces/${workspace.body.id}/invitations`, { email: invitee, role: 'member' }, session.auth)).status,
    ).toBe(201);
    const invitation = invitationToken(runtime, invitee);
    // Its page's preview, before and after it was used (ADR 0181).
    expect((await api.post('/v1/workspaces/invitations/preview', { token: invitation })).status).toBe(200);
    expect((await api.post('/v1/workspaces/invitations/accept', { token: invitation }, session.auth)).status).toBe(403);
    const joined = await signIn(runtime, invitee);
    expect((await api.post('/v1/workspaces/invitations/accept', { token: invitation }, joined.auth)).status).toBe(200);
    expect((await api.post('/v1/workspaces/invitations/preview', { token: invitation })).status).toBe(410);
    expect((await api.get(`/v1/workspaces/${workspace.body.id}/audit/export`, session.auth)).status).toBe(200);
    // A custom domain verified, and the SSO directory's key: made, then rotated.
    const claimed = await api.post(
      '/v1/domains',
      { workspace_id: workspace.body.id, hostname: `canary-${Date.now()}.example` },
      session.auth,
    );
    runtime.dns.setRecords(claimed.body.verification.name, [{ type: 'TXT', data: claimed.body.verification.value }]);
    expect((await api.post(`/v1/domains/${claimed.body.id}/verify`, undefined, session.auth)).body.state).toBe('verified');
    // With its OIDC client: the client secret is sealed, and never logged (issue 29).
    const ssoClientSecret = `sso-client-${randomBytes(12).toString('base64url')}`;
    const ssoBody = {
      issuer: runtime.oidc.issuer,
      email_domain: claimed.body.hostname,
      client_id: '0oacanary',
      client_secret: ssoClientSecret,
    };
    await runtime.oidc.registerClient({
      client_id: '0oacanary',
      client_secret: ssoClientSecret,
      redirect_uris: [`${runtime.config.WEB_ORIGIN}/v1/auth/sso/callback`],
    });
    const firstKey = (await api.call('PUT', `/v1/workspaces/${workspace.body.id}/sso`, { json: ssoBody, headers: session.auth })).body.scim
      .directory_key as string;
    const rotatedKey = (
      await api.call('PUT', `/v1/workspaces/${workspace.body.id}/sso`, {
        json: { ...ssoBody, rotate_directory_key: true },
        headers: session.auth,
      })
    ).body.scim.directory_key as string;
    expect([firstKey, rotatedKey].every((key) => key.startsWith('hlscim_'))).toBe(true);
    // SCIM: the directory provisions with the key (the rotated-away one refused), Okta's random password in the body, Entra's in a PATCH.
    const scim = (key: string, method: string, path: string, json?: unknown) =>
      api.call(method, `/scim/v2${path}`, { ...(json === undefined ? {} : { json }), headers: { authorization: `Bearer ${key}` } });
    expect((await scim(firstKey, 'GET', '/Users')).status).toBe(401);
    const provisioned = newEmail('scim-logs');
    const oktaPassword = `Okta-${randomBytes(12).toString('base64url')}`;
    const entraPassword = `Entra-${randomBytes(12).toString('base64url')}`;
    const scimUser = await scim(rotatedKey, 'POST', '/Users', {
      userName: provisioned,
      emails: [{ value: provisioned, primary: true }],
      password: oktaPassword,
      active: true,
    });
    expect(scimUser.status).toBe(201);
    const patchOp = { Operations: [{ op: 'replace', value: { password: entraPassword, active: false } }] };
    expect((await scim(rotatedKey, 'PATCH', `/Users/${scimUser.body.id}`, patchOp)).status).toBe(200);
    expect((await scim(rotatedKey, 'GET', `/Users?filter=${encodeURIComponent(`userName eq "${provisioned}"`)}`)).body.totalResults).toBe(
      1,
    );
    // A Group pushed with the key (issue 30): made with the User, renamed, emptied by PATCH, deleted.
    const scimGroup = await scim(rotatedKey, 'POST', '/Groups', { displayName: 'Canary admins', members: [{ value: scimUser.body.id }] });
    expect(scimGroup.status).toBe(201);
    const groupPatch = {
      Operations: [
        { op: 'replace', value: { displayName: 'Canary admins 2' } },
        { op: 'remove', path: 'members' },
      ],
    };
    expect((await scim(rotatedKey, 'PATCH', `/Groups/${scimGroup.body.id}`, groupPatch)).status).toBe(200);
    expect((await scim(rotatedKey, 'DELETE', `/Groups/${scimGroup.body.id}`)).status).toBe(204);
    // Signed in through the workspace's provider (issue 29): its state, the provider's code, the one-time code, the session's tokens.
    const ssoStart = await fetch(
      `${runtime.url}/v1/auth/sso/start?${new URLSearchParams({ email: `sso-canary@${claimed.body.hostname}` }).toString()}`,
      { redirect: 'manual' },
    );
    expect(ssoStart.status).toBe(302);
    const ssoRedirect = await signInAt(runtime.oidc, ssoStart.headers.get('location')!, `sso-canary@${claimed.body.hostname}`);
    const ssoCallback = await fetch(`${runtime.url}${ssoRedirect.pathname}${ssoRedirect.search}`, { redirect: 'manual' });
    expect(ssoCallback.status).toBe(302);
    const oneTimeCode = new URLSearchParams(new URL(ssoCallback.headers.get('location')!).hash.slice(1)).get('code')!;
    const ssoTokens = await api.post('/v1/auth/sso/exchange', { code: oneTimeCode });
    expect(ssoTokens.status).toBe(200);
    const ssoSecrets = [
      ssoRedirect.searchParams.get('state')!,
      ssoRedirect.searchParams.get('code')!,
      oneTimeCode,
      oneTimeCode.slice(4),
      ssoTokens.body.access_token,
      ssoTokens.body.refresh_token,
    ];
    const workspaceSecrets = [
      ...ssoSecrets,
      invitation,
      invitation.slice(4),
      invitee,
      joined.access_token,
      joined.refresh_token,
      firstKey,
      rotatedKey,
      ssoClientSecret,
      firstKey.slice(7),
      rotatedKey.slice(7),
      provisioned,
      oktaPassword,
      entraPassword,
    ];
    // Chat: an install (its state, Slack's code, the bot token), a command with typed text, the chat token, a subscription.
    const installStarted = await api.post('/v1/chat/install', undefined, session.auth);
    const installState = new URL(installStarted.body.authorize_url).searchParams.get('state')!;
    // With Slack's token rotation on: the install also gets a refresh token, and the worker renews the pair below.
    runtime.slack.setTokenRotation(true);
    const installCode = runtime.slack.authorize();
    expect((await api.get(`/v1/chat/callback?code=${installCode}&state=${installState}`)).status).toBe(200);
    runtime.slack.setTokenRotation(false);
    const typedInSlack = `hunter2-${randomBytes(9).toString('base64url')}`;
    const command = signSlashCommand(
      slashCommand({ text: typedInSlack }),
      runtime.config.SLACK_SIGNING_SECRET!,
      Math.floor(runtime.clock.now() / 1000),
    );
    const answered = await api.call('POST', '/v1/chat/commands', { body: command.body, headers: command.headers });
    expect(answered.status).toBe(200);
    const chatToken = /#chat=([^|>\s]+)/.exec(answered.body.text as string)![1]!;
    const subscribed = await api.post('/v1/secrets', textSecretBody());
    expect(
      (
        await api.post('/v1/chat/subscribe', {
          secret_id: subscribed.body.id,
          delete_token: subscribed.body.delete_token,
          chat_token: chatToken,
        })
      ).status,
    ).toBe(200);
    /** Each installed team's bot token and refresh token, opened. */
    const chatTokens = async () =>
      (
        await Promise.all(
          runtime.slack.installations().map(async ({ teamId }) => {
            const installed = (await runtime.functions.chat.installations.installation(teamId))!;
            const open = (sealedToken: string) => runtime.functions.chat.tokenSealer.open(sealedToken, teamId);
            return [
              await open(installed.sealedBotToken),
              ...(installed.rotation ? [await open(installed.rotation.sealedRefreshToken)] : []),
            ];
          }),
        )
      ).flat();
    const botTokens = await chatTokens();
    expect(botTokens.length).toBeGreaterThan(0);
    expect(botTokens.some((token) => token.startsWith('xoxe.xoxb-'))).toBe(true);
    expect(botTokens.some((token) => token.startsWith('xoxe-1-'))).toBe(true);
    const chatSecrets = [
      installState,
      installCode,
      typedInSlack,
      chatToken,
      subscribed.body.delete_token,
      runtime.config.SLACK_SIGNING_SECRET!,
      runtime.config.SLACK_CLIENT_SECRET!,
      ...botTokens,
    ];
    // The payment provider: its secret key (the service's SDK sends it) and the webhook signing
    // secret, through a checkout paid in the emulator and its events applied.
    const stripe = stripeClient({ secretKey: runtime.stripe.apiKey, apiUrl: runtime.stripe.url });
    const customer = await stripe.customers.create({ email: session.user.email });
    const checkout = await stripe.checkout.sessions.create({
      mode: 'subscription',
      customer: customer.id,
      line_items: [{ price: runtime.config.PRICE_PRO, quantity: 1 }],
      success_url: `${runtime.url}/billing`,
      metadata: { target: 'user', user_id: session.user.id },
      subscription_data: { metadata: { target: 'user', user_id: session.user.id } },
    });
    await runtime.stripe.completeCheckout(checkout.id);
    await runtime.stripe.settled();
    expect(runtime.stripe.events().every((record) => record.deliveries.every((delivery) => delivery.status === 200))).toBe(true);
    const paymentSecrets = [runtime.stripe.apiKey, runtime.stripe.signingSecret];
    // The subscribed secret opened: the worker opens the bot token and sends its DM while logging.
    // Its token in its last hour, so the worker renews it first (Slack's answer carries both new tokens).
    const [rotating] = runtime.slack.installations();
    const current = (await runtime.functions.deliveries.chatInstallations.installation(rotating!.teamId))!;
    const dueSoon = { ...current.rotation!, expiresAt: runtime.clock.now() + 3600_000 };
    await runtime.functions.deliveries.chatInstallations.saveRenewal(current.teamId, current.rotation!.sealedRefreshToken, {
      sealedBotToken: current.sealedBotToken,
      rotation: dueSoon,
    });
    expect((await api.post(`/v1/secrets/${subscribed.body.id}/claim`)).status).toBe(200);
    await runtime.drainWork();
    expect(runtime.slack.messages().length).toBeGreaterThan(0);
    expect(runtime.slack.calls().some((call) => call.body.grant_type === 'refresh_token' && call.answer.ok === true)).toBe(true);
    const renewedChatTokens = await chatTokens();
    expect(renewedChatTokens.filter((token) => !botTokens.includes(token))).toHaveLength(2);
    chatSecrets.push(...renewedChatTokens);
    const linkSecrets = [
      ...fileSecrets,
      ...requestSecrets,
      ...workspaceSecrets,
      ...chatSecrets,
      ...paymentSecrets,
      link.token,
      link.verifier,
      gate.body.gate_token,
      `"${gateCode}"`,
      `code is ${gateCode}`,
      restricted,
      agent,
      curlPlaintext,
      curlKey,
    ];

    const logs = captured.join('');
    // The requests were logged, so the grep below looks at real output.
    expect(logs).toContain('"route":"POST /v1/secrets/{id}/claim"');
    expect(logs).toContain('"status":403');
    expect(logs).toContain('"route":"POST /v1/files/multipart/complete"');
    expect(logs).toContain('"message":"delivery attempt"');
    expect(logs).toContain('"route":"POST /v1/workspaces/invitations/accept"');
    expect(logs).toContain('"route":"POST /v1/workspaces/invitations/preview"');
    expect(logs).toContain('"route":"POST /v1/billing/webhook"');
    expect(logs).toContain('"route":"PUT /v1/workspaces/{id}/sso"');
    expect(logs).toContain('"route":"GET /v1/auth/sso/callback"');
    expect(logs).toContain('"route":"POST /v1/auth/sso/exchange"');
    expect(logs).toContain('"route":"POST /scim/v2/Users"');
    expect(logs).toContain('"route":"PATCH /scim/v2/Users/{id}"');
    expect(logs).toContain('"route":"POST /v1/chat/commands"');
    expect(logs).toContain('"route":"GET /v1/chat/callback"');
    expect(logs).toContain('"route":"POST /v1/auth/otp/link"');
    expect(logs).toContain('"message":"chat notice"');
    // A bare 8-digit code could occur by chance in timings; look for it as a value or in the mail text.
    const credentials = [
      session.access_token,
      session.refresh_token,
      refreshed.body.access_token,
      refreshed.body.refresh_token,
      sealed,
      chainKey,
      hook.body.secret,
      key.key,
      `"${code}"`,
      `code: ${code}`,
      `code is ${code}`,
      email,
    ];
    for (const secretMaterial of [
      body.envelope,
      body.salt,
      deleteToken,
      token,
      verifier,
      'wrong-token',
      'hdt_wrong',
      ...credentials,
      ...signInLinkSecrets,
      ...linkSecrets,
    ]) {
      expect(logs).not.toContain(secretMaterial);
    }
  });

  it('carry a 500’s error name and message (as error_message: Powertools drops an attribute named message)', async () => {
    const session = await signIn(runtime, newEmail('fault'));
    const store = runtime.functions.webhooks.webhooks;
    const list = store.listEndpoints;
    store.listEndpoints = () => Promise.reject(new TypeError('injected: the endpoints could not be read'));
    try {
      // Past fetch: the contract check rightly refuses a 500, which no route lists.
      const status = await new Promise<number | undefined>((resolve, reject) =>
        httpRequest({ host: '127.0.0.1', port: runtime.port, path: '/v1/webhooks', headers: session.auth }, (response) =>
          response.resume().on('end', () => resolve(response.statusCode)),
        )
          .on('error', reject)
          .end(),
      );
      expect(status).toBe(500);
    } finally {
      store.listEndpoints = list;
    }
    const failed = captured
      .join('')
      .split('\n')
      .filter((line) => line.includes('"request failed"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(failed).toContainEqual(
      expect.objectContaining({
        level: 'ERROR',
        route: 'GET /v1/webhooks',
        error: 'TypeError',
        error_message: 'injected: the endpoints could not be read',
      }),
    );
  });
});
