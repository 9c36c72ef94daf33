import { MemoryCounters } from '../fakes/counters.ts';
import { describeCountersContract } from './counters.contract.ts';

describeCountersContract('memory', () => new MemoryCounters());
