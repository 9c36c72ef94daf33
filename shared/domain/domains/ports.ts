/**
 * A verified claim of a hostname, as hosting sees it. The domain's id, not the hostname, names
 * what serves it, so a later claim of the same hostname (after this one is deleted, by this
 * workspace or another) is served apart and never reuses or removes this one's.
 */
export interface HostedClaim {
  /** The domain's id (`dom_…`). */
  domainId: string;
  /** As claimed: lower-case, IDNs in punycode. */
  hostname: string;
}

/**
 * The certificate requested for a claim. `failed` does not recover by waiting (validation timed
 * out, or it was revoked or expired): deleting the domain and claiming it again starts anew.
 */
export type CertificateState = 'pending' | 'issued' | 'failed';

/** How a claim is served; `routingEndpoint` is the CNAME target the customer adds, in every state. */
export type Hosting =
  /**
   * Nothing serves it: the hostname does not resolve to the routing endpoint yet (its CNAME is
   * missing, or not visible yet), and until it does no certificate can be requested for it.
   */
  | { state: 'awaiting_cname'; routingEndpoint: string }
  /**
   * Something else holds the hostname: an earlier claim's tenant still being removed (it goes
   * within minutes), or another AWS account's CloudFront (it does not; an operator looks).
   */
  | { state: 'hostname_taken'; routingEndpoint: string }
  /**
   * The claim has its tenant. `live` once the tenant is deployed and enabled, its certificate
   * issued and attached, and its domain active: links on the hostname then work.
   */
  | { state: 'served'; tenantId: string; routingEndpoint: string; certificate: CertificateState; live: boolean }
  /** The tenant is disabled: `stop` has begun, and the hostname no longer answers once that is deployed. */
  | { state: 'stopping'; tenantId: string; routingEndpoint: string };

/**
 * Serving verified hostnames in AWS (shared/adapters/cloudfrontTenants.ts). Every method is
 * safe to repeat; none waits for CloudFront, so the schedule calls again until it has the state
 * it wants.
 */
export interface HostnameHosting {
  /**
   * Serves the claim: makes its tenant (with a certificate request) or reads the one it has,
   * and attaches the certificate once issued. A stopping tenant is left stopping.
   */
  serve(claim: HostedClaim): Promise<Hosting>;
  /** The claim's tenant as it is now, changing nothing; `none` when it has none. */
  status(claim: HostedClaim): Promise<Hosting | { state: 'none'; routingEndpoint: string }>;
  /**
   * Takes the claim's tenant away: disables it, then (once the disable is deployed, seconds to
   * minutes later) deletes it. `stopping` until then; `stopped` when no tenant is left.
   */
  stop(claim: HostedClaim): Promise<'stopping' | 'stopped'>;
}
