import { MemorySessionStore } from '../fakes/sessions.ts';
import { describeSessionStoreContract } from './sessions.contract.ts';

describeSessionStoreContract('memory', () => new MemorySessionStore());
