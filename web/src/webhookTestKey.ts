/**
 * A test delivery sent for a signed-in owner who pasted no API key. The route takes an API key
 * only (interface §4.5; a session gets 401 `api_key_required`), so the page makes one with the
 * session for this one request: the shortest life the API allows (an hour), the narrowest
 * permission (reading receipts: the test route takes any key), a name saying what it is; sends
 * the test with it and revokes it at once, whatever the test's answer. Its value lives in this
 * function's variables only.
 */
import { accountApi, ApiError } from './api.ts';
import { t } from './i18n.ts';
import { webhookApi } from './webhookApi.ts';
import { withAccess } from './session.ts';

/** The made key's name, in the page's language: the API keys page lists it by this name. */
export const testKeyName = t('webhooks.test.keyName');
/** The shortest `expires_in` the API takes: should the revoke below fail, the key ends within the hour anyway. */
const testKeySeconds = 3600;

export type TestQueued = Awaited<ReturnType<typeof webhookApi.test>>;

/** The test's answer, and whether the key made for it was revoked (false: it expires within the hour). */
export async function sendTestWithSession(endpointId: string): Promise<{ answer: TestQueued; revoked: boolean }> {
  const made = await withAccess((token) =>
    accountApi.createApiKey(token, { name: testKeyName, scopes: ['receipts:read'], expires_in: testKeySeconds }),
  );
  let answer: TestQueued;
  try {
    answer = await webhookApi.test(made.key, endpointId);
  } catch (error) {
    // Revoked before the refusal is shown; an hour's life bounds it should this fail too.
    await revoke(made.id);
    throw error;
  }
  return { answer, revoked: await revoke(made.id) };
}

async function revoke(id: string): Promise<boolean> {
  try {
    await withAccess((token) => accountApi.revokeApiKey(token, id));
    return true;
  } catch (error) {
    // Gone already is as good as revoked.
    return error instanceof ApiError && error.status === 404;
  }
}
