import { describeWorkspaceStoreContract } from './workspaceStore.contract.ts';
import { memoryWorkspaceWorld } from './workspaceWorld.ts';

describeWorkspaceStoreContract('memory', memoryWorkspaceWorld);
