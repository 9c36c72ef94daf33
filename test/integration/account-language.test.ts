import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { maxConsecutiveFailures } from '../../shared/domain/webhooks/model.ts';
import { languages } from '../../shared/languages.ts';
import { bearer, createKey, mailsTo, newEmail, signIn, type SignedIn } from '../support/accounts.ts';
import { expectProblem } from '../support/problem.ts';
import { apiClient, startTestRuntime, textSecretBody, toFreshWindow } from '../support/runtime.ts';
import { joinAs, send, teamWorkspace } from '../support/workspaces.ts';

// The account's saved language (issue 32) over HTTP: GET and PATCH /v1/auth/account, and the
// language each mail goes out in through the real handlers: the request's Accept-Language for a
// mail its reader asked for, else English (no account is read for it: that would tell who has
// one); the recipient account's saved language first for a mail its reader did not ask for.

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
beforeAll(async () => {
  runtime = await startTestRuntime();
  api = apiClient(runtime);
});
afterAll(() => runtime?.stop());

const account = (who: Pick<SignedIn, 'auth'>) => api.get('/v1/auth/account', who.auth);
const saveLocale = (who: Pick<SignedIn, 'auth'>, body: unknown) => send(runtime, 'PATCH', '/v1/auth/account', body, who.auth);
const asking = (language: string) => ({ 'accept-language': language });
/** The newest mail to `email`. */
const latest = (email: string) => mailsTo(runtime, email)[0]!;

describe('GET /v1/auth/account', () => {
  it('answers the signed-in account with no language saved yet', async () => {
    const ana = await signIn(runtime, newEmail('ana'));
    const reply = await account(ana);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ id: ana.user.id, email: ana.user.email, locale: null });
  });

  it('answers 401 without a session or with a stale one, and 403 to an API key', async () => {
    expectProblem(await api.get('/v1/auth/account'), 401, 'unauthorized');
    expectProblem(await api.get('/v1/auth/account', bearer('not-a-token')), 401, 'unauthorized');
    const bo = await signIn(runtime, newEmail('bo'));
    const key = await createKey(runtime, bo, ['secrets:read', 'secrets:write', 'receipts:read']);
    expectProblem(await api.get('/v1/auth/account', key.auth), 403, 'forbidden');
  });
});

describe('PATCH /v1/auth/account', () => {
  it('saves any of the ten languages, answers the account, keeps it for the next read, and forgets it on null', async () => {
    const cy = await signIn(runtime, newEmail('cy'));
    for (const language of languages) {
      const saved = await saveLocale(cy, { locale: language });
      expect(saved.status, JSON.stringify(saved.body)).toBe(200);
      expect(saved.body).toEqual({ id: cy.user.id, email: cy.user.email, locale: language });
    }
    expect((await account(cy)).body.locale).toBe('ar');
    // Another session of the same account reads it too.
    const again = await signIn(runtime, cy.user.email);
    expect((await account(again)).body.locale).toBe('ar');
    const forgotten = await saveLocale(cy, { locale: null });
    expect(forgotten.status).toBe(200);
    expect(forgotten.body).toEqual({ id: cy.user.id, email: cy.user.email, locale: null });
    expect((await account(cy)).body.locale).toBeNull();
  });

  it('answers 400 for anything but one of the ten or null, and changes nothing', async () => {
    const di = await signIn(runtime, newEmail('di'));
    await saveLocale(di, { locale: 'nl' });
    for (const body of [
      {},
      { locale: 'xx' },
      { locale: 'de-DE' },
      { locale: 'EN' },
      { locale: 'zh' },
      { locale: 7 },
      { locale: 'fr', email: 'x@example.com' },
      [],
    ]) {
      expectProblem(await saveLocale(di, body), 400, 'invalid_request');
    }
    const notJson = await api.call('PATCH', '/v1/auth/account', {
      body: 'locale=de',
      headers: { ...di.auth, 'content-type': 'application/json' },
    });
    expectProblem(notJson, 400, 'invalid_json');
    expect((await account(di)).body.locale).toBe('nl');
  });

  it('answers 401 without a session, and 403 to an API key', async () => {
    expectProblem(await api.call('PATCH', '/v1/auth/account', { json: { locale: 'de' } }), 401, 'unauthorized');
    const ed = await signIn(runtime, newEmail('ed'));
    const key = await createKey(runtime, ed, ['secrets:read', 'secrets:write', 'receipts:read']);
    expectProblem(await saveLocale(key, { locale: 'de' }), 403, 'forbidden');
    expect((await account(ed)).body.locale).toBeNull();
  });
});

