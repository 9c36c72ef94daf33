import { MemoryChatInstallationStore, MemoryChatSubscriptions } from '../fakes/chatStores.ts';
import { MemorySecretStore } from '../fakes/secrets.ts';
import { describeChatInstallationStoreContract, describeChatSubscriptionStoreContract } from './chatStores.contract.ts';

describeChatInstallationStoreContract('memory', () => new MemoryChatInstallationStore());
describeChatSubscriptionStoreContract('memory', () => {
  const secrets = new MemorySecretStore();
  const subscriptions = new MemoryChatSubscriptions(secrets);
  return { subscriptions, secrets, subscriptionOf: async (id) => subscriptions.subscriptionOf(id) };
});
