import { MemoryTierSource } from '../fakes/tiers.ts';
import { describeTierSourceContract } from './tiers.contract.ts';

describeTierSourceContract('memory', () => {
  const tiers = new MemoryTierSource();
  return {
    tiers,
    seed: {
      user: async (userId, holder) => void tiers.setUser(userId, holder),
      workspace: async (workspaceId, holder) => void tiers.setWorkspace(workspaceId, holder),
      join: async (workspaceId, userId) => void tiers.join(workspaceId, userId),
      leave: async (workspaceId, userId) => void tiers.leave(workspaceId, userId),
    },
  };
});
