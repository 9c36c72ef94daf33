import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRuntime, type Runtime } from '../../local/runtime.ts';
import { apiClient, textSecretBody } from '../support/runtime.ts';

// The settings an operator gives `npm start` in its environment reach the runtime (main.ts hands
// it process.env). No rate limits are passed as an option here: they come from the setting.

const env = {
  MAIL_FROM: 'codes@hush.test',
  REGION: 'eu-test-1',
  REGIONS: JSON.stringify([
    { id: 'us-test-1', api_url: 'https://us.hush.test' },
    { id: 'eu-test-1', api_url: 'https://eu.hush.test/' },
  ]),
  WEB_ORIGIN: 'https://secrets.hush.test',
  TABLE_NAME: 'hushlink-settings',
  HUSHLINK_RATE_LIMITS: JSON.stringify({ secret_claim: { perIp: { limit: 2 } }, secret_create: { perIp: { limit: 500 } } }),
  // Only meaningful in AWS: ignored locally, never an error and never a change of mode.
  HUSHLINK_MODE: 'aws',
  QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/000000000000/nowhere',
  ORIGIN_VERIFY: 'x'.repeat(48),
};

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
beforeAll(async () => {
  runtime = await startRuntime({ port: 0, env });
  api = apiClient(runtime);
});
afterAll(() => runtime?.stop());

describe('settings from the environment reach npm start', () => {
  it('MAIL_FROM is the sender of sign-in codes', async () => {
    expect((await api.post('/v1/auth/otp/start', { email: 'settings@example.com' })).status).toBe(200);
    const mail = runtime.outbox.list().find((entry) => entry.to === 'settings@example.com');
    expect(mail?.from).toBe('codes@hush.test');
  });

  it('REGION and REGIONS answer /v1/regions', async () => {
    const reply = await api.get('/v1/regions');
    expect(reply.body).toEqual({
      current: { id: 'eu-test-1', api_url: 'https://eu.hush.test' },
      regions: [
        { id: 'us-test-1', api_url: 'https://us.hush.test', current: false },
        { id: 'eu-test-1', api_url: 'https://eu.hush.test', current: true },
      ],
    });
  });

  it('WEB_ORIGIN makes the links', async () => {
    const reply = await api.post('/v1/secrets', textSecretBody());
    expect(reply.status).toBe(201);
    expect(reply.body.url_base).toBe(`https://secrets.hush.test/s/${reply.body.id}`);
  });

  it('TABLE_NAME is the table the runtime creates and uses', () => {
    expect(runtime.config.TABLE_NAME).toBe('hushlink-settings');
  });

  it('HUSHLINK_RATE_LIMITS changes a limit and keeps the rest of its window', async () => {
    expect(runtime.config.rateLimits.secret_claim).toEqual({ perIp: { limit: 2, windowSeconds: 60 } });
    expect(runtime.config.rateLimits.otp_start).toEqual({ perIp: { limit: 20, windowSeconds: 3600 } });
    // A fresh window with the whole budget.
    const nowSeconds = Math.floor(runtime.clock.now() / 1000);
    runtime.clock.advance(60 - (nowSeconds % 60));
    const { body } = await api.post('/v1/secrets', textSecretBody({ max_views: 5 }));
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await api.post(`/v1/secrets/${body.id}/claim`)).status);
    expect(statuses).toEqual([200, 200, 429]);
  });

  it('stays in local mode whatever HUSHLINK_MODE says', async () => {
    expect(runtime.config.HUSHLINK_MODE).toBe('local');
    expect((await api.get('/_dev/mail')).status).toBe(200);
  });
});

describe('bad settings', () => {
  it.each([
    ['HUSHLINK_RATE_LIMITS', '{"secret_claim":{"perIp":{"windowSeconds":0}}}', /HUSHLINK_RATE_LIMITS\.secret_claim\.perIp\.windowSeconds/],
    ['HUSHLINK_RATE_LIMITS', '{"secret_clam":{}}', /HUSHLINK_RATE_LIMITS\.secret_clam: is not a known name/],
    ['HUSHLINK_RATE_LIMITS', 'not json', /HUSHLINK_RATE_LIMITS: must be a JSON object/],
    ['MAIL_FROM', 'nobody', /MAIL_FROM/],
    ['REGIONS', '[{"id":"elsewhere","api_url":"https://x.test"}]', /REGIONS: must include REGION/],
  ])('%s=%s fails the start with a message naming it', async (name, value, message) => {
    await expect(startRuntime({ port: 0, env: { [name]: value } })).rejects.toThrow(message);
  });
});
