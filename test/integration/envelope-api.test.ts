import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { claimTokenFor, fromBase64, openText, sealText, toBase64 } from '../../shared/envelope/index.ts';
import { createDocumentClient } from '../../shared/store/client.ts';
import { apiClient, claimPair, linkPair, startTestRuntime, textSecretBody } from '../support/runtime.ts';

// What the server keeps of a client's envelope and proofs, read back through the API. The header
// checks (a v1 envelope that does not hold together is 400) and the proofs' rules (a claim
// verifier needs its link verifier; the lock counts only the link's holders): test/usecases/
// secrets-create.test.ts and claim.test.ts.

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
    const wrong = await claimTokenFor({
      key: sealed.key,
      salt: metadata.body.salt,
      passphrase: 'grey whale',
      iterations: metadata.body.kdf_iterations,
    });
    const refused = await api.post(`/v1/secrets/${id}/claim`, { claim_token: wrong });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('proof_refused');
    expect((await api.get(`/v1/secrets/${id}`)).body.views_left).toBe(1);

    const right = await claimTokenFor({
      key: sealed.key,
      salt: metadata.body.salt,
      passphrase: 'blue whale',
      iterations: metadata.body.kdf_iterations,
    });
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
});

// The link-verifier cut-over of issue 26, item 7 (was link-verifier-cutover.test.ts): a secret
// stored before it, a claim verifier and no link verifier, is read from its item as it is. That
// it keeps the old lock rule until it expires: test/usecases/claim.test.ts.
describe('a secret stored before the link-verifier cut-over', () => {
  it('stays readable: the metadata answers and the right token claims', async () => {
    const proof = claimPair();
    const created = await api.post('/v1/secrets', textSecretBody({ claim_verifier: proof.verifier, link_verifier: linkPair().verifier }));
    expect(created.status).toBe(201);
    const db = createDocumentClient({ region: 'local', endpoint: runtime.dynamo.endpoint });
    await db.send(
      new UpdateCommand({
        TableName: runtime.config.TABLE_NAME,
        Key: { pk: `SECRET#${created.body.id}`, sk: 'SECRET' },
        UpdateExpression: 'REMOVE link_verifier',
      }),
    );
    db.destroy();
    expect((await runtime.stores.secrets.get(created.body.id))?.linkVerifier).toBeUndefined();
    expect((await api.get(`/v1/secrets/${created.body.id}`)).body).toMatchObject({ state: 'active', requires_proof: true });
    expect((await api.post(`/v1/secrets/${created.body.id}/claim`, { claim_token: proof.token })).status).toBe(200);
  });
});
