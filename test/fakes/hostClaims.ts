import type { DomainStore, HostClaim } from '../../shared/domain/domains/model.ts';
import { copy } from './memoryListing.ts';

/**
 * The hostnames' verified claims, as the secrets, files and requests functions read them
 * (DynamoHostClaims), seeded by the test: in DynamoDB the domains store writes them on verify.
 */
export class MemoryHostClaims implements Pick<DomainStore, 'verifiedClaim'> {
  private readonly claims = new Map<string, HostClaim>();

  /** The claim becomes its hostname's verified one (replacing any). */
  verify(claim: HostClaim): this {
    this.claims.set(claim.hostname, copy(claim));
    return this;
  }

  remove(hostname: string): this {
    this.claims.delete(hostname);
    return this;
  }

  async verifiedClaim(hostname: string): Promise<HostClaim | null> {
    const claim = this.claims.get(hostname);
    return claim ? copy(claim) : null;
  }
}
