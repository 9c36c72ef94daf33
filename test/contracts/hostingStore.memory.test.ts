import { describeHostingStoreContract } from './hostingStore.contract.ts';
import { memoryWorkspaceWorld } from './workspaceWorld.ts';

describeHostingStoreContract('memory', memoryWorkspaceWorld);
