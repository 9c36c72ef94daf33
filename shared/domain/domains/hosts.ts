import type { Clock } from '../../clock.ts';
import { domainLimits } from '../../limits.ts';
import { NotFound } from '../refusals.ts';
import type { DomainStore, HostClaim } from './model.ts';

/** Unclaimed hostnames a cache holds at once: in AWS only CloudFront's tenants reach a function, locally anything may. */
const cachedHostsMax = 1000;

/**
 * What an instance knows of hostnames' verified claims. A verified claim is read on every
 * request (strongly consistent, `DomainStore.verifiedClaim`), so a deleted one is refused at
 * once on every instance: no view, gate code or response is ever taken on a cached claim (issue
 * 26). Only a hostname's having no claim is kept, for `domainLimits.hostCacheSeconds`, so a
 * stream of requests to a name nobody verified costs one read in that time; `forget` drops it at
 * once, so a claim this instance verifies serves here at once, and on every other within the bound.
 */
export class HostDirectory {
  /** Hostnames read as having no verified claim, until when that is trusted. */
  private readonly unclaimed = new Map<string, number>();
  /** Raised by `forget`: a read begun before it is not kept, so a verification here counts at once. */
  private generation = 0;

  constructor(
    private readonly claims: Pick<DomainStore, 'verifiedClaim'>,
    private readonly clock: Clock,
    private readonly keepMs = domainLimits.hostCacheSeconds * 1000,
  ) {}

  async claimOf(hostname: string): Promise<HostClaim | null> {
    const now = this.clock.now();
    const until = this.unclaimed.get(hostname);
    if (until !== undefined && until > now) return null;
    const generation = this.generation;
    const claim = await this.claims.verifiedClaim(hostname);
    this.unclaimed.delete(hostname);
    if (claim !== null || generation !== this.generation) return claim;
    if (this.unclaimed.size >= cachedHostsMax) this.unclaimed.delete(this.unclaimed.keys().next().value!);
    this.unclaimed.set(hostname, now + this.keepMs);
    return null;
  }

  forget(hostname: string): void {
    this.generation++;
    this.unclaimed.delete(hostname);
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
 * workspace's verified hostname, and not found (`unknown_host`) on any other, a claim deleted or never verified among
 * them. `viewerHost` is the host the browser or client used, as the transport read it.
 */
export async function checkHost(
  viewerHost: string | null,
  ownOrigin: string,
  local: boolean,
  hosts: HostDirectory,
): Promise<HostClaim | null> {
  if (viewerHost === null || isOwnHost(viewerHost, ownOrigin, local)) return null;
  const claim = await hosts.claimOf(hostnameOf(viewerHost));
  if (!claim) {
    throw new NotFound('This address serves no Hushlink links: its domain was removed from its workspace, or was never verified.', {
      facts: { reason: 'unknown_host' },
    });
  }
  return claim;
}
