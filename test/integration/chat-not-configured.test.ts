import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { newEmail, signIn, type SignedIn } from '../support/accounts.ts';
import { sendCommand } from '../support/chat.ts';
import { expectProblem } from '../support/problem.ts';
import { apiClient, startTestRuntime } from '../support/runtime.ts';

/** A deployment without the chat app (no SLACK_CLIENT_ID): each chat route answers 403 chat_not_configured (issue 19). */

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
let user: SignedIn;

beforeAll(async () => {
  runtime = await startTestRuntime({ chat: false });
  api = apiClient(runtime);
  user = await signIn(runtime, newEmail('chat-off'));
});
afterAll(() => runtime?.stop());

describe('without the chat app', () => {
  it('answers 403 chat_not_configured on each of the four routes', async () => {
    expectProblem(await api.post('/v1/chat/install', undefined, user.auth), 403, 'chat_not_configured');
    expectProblem(await api.get('/v1/chat/callback?code=1.2.3&state=abc'), 403, 'chat_not_configured');
    // Signed with some secret: there is none configured to check it against.
    expectProblem(await sendCommand(runtime, api, {}, { secret: '0'.repeat(32) }), 403, 'chat_not_configured');
    expectProblem(
      await api.post('/v1/chat/subscribe', { secret_id: 'sec_x', delete_token: 'd', chat_token: 'c' }),
      403,
      'chat_not_configured',
    );
  });
});
