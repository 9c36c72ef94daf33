import { describeScimUserStoreContract } from './scimUserStore.contract.ts';
import { memoryWorkspaceWorld } from './workspaceWorld.ts';

describeScimUserStoreContract('memory', memoryWorkspaceWorld);
