import { beforeEach, describe, expect, it } from 'vitest';
import type { DomainStore, HostClaim } from '../../shared/domain/domains/model.ts';
import { newDomainId, newWorkspaceId } from '../../shared/ids.ts';

export type HostClaims = Pick<DomainStore, 'verifiedClaim'>;

/** How a contract makes a hostname's claim verified or gone (in DynamoDB, the domains store's writes). */
export interface HostClaimSeed {
  verify(claim: HostClaim): Promise<void>;
  remove(hostname: string): Promise<void>;
}

/** The hostnames' verified claims as the secrets group reads them: at most one per hostname, read as written. */
export function describeHostClaimsContract(
  name: string,
  make: () => { claims: HostClaims; seed: HostClaimSeed } | Promise<{ claims: HostClaims; seed: HostClaimSeed }>,
): void {
  describe(`HostClaims contract: ${name}`, () => {
    let claims: HostClaims;
    let seed: HostClaimSeed;
    let hostname: string;
    beforeEach(async () => {
      ({ claims, seed } = await make());
      hostname = `${newDomainId().slice(4).toLowerCase()}.example.com`;
    });

    it('answers the verified claim of a hostname, null for one without', async () => {
      const claim = { hostname, domainId: newDomainId(), workspaceId: newWorkspaceId() };
      expect(await claims.verifiedClaim(hostname)).toBeNull();
      await seed.verify(claim);
      expect(await claims.verifiedClaim(hostname)).toEqual(claim);
      expect(await claims.verifiedClaim(`other-${hostname}`)).toBeNull();
    });

    it('answers a later claim of the hostname once the first is gone, by its own id', async () => {
      const first = { hostname, domainId: newDomainId(), workspaceId: newWorkspaceId() };
      const later = { hostname, domainId: newDomainId(), workspaceId: newWorkspaceId() };
      await seed.verify(first);
      await seed.remove(hostname);
      expect(await claims.verifiedClaim(hostname)).toBeNull();
      await seed.verify(later);
      expect(await claims.verifiedClaim(hostname)).toEqual(later);
    });
  });
}
