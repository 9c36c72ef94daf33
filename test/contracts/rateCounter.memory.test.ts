import { MemoryRateCounter } from '../fakes/rateCounter.ts';
import { describeRateCounterContract } from './rateCounter.contract.ts';

describeRateCounterContract('memory', () => new MemoryRateCounter());
