import { describeWorkspaceMembershipContract } from './workspaceMembership.contract.ts';
import { memoryWorkspaceWorld } from './workspaceWorld.ts';

describeWorkspaceMembershipContract('memory', memoryWorkspaceWorld);
