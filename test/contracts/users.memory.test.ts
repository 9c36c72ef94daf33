import { MemoryUserStore } from '../fakes/users.ts';
import { describeUserStoreContract } from './users.contract.ts';

describeUserStoreContract('memory', () => {
  const users = new MemoryUserStore();
  const record = { at: 0, by: 'contract test', note: '' };
  return {
    users,
    plans: {
      setPlan: async (userId, plan) => void users.setPlan(userId, plan),
      setContractPlan: async (userId, plan) => void users.setContractPlan(userId, plan, record),
    },
  };
});
