import { MemorySigningKeyStore } from '../fakes/signingKeys.ts';
import { describeSigningKeyStoreContract } from './signingKeys.contract.ts';

describeSigningKeyStoreContract('memory', () => new MemorySigningKeyStore());
