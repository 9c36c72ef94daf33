import { MemoryHostClaims } from '../fakes/hostClaims.ts';
import { describeHostClaimsContract } from './hostClaims.contract.ts';

describeHostClaimsContract('memory', () => {
  const claims = new MemoryHostClaims();
  return { claims, seed: { verify: async (claim) => void claims.verify(claim), remove: async (hostname) => void claims.remove(hostname) } };
});