describe('the sign-in code’s language (asked for by its reader)', () => {
  const start = (email: string, headers?: Record<string, string>) => api.post('/v1/auth/otp/start', { email }, headers);

  it('follows the request’s Accept-Language, by its q-values, whether or not the address has an account', async () => {
    const fresh = newEmail('fresh');
    expect((await start(fresh, asking('ko;q=1, de-DE;q=0.9, en;q=0.8'))).status).toBe(200);
    const mail = latest(fresh);
    expect(mail.subject).toMatch(/^Ihr Hushlink-Anmeldecode: \d{8}$/);
    expect(mail.text).toContain('Oder melden Sie sich mit diesem Link an');
    expect(mail.text).toContain(`${runtime.config.WEB_ORIGIN}/signin#`);
  });

  it('without a language it speaks in the request, English, whatever the account saved: no account is read for it', async () => {
    // Reading the account only when the header is left out would tell such a caller, by the
    // answer's time, whether the address has one.
    const fay = await signIn(runtime, newEmail('fay'));
    await saveLocale(fay, { locale: 'fr' });
    await start(fay.user.email);
    expect(latest(fay.user.email).subject).toMatch(/^Your Hushlink sign-in code: \d{8}$/);
    // A language Hushlink does not speak is no language.
    await api.post('/v1/auth/otp/resend', { email: fay.user.email }, asking('ko-KR'));
    expect(latest(fay.user.email).subject).toMatch(/^Your Hushlink sign-in code/);
    // The request's language wins over the account's.
    const other = newEmail('gus');
    const gus = await signIn(runtime, other);
    await saveLocale(gus, { locale: 'fr' });
    await start(other, asking('ja'));
    expect(latest(other).subject).toMatch(/^Hushlink のサインインコード: \d{8}$/);
    // Neither: English, as before.
    const plain = newEmail('plain');
    await start(plain);
    expect(latest(plain).subject).toMatch(/^Your Hushlink sign-in code: \d{8}$/);
  });
});

describe('the gate code’s language (asked for by its reader)', () => {
  async function restricted(email: string) {
    const made = await api.post('/v1/secrets', textSecretBody({ recipients: [{ email, restricted: true }] }));
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    return { id: made.body.id as string, link: made.body.recipients[0].recipient_id as string };
  }
  const startGate = (secret: { id: string; link: string }, email: string, headers?: Record<string, string>) =>
    api.post(`/v1/secrets/${secret.id}/gate/start`, { recipient_id: secret.link, email }, headers);

  it('follows the request’s Accept-Language, else English, whatever the address’s account saved', async () => {
    const asked = newEmail('gate-asked');
    expect((await startGate(await restricted(asked), asked, asking('pt-BR'))).status).toBe(200);
    expect(latest(asked).subject).toMatch(/^Seu código para abrir um segredo: \d{6}$/);

    const saved = await signIn(runtime, newEmail('gate-saved'));
    await saveLocale(saved, { locale: 'zh-Hans' });
    await startGate(await restricted(saved.user.email), saved.user.email);
    expect(latest(saved.user.email).subject).toMatch(/^Your code to open a secret: \d{6}$/);

    const plain = newEmail('gate-plain');
    await startGate(await restricted(plain), plain);
    expect(latest(plain).subject).toMatch(/^Your code to open a secret: \d{6}$/);
  });
});

