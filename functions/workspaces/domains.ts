import { toIso } from '../../shared/clock.ts';
import { claimDomain, deleteDomain, listDomains, verifyDomain } from '../../shared/domain/domains/domains.ts';
import { challengeName, challengeValue } from '../../shared/domain/domains/hostname.ts';
import type { Domain } from '../../shared/domain/domains/model.ts';
import { requireSession } from '../../shared/http/auth.ts';
import type { Operations } from '../../shared/http/group.ts';
import type { OperationOf } from '../../shared/routes.ts';
import type { WorkspacesDeps } from '../workspaces.ts';

type DomainOperation = Extract<OperationOf<'workspaces'>, 'listDomains' | 'claimDomain' | 'deleteDomain' | 'verifyDomain'>;

/** The TXT record the claimant publishes. */
const verification = (domain: Domain) => ({
  type: 'TXT' as const,
  name: challengeName(domain.hostname),
  value: challengeValue(domain.token),
});
const nullableIso = (at: number | null) => (at === null ? null : toIso(at));

/** A workspace's custom domains (issue 17): claimed, verified by DNS, deleted (rule 5). */
export const domainOperations: Pick<Operations<'workspaces', WorkspacesDeps>, DomainOperation> = {
  async listDomains(request, deps) {
    const domains = await listDomains(request.query.workspace_id, requireSession(request.principal).userId, deps);
    return {
      status: 200,
      body: {
        items: domains.map((domain) => ({
          id: domain.id,
          hostname: domain.hostname,
          state: domain.state,
          verification: verification(domain),
          verified_at: nullableIso(domain.verifiedAt),
          last_checked_at: nullableIso(domain.lastCheckedAt),
          last_error: domain.lastError,
        })),
      },
    };
  },

  async claimDomain(request, deps) {
    const domain = await claimDomain(request.body.workspace_id, request.body.hostname, requireSession(request.principal).userId, deps);
    return {
      status: 201,
      body: {
        id: domain.id,
        hostname: domain.hostname,
        state: domain.state,
        verification: verification(domain),
        created_at: toIso(domain.createdAt),
      },
    };
  },

  async verifyDomain(request, deps) {
    const domain = await verifyDomain(request.params.id ?? '', requireSession(request.principal).userId, deps);
    return {
      status: 200,
      body: {
        id: domain.id,
        state: domain.state,
        checked_at: toIso(domain.lastCheckedAt ?? domain.verifiedAt ?? deps.clock.now()),
        last_error: domain.lastError,
      },
    };
  },

  async deleteDomain(request, deps) {
    const id = request.params.id ?? '';
    await deleteDomain(id, requireSession(request.principal).userId, deps);
    return { status: 200, body: { id, deleted: true } };
  },
};
