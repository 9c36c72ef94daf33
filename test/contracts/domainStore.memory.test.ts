import { describeDomainStoreContract } from './domainStore.contract.ts';
import { memoryWorkspaceWorld } from './workspaceWorld.ts';

describeDomainStoreContract('memory', memoryWorkspaceWorld);
