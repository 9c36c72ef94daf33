import { MemorySecretAdoptions, MemorySecretStore } from '../fakes/secrets.ts';
import { describeSecretStoreContract } from './secrets.contract.ts';

describeSecretStoreContract('memory', () => {
  const secrets = new MemorySecretStore();
  return { secrets, adoptions: new MemorySecretAdoptions(secrets) };
});
