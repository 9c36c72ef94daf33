import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { claimTokenFor, fromBase64, openText, seal, sealText, toBase64 } from '../../shared/envelope/index.ts';
import { apiClient, startTestRuntime, textSecretBody } from '../support/runtime.ts';

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
beforeAll(async () => {
  runtime = await startTestRuntime();
  api = apiClient(runtime);
});
afterAll(() => runtime?.stop());

const bodyFor = (envelope: Uint8Array, salt: string, claimVerifier?: string, linkVerifier?: string) => ({
  kind: 'text',
  envelope: toBase64(envelope),
  salt,
  size_bytes: envelope.length,
  ...(claimVerifier ? { claim_verifier: claimVerifier } : {}),
  ...(linkVerifier ? { link_verifier: linkVerifier } : {}),
});

describe('envelope v1 through the API', () => {
  it('a client creates, the server keeps the public parameters, another client claims and opens', async () => {
    const sealed = await sealText('db password: hunter2', { passphrase: 'blue whale' });
    const created = await api.post('/v1/secrets', bodyFor(sealed.envelope, sealed.salt, sealed.claimVerifier, sealed.linkVerifier));
    expect(created.status).toBe(201);
    const id: string = created.body.id;

    const metadata = await api.get(`/v1/secrets/${id}`);
    expect(metadata.body).toMatchObject({ passphrase: true, kdf_iterations: 600_000, requires_proof: true, salt: sealed.salt });

    // A wrong passphrase gives a wrong claim token: refused by the server, no view consumed.
    const wrong = await claimTokenFor({ key: sealed.key, salt: metadata.body.salt, passphrase: 'grey whale', iterations: metadata.body.kdf_iterations });
    const refused = await api.post(`/v1/secrets/${id}/claim`, { claim_token: wrong });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('proof_refused');
    expect((await api.get(`/v1/secrets/${id}`)).body.views_left).toBe(1);

    const right = await claimTokenFor({ key: sealed.key, salt: metadata.body.salt, passphrase: 'blue whale', iterations: metadata.body.kdf_iterations });
    const claimed = await api.post(`/v1/secrets/${id}/claim`, { claim_token: right });
    expect(claimed.status).toBe(200);
    const text = await openText(fromBase64(claimed.body.envelope), { key: sealed.key, salt: claimed.body.salt, passphrase: 'blue whale' });
    expect(text).toBe('db password: hunter2');
  });

  it('says so when the envelope has no passphrase, and null for envelopes of another format', async () => {
    const sealed = await sealText('plain');
    const created = await api.post('/v1/secrets', bodyFor(sealed.envelope, sealed.salt, sealed.claimVerifier, sealed.linkVerifier));
    expect((await api.get(`/v1/secrets/${created.body.id}`)).body).toMatchObject({ passphrase: false, kdf_iterations: 0 });

    const foreign = await api.post('/v1/secrets', textSecretBody());
    expect(foreign.status).toBe(201);
    expect((await api.get(`/v1/secrets/${foreign.body.id}`)).body).toMatchObject({ passphrase: null, kdf_iterations: null });
  });

  const refusedEnvelopes: Array<[string, () => Promise<{ envelope: Uint8Array; salt: string }>]> = [
    ['a salt other than the header salt', async () => {
      const sealed = await sealText('x');
      return { envelope: sealed.envelope, salt: (await sealText('y')).salt };
    }],
    ['a file envelope', async () => {
      const sealed = await seal({ kind: 'file', plaintext: new Uint8Array(3), meta: { name: 'a', type: 'b', size: 3 }, chunkLog2: 16 });
      return { envelope: sealed.envelope, salt: sealed.salt };
    }],
    ['an unknown version', async () => {
      const sealed = await sealText('x');
      sealed.envelope[4] = 9;
      return sealed;
    }],
    ['a reserved flag bit', async () => {
      const sealed = await sealText('x');
      sealed.envelope[6]! |= 0x40;
      return sealed;
    }],
    ['a body cut inside the final tag', async () => {
      const sealed = await sealText('');
      return { envelope: sealed.envelope.slice(0, sealed.envelope.length - 3), salt: sealed.salt };
    }],
  ];
  for (const [name, make] of refusedEnvelopes) {
    it(`refuses a v1 envelope with ${name} (400 naming the envelope)`, async () => {
      const { envelope, salt } = await make();
      const reply = await api.post('/v1/secrets', bodyFor(envelope, salt));
      expect(reply.status).toBe(400);
      expect(reply.body.code).toBe('invalid_request');
      expect(reply.body.errors).toEqual([expect.objectContaining({ path: 'body.envelope' })]);
    });
  }
});
