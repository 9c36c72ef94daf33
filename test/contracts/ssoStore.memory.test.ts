import { describeSsoStoreContract } from './ssoStore.contract.ts';
import { memoryWorkspaceWorld } from './workspaceWorld.ts';

describeSsoStoreContract('memory', memoryWorkspaceWorld);
