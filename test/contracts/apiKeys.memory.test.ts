import { MemoryApiKeyStore } from '../fakes/apiKeys.ts';
import { describeApiKeyStoreContract } from './apiKeys.contract.ts';

describeApiKeyStoreContract('memory', () => new MemoryApiKeyStore());
