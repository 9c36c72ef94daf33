import { MemorySignInCodeStore } from '../fakes/signInCodes.ts';
import { describeSignInCodeStoreContract } from './signInCodes.contract.ts';

describeSignInCodeStoreContract('memory', () => new MemorySignInCodeStore());
