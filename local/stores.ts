import { DynamoApiKeyStore } from '../shared/store/apiKeys.ts';
import { DynamoCounters } from '../shared/store/counters.ts';
import { DynamoSecretStore } from '../shared/store/secrets.ts';
import { DynamoSessionStore } from '../shared/store/sessions.ts';
import { DynamoSigningKeyStore } from '../shared/store/signingKeys.ts';
import { DynamoUserStore } from '../shared/store/users.ts';
import { DynamoWebhookStore } from '../shared/store/webhooks.ts';
import { secretLimits, webhookLimits } from '../shared/limits.ts';
import type { Platform } from '../shared/platform.ts';

/** Every store over the runtime's table: what tests and benches read to check what was written. */
export function localStores({ db, config }: Platform) {
  return {
    secrets: new DynamoSecretStore(db, config.TABLE_NAME, secretLimits.tombstoneSeconds),
    counters: new DynamoCounters(db, config.TABLE_NAME),
    users: new DynamoUserStore(db, config.TABLE_NAME),
    sessions: new DynamoSessionStore(db, config.TABLE_NAME),
    apiKeys: new DynamoApiKeyStore(db, config.TABLE_NAME),
    signingKeys: new DynamoSigningKeyStore(db, config.TABLE_NAME),
    webhooks: new DynamoWebhookStore(db, config.TABLE_NAME, webhookLimits.deliveryLogSeconds),
  };
}

export type LocalStores = ReturnType<typeof localStores>;
