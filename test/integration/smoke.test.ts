import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { apiClient, startTestRuntime, textSecretBody } from '../support/runtime.ts';

let runtime: Runtime;
beforeAll(async () => {
  runtime = await startTestRuntime();
});
afterAll(() => runtime?.stop());

describe('local runtime', () => {
  it('creates and claims a secret over HTTP', async () => {
    const api = apiClient(runtime);
    const body = textSecretBody();
    const created = await api.post('/v1/secrets', body);
    expect(created.status).toBe(201);
    const claimed = await api.post(`/v1/secrets/${created.body.id}/claim`);
    expect(claimed.status).toBe(200);
    expect(claimed.body.envelope).toBe(body.envelope);
  });
});
