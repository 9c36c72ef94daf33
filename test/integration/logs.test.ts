import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { createKey, latestCode, newEmail, signIn } from '../support/accounts.ts';
import { apiClient, claimPair, startTestRuntime, textSecretBody } from '../support/runtime.ts';

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
  runtime = await startTestRuntime({ logLevel: 'DEBUG' });
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
    const body = textSecretBody({ claim_verifier: verifier, max_views: 2 });
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
    expect((await api.post('/v1/auth/otp/verify', { email, code: '000000' })).status).toBe(401);

    const logs = captured.join('');
    // The requests were logged, so the grep below looks at real output.
    expect(logs).toContain('"route":"POST /v1/secrets/{id}/claim"');
    expect(logs).toContain('"status":403');
    // A bare 6-digit code could occur by chance in timings; look for it as a value or in the mail text.
    const credentials = [session.access_token, session.refresh_token, refreshed.body.access_token, refreshed.body.refresh_token, key.key, `"${code}"`, `code: ${code}`, `code is ${code}`, email];
    for (const secretMaterial of [body.envelope, body.salt, deleteToken, token, verifier, 'wrong-token', 'hdt_wrong', ...credentials]) {
      expect(logs).not.toContain(secretMaterial);
    }
  });
});
