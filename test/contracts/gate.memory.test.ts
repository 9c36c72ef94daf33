import { MemoryGateStore } from '../fakes/gate.ts';
import { describeGateStoreContract } from './gate.contract.ts';

describeGateStoreContract('memory', () => new MemoryGateStore());
