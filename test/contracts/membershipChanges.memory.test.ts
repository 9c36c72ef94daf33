import { describeMembershipChangesContract } from './membershipChanges.contract.ts';
import { memoryWorkspaceWorld } from './workspaceWorld.ts';

describeMembershipChangesContract('memory', memoryWorkspaceWorld);
