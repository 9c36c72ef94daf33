import { createCipheriv } from 'node:crypto';
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { KmsSealer, kmsSealer } from '../../shared/adapters/kms.ts';
import { LocalSealer } from '../../shared/adapters/sealer.ts';
import { SqsQueue, sqsQueue } from '../../shared/adapters/sqs.ts';

// KMS and SQS cannot run here: what matters is the exact request each adapter sends.
const kms = mockClient(KMSClient);
afterAll(() => kms.restore());
const sqs = mockClient(SQSClient);
afterAll(() => sqs.restore());
afterEach(() => {
  kms.reset();
  sqs.reset();
});

const KEY = 'arn:aws:kms:eu-west-1:123456789012:key/11111111-2222-3333-4444-555555555555';

describe('KmsSealer', () => {
  it('encrypts under the key with the endpoint as encryption context', async () => {
    kms.on(EncryptCommand).resolves({ CiphertextBlob: new Uint8Array([1, 2, 3]) });
    const sealed = await new KmsSealer(new KMSClient({ region: 'eu-west-1' }), KEY).seal('whsec_abc', 'whk_1');
    expect(sealed).toBe(`kms:${Buffer.from([1, 2, 3]).toString('base64url')}`);
    const [call] = kms.commandCalls(EncryptCommand);
    expect(call!.args[0].input).toEqual({
      KeyId: KEY,
      Plaintext: Buffer.from('whsec_abc'),
      EncryptionContext: { webhook_endpoint: 'whk_1' },
    });
  });

  it('decrypts with the same context, once per endpoint and instance', async () => {
    kms.on(DecryptCommand).resolves({ Plaintext: Buffer.from('whsec_abc') });
    const sealer = new KmsSealer(new KMSClient({ region: 'eu-west-1' }), KEY);
    const sealed = `kms:${Buffer.from([9, 9]).toString('base64url')}`;
    expect(await sealer.open(sealed, 'whk_1')).toBe('whsec_abc');
    expect(await sealer.open(sealed, 'whk_1')).toBe('whsec_abc');
    const calls = kms.commandCalls(DecryptCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.args[0].input).toEqual({
      KeyId: KEY,
      CiphertextBlob: Buffer.from([9, 9]),
      EncryptionContext: { webhook_endpoint: 'whk_1' },
    });
    // Another endpoint's context is another request (and KMS refuses a mismatched one).
    kms.on(DecryptCommand).rejects(Object.assign(new Error('context mismatch'), { name: 'InvalidCiphertextException' }));
    await expect(sealer.open(sealed, 'whk_2')).rejects.toThrow('context mismatch');
    await expect(sealer.open('local:abc', 'whk_1')).rejects.toThrow('not sealed by KmsSealer');
  });

  it("binds a chat bot token to its team under its own context name (issue 19), never the endpoints'", async () => {
    kms.on(EncryptCommand).resolves({ CiphertextBlob: new Uint8Array([4, 5]) });
    kms.on(DecryptCommand).resolves({ Plaintext: Buffer.from('xoxb-1') });
    const sealer = kmsSealer({ REGION: 'eu-west-1', WEBHOOK_KEY_ID: KEY }, 'chat_team');
    const sealed = await sealer.seal('xoxb-1', 'T0001');
    expect(kms.commandCalls(EncryptCommand)[0]!.args[0].input).toEqual({
      KeyId: KEY,
      Plaintext: Buffer.from('xoxb-1'),
      EncryptionContext: { chat_team: 'T0001' },
    });
    expect(await sealer.open(sealed, 'T0001')).toBe('xoxb-1');
    expect(kms.commandCalls(DecryptCommand)[0]!.args[0].input).toMatchObject({ EncryptionContext: { chat_team: 'T0001' } });
  });

  it('refuses to start without the key id', () => {
    expect(() => kmsSealer({ REGION: 'eu-west-1', WEBHOOK_KEY_ID: undefined })).toThrow('WEBHOOK_KEY_ID');
    expect(kmsSealer({ REGION: 'eu-west-1', WEBHOOK_KEY_ID: KEY })).toBeInstanceOf(KmsSealer);
  });
});

describe('LocalSealer', () => {
  it('opens what it sealed, only for the same endpoint, and never shows the plaintext', async () => {
    const sealer = new LocalSealer();
    const sealed = await sealer.seal('whsec_secret-value', 'whk_1');
    expect(sealed).not.toContain('secret-value');
    expect(await sealer.open(sealed, 'whk_1')).toBe('whsec_secret-value');
    await expect(sealer.open(sealed, 'whk_2')).rejects.toThrow();
    await expect(new LocalSealer().open(sealed, 'whk_1')).rejects.toThrow();
  });

  it("binds a secret of another kind to its context name too: a chat team's never opens as an endpoint's of the same id", async () => {
    const key = new Uint8Array(32).fill(7);
    const chat = new LocalSealer(key, 'chat_team');
    const endpoints = new LocalSealer(key);
    const sealed = await chat.seal('xoxb-secret-token', 'T0001');
    expect(sealed).not.toContain('secret-token');
    expect(await chat.open(sealed, 'T0001')).toBe('xoxb-secret-token');
    await expect(chat.open(sealed, 'T0002')).rejects.toThrow();
    await expect(endpoints.open(sealed, 'T0001')).rejects.toThrow();
    // Endpoints' secrets keep the bare id as associated data, as before context names: one sealed so opens.
    const iv = new Uint8Array(12).fill(1);
    const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from('whk_1'));
    const before = `local:${Buffer.concat([iv, cipher.update('whsec_1', 'utf8'), cipher.final(), cipher.getAuthTag()]).toString('base64url')}`;
    expect(await endpoints.open(before, 'whk_1')).toBe('whsec_1');
  });
});

describe('SqsQueue', () => {
  it('sends the body to the queue, with a delay only when asked', async () => {
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm' });
    const queue = new SqsQueue(new SQSClient({ region: 'eu-west-1' }), 'https://sqs.eu-west-1.amazonaws.com/123456789012/work');
    await queue.send('{"kind":"relay","secret_id":"sec_1"}');
    await queue.send('{"kind":"deliver"}', { delaySeconds: 300 });
    expect(sqs.commandCalls(SendMessageCommand).map((call) => call.args[0].input)).toEqual([
      { QueueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/work', MessageBody: '{"kind":"relay","secret_id":"sec_1"}' },
      { QueueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/work', MessageBody: '{"kind":"deliver"}', DelaySeconds: 300 },
    ]);
  });

  it('refuses to start without the queue URL', () => {
    expect(() => sqsQueue({ REGION: 'eu-west-1', QUEUE_URL: undefined })).toThrow('QUEUE_URL');
    expect(sqsQueue({ REGION: 'eu-west-1', QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/1/work' })).toBeInstanceOf(SqsQueue);
  });
});
