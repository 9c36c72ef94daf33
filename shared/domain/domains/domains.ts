import { newDomainChallenge, newDomainId } from '../../ids.ts';
import { domainLimits } from '../../limits.ts';
import { planIncludes } from '../plans.ts';
import { Conflict, Forbidden, Invalid, NotFound } from '../refusals.ts';
import { actorFor, auditRow, authorize, noSuchWorkspace, systemAuditRow } from '../workspaces/access.ts';
import { workspaceInUse, type Member } from '../workspaces/model.ts';
import { covers } from '../sso/directory.ts';
import { challengeName, challengeValue, normalizeHostname } from './hostname.ts';
import type { Domain, DomainCheckError, DomainPorts } from './model.ts';

const noSuchDomain = () => new NotFound('No such domain.');
const roleChanged = () => new Forbidden('Your role changed meanwhile.', { facts: { reason: 'role' } });
const isDomainId = (id: string) => /^dom_[A-Za-z0-9_-]{21}[AQgw]$/.test(id);

/** The workspace's plan has custom domains (Team): forbidden otherwise. */
async function requireDomainsPlan(workspaceId: string, ports: DomainPorts): Promise<void> {
  const workspace = workspaceInUse(await ports.workspaces.get(workspaceId));
  if (!workspace) throw noSuchWorkspace();
  if (!planIncludes(workspace.plan, 'custom_domains')) {
    throw new Forbidden('A workspace’s own domains come with the Team plan.', {
      facts: { reason: 'plan', plan: workspace.plan, required: 'team' },
    });
  }
}

/**
 * Claims a hostname for a workspace: pending until the claim's TXT record is found. A conflict
 * when another workspace has verified the hostname, or this one claimed it already.
 */
export async function claimDomain(workspaceId: string, rawHostname: string, userId: string, ports: DomainPorts): Promise<Domain> {
  const member = await authorize(workspaceId, userId, 'manageDomains', ports);
  await requireDomainsPlan(workspaceId, ports);
  const normalized = normalizeHostname(rawHostname, {
    ownHost: new URL(ports.config.WEB_ORIGIN).hostname,
    local: ports.config.HUSHLINK_MODE === 'local',
  });
  if ('refused' in normalized)
    throw new Invalid('That is not a hostname a workspace can claim.', [{ field: 'hostname', message: normalized.refused }]);
  const { hostname } = normalized;
  const verified = await ports.domains.verifiedClaim(hostname);
  if (verified && verified.workspaceId !== workspaceId) {
    throw new Conflict('Another workspace has verified this hostname.', { facts: { reason: 'hostname_verified' } });
  }
  const held = await ports.domains.list(workspaceId);
  if (held.some((domain) => domain.hostname === hostname)) throw alreadyClaimed();
  if (held.length >= domainLimits.perWorkspace) {
    throw new Conflict(`A workspace holds at most ${domainLimits.perWorkspace} domains: delete one first.`, {
      facts: { reason: 'domain_limit' },
    });
  }
  const now = ports.clock.now();
  const domain: Domain = {
    id: newDomainId(),
    workspaceId,
    hostname,
    state: 'pending',
    token: newDomainChallenge(),
    createdAt: now,
    verifiedAt: null,
    lastCheckedAt: null,
    lastError: null,
    checkUntil: now + domainLimits.recheckSeconds * 1000,
  };
  const outcome = await ports.domains.claim(
    domain,
    actorFor(member, 'manageDomains'),
    auditRow(member, workspaceId, 'domain.claimed', domain.id, { hostname }, now),
  );
  if (outcome === 'duplicate') throw alreadyClaimed();
  if (outcome === 'refused') throw roleChanged();
  return domain;
}

const alreadyClaimed = () => new Conflict('This workspace has claimed this hostname already.', { facts: { reason: 'already_claimed' } });

/** The workspace's domains, for any member (not found for anyone else). */
export async function listDomains(workspaceId: string, userId: string, ports: DomainPorts): Promise<Domain[]> {
  await authorize(workspaceId, userId, 'listDomains', ports);
  return ports.domains.list(workspaceId);
}

/** A claim the caller may manage: not found when there is none or the caller is not in its workspace, forbidden for a member. */
async function managedDomain(id: string, userId: string, ports: DomainPorts): Promise<{ domain: Domain; member: Member }> {
  const domain = isDomainId(id) ? await ports.domains.get(id) : null;
  if (!domain) throw noSuchDomain();
  const member = await authorize(domain.workspaceId, userId, 'manageDomains', ports).catch((error: unknown) => {
    // Outside the workspace, its domains do not exist either.
    if (error instanceof NotFound) throw noSuchDomain();
    throw error;
  });
  return { domain, member };
}

/** What checking a claim needs (the schedule's checks need no more). */
export type DomainCheckPorts = Pick<DomainPorts, 'domains' | 'dns' | 'clock' | 'hostsChanged'>;

