import { describeContractPlanStoreContract } from './contractPlans.contract.ts';
import { memoryWorkspaceWorld } from './workspaceWorld.ts';

describeContractPlanStoreContract('memory', memoryWorkspaceWorld);