describe('workspace mails (not asked for by their reader)', () => {
  it('an invitation: the invitee account’s saved language, else the inviter’s request’s, else English', async () => {
    const team = await teamWorkspace(runtime);
    const invite = (email: string, headers?: Record<string, string>) =>
      api.post(`/v1/workspaces/${team.id}/invitations`, { email, role: 'member' }, { ...team.owner.auth, ...headers });

    const known = await signIn(runtime, newEmail('invitee-es'));
    await saveLocale(known, { locale: 'es' });
    expect((await invite(known.user.email, asking('de'))).status).toBe(201);
    expect(latest(known.user.email).text).toContain('te invita a unirte al espacio de trabajo');

    const stranger = newEmail('invitee-de');
    await invite(stranger, asking('de'));
    const german = latest(stranger);
    expect(german.subject).toMatch(/^Sie sind zu .+ auf Hushlink eingeladen$/);
    expect(german.text).toMatch(/\/join#hli_[A-Za-z0-9_-]+/);
    expect(german.text).toMatch(/bis \d{1,2}\. \S+ \d{4} um \d{2}:\d{2} UTC\./);

    const plain = newEmail('invitee-en');
    await invite(plain);
    expect(latest(plain).subject).toMatch(/^You are invited to .+ on Hushlink$/);
  });

  it('a removal and a handover: each reader’s saved language, else the request’s', async () => {
    const team = await teamWorkspace(runtime);
    const removed = await joinAs(runtime, team, team.owner, 'member');
    await saveLocale(removed, { locale: 'ja' });
    const gone = await api.call('DELETE', `/v1/workspaces/${team.id}/members/${removed.user.id}`, {
      headers: { ...team.owner.auth, ...asking('de') },
    });
    expect(gone.status, JSON.stringify(gone.body)).toBe(200);
    expect(latest(removed.user.email).subject).toMatch(/^Hushlink の .+ から削除されました$/);

    const heir = await joinAs(runtime, team, team.owner, 'admin');
    await saveLocale(heir, { locale: 'it' });
    const handed = await api.post(`/v1/workspaces/${team.id}/transfer`, { user_id: heir.user.id }, { ...team.owner.auth, ...asking('nl') });
    expect(handed.status, JSON.stringify(handed.body)).toBe(200);
    expect(latest(heir.user.email).subject).toMatch(/^Ora sei proprietario di .+ su Hushlink$/);
    // The former owner saved none: the language their request asked in.
    expect(latest(team.owner.user.email).subject).toMatch(/^Je hebt .+ op Hushlink overgedragen$/);
  });
});

describe('a webhook endpoint switched off (no request causes it)', () => {
  it('is told in the owner’s saved language', async () => {
    const owner = await signIn(runtime, newEmail('hooks'));
    await saveLocale(owner, { locale: 'ja' });
    // Nothing listens on port 9 of the loopback: every delivery fails at once.
    const endpoint = await api.post('/v1/webhooks', { url: 'http://127.0.0.1:9/switched-off' }, owner.auth);
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    for (let i = 0; i < maxConsecutiveFailures; i++) {
      expect((await api.post('/v1/secrets', textSecretBody(), owner.auth)).status).toBe(201);
    }
    await runtime.drainWork();
    const mail = latest(owner.user.email);
    expect(mail.subject).toBe('Hushlink: Webhook エンドポイントが無効になりました');
    expect(mail.text).toContain(
      `Webhook エンドポイント http://127.0.0.1:9/switched-off (${endpoint.body.id}) への配信が ${maxConsecutiveFailures} 回連続で失敗したため`,
    );
  });
});

describe('the Enterprise enquiry’s acknowledgement', () => {
  const inquiry = (email: string) => ({ name: 'Ana Lopez', email, company: 'Corp Example', seats: 50, message: 'We need SSO.' });

  it('goes to the enquirer in the request’s language, answerable to sales, carrying nothing they wrote; sales get English', async () => {
    const email = newEmail('enquirer', 'corp.example');
    const sent = await api.post('/v1/billing/enterprise-inquiry', inquiry(email), asking('ar'));
    expect(sent.status).toBe(202);
    const ack = latest(email);
    expect(ack.subject).toBe('Hushlink: تلقّينا استفسارك عن Enterprise');
    expect(ack.replyTo).toBe(runtime.config.SALES_EMAIL);
    for (const written of ['Ana Lopez', 'Corp Example', 'We need SSO.']) expect(`${ack.subject}\n${ack.text}`).not.toContain(written);
    expect(mailsTo(runtime, runtime.config.SALES_EMAIL)[0]).toMatchObject({
      replyTo: email,
      subject: 'Hushlink Enterprise enquiry: Corp Example',
    });
  });

  it('is English without a language in the request, whatever the enquirer’s account saved; twice a day per address at most', async () => {
    const saved = await signIn(runtime, newEmail('enquirer-saved', 'corp.example'));
    await saveLocale(saved, { locale: 'de' });
    await api.post('/v1/billing/enterprise-inquiry', inquiry(saved.user.email));
    expect(latest(saved.user.email).subject).toBe('Hushlink: we have your Enterprise enquiry');

    // Counted in fixed windows of a day: start at the beginning of one.
    toFreshWindow(runtime.clock, 24 * 3600);
    const email = newEmail('enquirer-plain', 'corp.example');
    const salesBefore = mailsTo(runtime, runtime.config.SALES_EMAIL).length;
    for (let i = 0; i < 3; i++) expect((await api.post('/v1/billing/enterprise-inquiry', inquiry(email))).status).toBe(202);
    expect(mailsTo(runtime, email).map((mail) => mail.subject)).toEqual([
      'Hushlink: we have your Enterprise enquiry',
      'Hushlink: we have your Enterprise enquiry',
    ]);
    expect(mailsTo(runtime, runtime.config.SALES_EMAIL)).toHaveLength(salesBefore + 3);
  });
});
