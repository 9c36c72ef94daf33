import { describeBillingStoreContract } from './billingStore.contract.ts';
import { memoryWorkspaceWorld } from './workspaceWorld.ts';

describeBillingStoreContract('memory', memoryWorkspaceWorld);