/** What a check of the claim's TXT record found: verified, or why not. */
async function checkChallenge(domain: Domain, ports: Pick<DomainPorts, 'dns'>): Promise<DomainCheckError | null> {
  const lookup = await ports.dns.lookupTxt(challengeName(domain.hostname));
  if (lookup.kind === 'failed') return 'dns_unavailable';
  if (lookup.kind === 'none') return 'txt_not_found';
  // Other TXT records may sit beside ours (other services' challenges, SPF); a value is compared whole.
  return lookup.records.some((record) => record.trim() === challengeValue(domain.token)) ? null : 'txt_mismatch';
}

/**
 * Checks a pending claim's TXT record and verifies it when found; records why not otherwise.
 * A verified claim stays verified (no lookup). The state after, as the route answers it.
 */
async function check(domain: Domain, audit: (now: number) => ReturnType<typeof auditRow>, ports: DomainCheckPorts): Promise<Domain | null> {
  if (domain.state === 'verified') return domain;
  const error = await checkChallenge(domain, ports);
  const now = ports.clock.now();
  if (error === null) {
    const outcome = await ports.domains.verify(domain, now, audit(now));
    if (outcome === 'gone') return null;
    if (outcome === 'already') return ports.domains.get(domain.id);
    if (outcome === 'verified') {
      ports.hostsChanged(domain.hostname);
      return { ...domain, state: 'verified', verifiedAt: now, lastCheckedAt: now, lastError: null };
    }
  }
  const reason = error ?? 'verified_elsewhere';
  await ports.domains.recordCheck(domain, now, reason);
  return { ...domain, lastCheckedAt: now, lastError: reason };
}

/** `POST /v1/domains/{id}/verify`: looks the TXT record up now; safe to repeat. */
export async function verifyDomain(id: string, userId: string, ports: DomainPorts): Promise<Domain> {
  const { domain, member } = await managedDomain(id, userId, ports);
  // Verifying a new hostname is Team's; one verified already is reported as it is.
  if (domain.state === 'pending') await requireDomainsPlan(domain.workspaceId, ports);
  const checked = await check(
    domain,
    (now) => auditRow(member, domain.workspaceId, 'domain.verified', domain.id, { hostname: domain.hostname }, now),
    ports,
  );
  if (!checked) throw noSuchDomain();
  return checked;
}

/**
 * `DELETE /v1/domains/{id}`: the claim goes, and with it the hostname's serving: links already
 * sent on it stop resolving (rule 5) at once, on every instance (a verified claim is read on
 * every request, hosts.ts). No plan is needed to stop serving.
 */
export async function deleteDomain(id: string, userId: string, ports: DomainPorts): Promise<void> {
  const { domain, member } = await managedDomain(id, userId, ports);
  const audit = auditRow(
    member,
    domain.workspaceId,
    'domain.deleted',
    domain.id,
    { hostname: domain.hostname, state: domain.state },
    ports.clock.now(),
  );
  const release = domain.state === 'verified' ? await ssoDomainReleased(domain, ports) : undefined;
  if (!(await ports.domains.remove(domain, actorFor(member, 'manageDomains'), audit, release))) throw roleChanged();
  ports.hostsChanged(domain.hostname);
}

/**
 * The email domain a deleted verified claim stops proving: when the workspace's SSO directory
 * speaks for one of its names and no other verified claim of the workspace covers it, discovery
 * stops sending its people to the workspace's identity provider, in the deletion's transaction.
 */
async function ssoDomainReleased(deleted: Domain, ports: DomainPorts): Promise<string | undefined> {
  const directory = await ports.sso.directory(deleted.workspaceId);
  if (!directory || !covers(deleted.hostname, directory.emailDomain)) return undefined;
  const others = (await ports.domains.list(deleted.workspaceId)).filter((claim) => claim.id !== deleted.id);
  if (others.some((claim) => claim.state === 'verified' && covers(claim.hostname, directory.emailDomain))) return undefined;
  return directory.emailDomain;
}

/**
 * The schedule's pass over pending claims (for `domainLimits.recheckSeconds` after each was
 * made): each is checked as `verify` checks it, a few at a time; one whose time ran out leaves
 * the list. Figures for the run's log.
 */
export async function recheckPendingDomains(ports: DomainCheckPorts): Promise<{ checked: number; verified: number; expired: number }> {
  const due = await ports.domains.pendingDue(ports.clock.now(), domainLimits.recheckBatch);
  const totals = { checked: 0, verified: 0, expired: 0 };
  const queue = [...due];
  const worker = async () => {
    for (let domain = queue.shift(); domain; domain = queue.shift()) {
      if (ports.clock.now() > domain.checkUntil) {
        await ports.domains.stopChecking(domain);
        totals.expired++;
        continue;
      }
      const claim = domain;
      const checked = await check(
        claim,
        (now) => systemAuditRow(claim.workspaceId, 'domain.verified', claim.id, { hostname: claim.hostname }, now),
        ports,
      );
      totals.checked++;
      if (checked?.state === 'verified') totals.verified++;
    }
  };
  await Promise.all(Array.from({ length: domainLimits.recheckConcurrency }, worker));
  return totals;
}
