import type { WorkspaceData } from '../fakes/workspaceData.ts';
import { MemoryScimGroupStore } from '../fakes/scimGroupStore.ts';
import { describeScimGroupStoreContract } from './scimGroupStore.contract.ts';
import { memoryWorkspaceWorld } from './workspaceWorld.ts';

describeScimGroupStoreContract('memory', async () => {
  const world = memoryWorkspaceWorld();
  // The memory world's ports share one WorkspaceData, as the stores share one table.
  const data = (world as unknown as { data: WorkspaceData }).data;
  return { world, groups: new MemoryScimGroupStore(data) };
});
