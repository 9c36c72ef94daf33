import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
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
  it('carry requests but never envelopes, salts, delete tokens or claim tokens', async () => {
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

    const logs = captured.join('');
    // The requests were logged, so the grep below looks at real output.
    expect(logs).toContain('"route":"POST /v1/secrets/{id}/claim"');
    expect(logs).toContain('"status":403');
    for (const secretMaterial of [body.envelope, body.salt, deleteToken, token, verifier, 'wrong-token', 'hdt_wrong']) {
      expect(logs).not.toContain(secretMaterial);
    }
  });
});
