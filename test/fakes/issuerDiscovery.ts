import type { IssuerCheck, IssuerDiscovery } from '../../shared/domain/sso/issuer.ts';

/**
 * Identity providers' discovery documents (shared/adapters/oidcDiscovery.ts) as a test sets them:
 * every issuer's names it unless `answer` says otherwise; `asked` lists the issuers read.
 */
export class FakeIssuerDiscovery implements IssuerDiscovery {
  private readonly answers = new Map<string, IssuerCheck>();
  readonly asked: string[] = [];

  answer(issuer: string, check: IssuerCheck): void {
    this.answers.set(issuer, check);
  }

  async check(issuer: string): Promise<IssuerCheck> {
    this.asked.push(issuer);
    return this.answers.get(issuer) ?? { outcome: 'matches' };
  }
}
