import { MemorySsoSignIns } from '../fakes/ssoSignIns.ts';
import { describeSsoSignInStoreContract } from './ssoSignIns.contract.ts';

describeSsoSignInStoreContract('memory', () => new MemorySsoSignIns());
