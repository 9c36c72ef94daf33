import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { chatSettings } from '../../shared/adapters/chatSecrets.ts';

const secretsManager = mockClient(SecretsManagerClient);
afterAll(() => secretsManager.restore());
afterEach(() => secretsManager.reset());

const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:hushlink/slack-AbCdEf';
const clientSecret = 'a'.repeat(32);
const signingSecret = '8f742231b10e8888abcd99yyyzzz85a5'.replace(/[yz]/g, '0');
const base = { REGION: 'eu-west-1', SLACK_CLIENT_ID: '1234567890.0987654321' } as const;

describe('chatSettings', () => {
  it('is null without a client id: the chat routes answer chat_not_configured, and nothing is read', async () => {
    expect(await chatSettings({ REGION: 'eu-west-1' })).toBeNull();
    expect(await chatSettings({ REGION: 'eu-west-1', SLACK_SECRETS_ARN: ARN })).toBeNull();
    expect(secretsManager.commandCalls(GetSecretValueCommand)).toHaveLength(0);
  });

  it('reads the secrets from Secrets Manager in AWS, once per call, and names Slack’s API', async () => {
    secretsManager
      .on(GetSecretValueCommand)
      .resolves({ SecretString: JSON.stringify({ client_secret: clientSecret, signing_secret: signingSecret }) });
    expect(await chatSettings({ ...base, SLACK_SECRETS_ARN: ARN })).toEqual({
      clientId: base.SLACK_CLIENT_ID,
      clientSecret,
      signingSecret,
      apiUrl: 'https://slack.com/api/',
    });
    expect(secretsManager.commandCalls(GetSecretValueCommand).map((call) => call.args[0].input)).toEqual([{ SecretId: ARN }]);
  });

  it('refuses a stored secret of another shape, without showing it', async () => {
    secretsManager.on(GetSecretValueCommand).resolves({ SecretString: JSON.stringify({ client_secret: 'short-and-secret' }) });
    const failure = chatSettings({ ...base, SLACK_SECRETS_ARN: ARN });
    await expect(failure).rejects.toThrow('not {client_secret, signing_secret}');
    await expect(failure).rejects.not.toThrow('short-and-secret');
  });

  it("refuses a secret pasted bare (not JSON) without quoting it: JSON.parse's own message would", async () => {
    secretsManager.on(GetSecretValueCommand).resolves({ SecretString: signingSecret });
    const failure = chatSettings({ ...base, SLACK_SECRETS_ARN: ARN });
    await expect(failure).rejects.toThrow('not {client_secret, signing_secret}');
    await expect(failure).rejects.not.toThrow(signingSecret.slice(0, 8));
  });

  it('takes the secrets directly in local runs, with the emulator’s API base made to end in /', async () => {
    expect(
      await chatSettings({
        ...base,
        SLACK_CLIENT_SECRET: clientSecret,
        SLACK_SIGNING_SECRET: signingSecret,
        SLACK_API_URL: 'http://127.0.0.1:4010/api',
      }),
    ).toEqual({
      clientId: base.SLACK_CLIENT_ID,
      clientSecret,
      signingSecret,
      apiUrl: 'http://127.0.0.1:4010/api/',
    });
  });

  it('throws when the client id comes without its secrets: a half-configured deployment is a mistake, not "unconfigured"', async () => {
    await expect(chatSettings({ ...base, SLACK_CLIENT_SECRET: clientSecret })).rejects.toThrow('half configured');
  });
});
