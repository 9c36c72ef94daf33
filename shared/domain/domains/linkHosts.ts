import type { Config } from '../../config.ts';
import { planInUse } from '../billing/tier.ts';
import { planIncludes } from '../plans.ts';
import { Forbidden, Invalid } from '../refusals.ts';
import type { WorkspaceMembershipPorts } from '../workspaces/membership.ts';
import { normalizeHostname } from './hostname.ts';
import type { DomainStore, HostClaim } from './model.ts';

/**
 * The workspace's hostname a secret, file or request link was made on (issue 17): the hostname
 * its `url_base` names, and the verified claim it was made under. The claim's id is what binds
 * the link (rule 5): a later claim of the same hostname, by any workspace, has another id.
 */
export type LinkHost = Pick<HostClaim, 'hostname' | 'domainId'>;

export interface LinkHostPorts extends WorkspaceMembershipPorts {
  /** The hostname's verified claim, read strongly consistent (not the instance's cache: a link outlives a few seconds). */
  hostClaims: Pick<DomainStore, 'verifiedClaim'>;
  config: Pick<Config, 'WEB_ORIGIN' | 'HUSHLINK_MODE'>;
}

/**
 * The hostname a link sent inside `workspaceId` asks for, as that workspace's verified claim of
 * it (normalized as a claim is: lower case, IDNs in punycode). Invalid (`hostname`) for a name
 * that is not a hostname, one not verified, and one another workspace verified alike: which
 * workspace holds a hostname is not this route's to tell.
 *
 * New links on a hostname are Team's (forbidden, `plan`, below it, as claiming one is). A plan that ends
 * takes nothing else: links made on it keep opening there until they end (their recipients did
 * nothing wrong), and the claim stays verified, so Team again makes links on it at once.
 */
export async function linkHostOf(workspaceId: string, rawHostname: string, ports: LinkHostPorts): Promise<LinkHost> {
  const refused = (message: string) =>
    new Invalid('Links are made only on a hostname their workspace has verified.', [{ field: 'hostname', message }]);
  const normalized = normalizeHostname(rawHostname, {
    ownHost: new URL(ports.config.WEB_ORIGIN).hostname,
    local: ports.config.HUSHLINK_MODE === 'local',
  });
  if ('refused' in normalized) throw refused(normalized.refused);
  const claim = await ports.hostClaims.verifiedClaim(normalized.hostname);
  if (!claim || claim.workspaceId !== workspaceId) throw refused('is not a hostname this workspace has verified');
  // The plan as the reveal page reads it (two small reads in parallel, for links on a hostname only).
  const held = await ports.workspaceMembership.brandingOf(workspaceId);
  const plan = held ? planInUse(held) : undefined;
  if (plan === undefined || !planIncludes(plan, 'custom_domains')) {
    throw new Forbidden('Links on a workspace’s own hostname come with the Team plan: send this one without `hostname`, or renew Team.', {
      facts: { reason: 'plan', plan: plan ?? 'free', required: 'team' },
    });
  }
  return { hostname: claim.hostname, domainId: claim.domainId };
}

/**
 * Whether a link is there for a request that arrived on `hostClaim`'s hostname (rule 5). On this
 * deployment's own host (null) every link is, those made on a workspace's hostname too; on a
 * workspace's hostname only the links made under that very claim, so another workspace's links,
 * links made without a hostname, and links of an earlier claim of the same hostname are not.
 */
export const servedOn = (link: { linkHost?: LinkHost }, hostClaim: HostClaim | null): boolean =>
  hostClaim === null || link.linkHost?.domainId === hostClaim.domainId;

/**
 * The origin a link's `url_base` is on: `WEB_ORIGIN`, or the workspace's hostname over https
 * (CloudFront serves it on 443). A local run keeps `WEB_ORIGIN`'s scheme and port: the local
 * gateway answers on that port whatever name reached it (a hosts entry, a test's `Host`).
 */
export function linkOrigin(linkHost: LinkHost | undefined, config: Pick<Config, 'WEB_ORIGIN' | 'HUSHLINK_MODE'>): string {
  if (!linkHost) return config.WEB_ORIGIN;
  if (config.HUSHLINK_MODE !== 'local') return `https://${linkHost.hostname}`;
  const own = new URL(config.WEB_ORIGIN);
  return `${own.protocol}//${linkHost.hostname}${own.port ? `:${own.port}` : ''}`;
}
