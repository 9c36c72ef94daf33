import { MemoryRequestStore } from '../fakes/requests.ts';
import { MemorySecretStore } from '../fakes/secrets.ts';
import { describeRequestStoreContract } from './requests.contract.ts';

describeRequestStoreContract('memory', () => {
  const secrets = new MemorySecretStore();
  return { requests: new MemoryRequestStore(secrets), secrets };
});
