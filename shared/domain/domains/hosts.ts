import type { Clock } from '../../clock.ts';
import { HttpError } from '../../http/errors.ts';
import { domainLimits } from '../../limits.ts';
import type { DomainStore, HostClaim } from './model.ts';

/** Hosts a cache holds at once: in AWS only CloudFront's tenants reach a function, locally anything may. */
const cachedHostsMax = 1000;

/**
 * What an instance knows of hostnames' verified claims, each read kept for
 * `domainLimits.hostCacheSeconds` (a hostname never claimed too, so a stream of requests to it
 * costs one read in that time). `forget` drops a hostname at once: a claim this instance
 * deletes or verifies counts at once here, and on every other instance within the bound.
 */
export class HostDirectory {
  private readonly known = new Map<string, { claim: HostClaim | null; until: number }>();
  /** Raised by `forget`: a read begun before it is not kept, so a deletion here counts at once. */
  private generation = 0;

  constructor(
    private readonly claims: Pick<DomainStore, 'verifiedClaim'>,
    private readonly clock: Clock,
    private readonly keepMs = domainLimits.hostCacheSeconds * 1000,
  ) {}

  async claimOf(hostname: string): Promise<HostClaim | null> {
    const now = this.clock.now();
    const cached = this.known.get(hostname);
    if (cached && cached.until > now) return cached.claim;
    const generation = this.generation;
    const claim = await this.claims.verifiedClaim(hostname);
    if (generation !== this.generation) return claim;
    this.known.delete(hostname);
    if (this.known.size >= cachedHostsMax) this.known.delete(this.known.keys().next().value!);
    this.known.set(hostname, { claim, until: now + this.keepMs });
    return claim;
  }

  forget(hostname: string): void {
    this.generation++;
    this.known.delete(hostname);
  }
}

/** Names this machine answers to in a local run (the gateway is reached by any of them). */
const loopbackNames = /^(localhost|127\.0\.0\.1|\[::1\]|::1)$/;

/** `Host` as a hostname: lower case, no port, no trailing dot. */
export function hostnameOf(host: string): string {
  const lower = host.trim().toLowerCase();
  const withoutPort = lower.startsWith('[') ? lower.slice(0, lower.indexOf(']') + 1) : lower.replace(/:\d*$/, '');
  return withoutPort.replace(/\.$/, '');
}

/** The deployment's own host (`ownOrigin`'s), or in a local run a loopback name. */
export function isOwnHost(host: string, ownOrigin: string, local: boolean): boolean {
  const hostname = hostnameOf(host);
  return hostname === new URL(ownOrigin).hostname || (local && loopbackNames.test(hostname));
}

/**
 * The custom hostname a request arrived on, checked (rule 5): null on this deployment's own host
 * (or when the host is not known: a direct call to the API's endpoint), the verified claim on a
 * workspace's verified hostname, and 404 on any other, a claim deleted or never verified among
 * them. `viewerHost` is the host the browser or client used (shared/http/hostGuard.ts reads it).
 */
export async function checkHost(viewerHost: string | null, ownOrigin: string, local: boolean, hosts: HostDirectory): Promise<HostClaim | null> {
  if (viewerHost === null || isOwnHost(viewerHost, ownOrigin, local)) return null;
  const claim = await hosts.claimOf(hostnameOf(viewerHost));
  if (!claim) {
    throw new HttpError(404, 'not_found', 'This address serves no Hushlink links: its domain was removed from its workspace, or was never verified.', {
      members: { reason: 'unknown_host' },
    });
  }
  return claim;
}
