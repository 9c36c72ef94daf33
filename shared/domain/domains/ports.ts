/**
 * How a TXT lookup ended (shared/adapters/dnsTxt.ts asks DNS): "no such record" may be told to
 * the customer and tried again later; a failing server is waited out. The two are never confused.
 */
export type TxtLookup =
  /** Every TXT record at the name, each record's character-strings joined (RFC 7208 §3.3). */
  | { kind: 'found'; records: string[] }
  /** The name does not exist (NXDOMAIN), or exists without TXT records (NODATA). */
  | { kind: 'none'; reason: 'nxdomain' | 'nodata' }
  /** No answer to rely on; `code` is the resolver's (ESERVFAIL, ETIMEOUT, ECONNREFUSED, …). */
  | { kind: 'failed'; reason: 'servfail' | 'refused' | 'timeout' | 'error'; code: string };

/** The DNS a claim's TXT challenge is looked up in. */
export interface TxtResolver {
  lookupTxt(name: string): Promise<TxtLookup>;
}

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

/**
 * Where serving a verified claim stands, as the schedule last found it. It is kept on the claim's
 * item, so reading a workspace's domains never asks CloudFront.
 */
export type HostingStep =
  /** Verified: the schedule's next run serves it. */
  | 'due'
  | 'awaiting_cname'
  | 'hostname_taken'
  /** Its tenant exists; the certificate is not issued and attached yet, or the tenant is still deploying. */
  | 'deploying'
  /** Links on the hostname work. Nothing more to do. */
  | 'live'
  /** Given up while a tenant may exist: it is being taken away. */
  | 'stopping'
  /** Given up, with nothing of it left at CloudFront: deleting the domain and claiming it again starts anew. */
  | 'given_up';

/** Why the schedule stopped trying to serve a verified claim. */
export type HostingGiveUp =
  /** Not live within `domainLimits.hostingWindowSeconds` of its verification, and still without its CNAME. */
  | 'cname_missing'
  /** The same, with the hostname held elsewhere all along. */
  | 'hostname_taken'
  /** The same, for any other reason (a tenant that never deployed, CloudFront failing). */
  | 'not_live'
  /** The certificate was refused or lapsed: it does not recover by waiting. */
  | 'certificate_failed'
  /** Its tenant was disabled by someone else (an operator): it is not fought over. */
  | 'tenant_disabled';

/** A claim's hosting as recorded on its item. */
export interface HostingRecord {
  step: HostingStep;
  /** When it came to this step: how long a hostname has been taken, or a stop has been running. */
  since: number;
  /** When CloudFront last answered for it; null before the first time. */
  checkedAt: number | null;
  tenantId: string | null;
  certificate: CertificateState | null;
  gaveUp: HostingGiveUp | null;
  /** The operator has been told, once (a log line and a metric), that it is stuck. */
  reported: boolean;
}

/** A verified claim whose next hosting step is due. */
export interface ClaimToServe extends HostedClaim {
  workspaceId: string;
  verifiedAt: number;
  hosting: HostingRecord;
}

/**
 * What a deleted claim leaves behind until its tenant is gone: without it a tenant whose claim was
 * deleted would never be deleted, and would keep its hostname from every later claim.
 */
export interface StopOrder extends HostedClaim {
  workspaceId: string;
  /** When the first order was given (a stop that takes more than an hour is an operator's problem). */
  orderedAt: number;
  /** Raised by every new order, so finishing an old one never removes a newer one. */
  version: number;
  reported: boolean;
}

export type HostingWork = { serve: ClaimToServe } | { stop: StopOrder };

/** Hosting's items: the state on each verified claim, the stop orders of deleted ones, and when each is due. */
export interface HostingStore {
  /** Verified claims and stop orders whose next step is due, the longest due first, at most `limit` in all. */
  due(now: number, limit: number): Promise<HostingWork[]>;
  /** Records where the claim's hosting stands and when its next step is due (null: none). False when the claim is gone. */
  record(claim: ClaimToServe, hosting: HostingRecord, nextAt: number | null): Promise<boolean>;
  /** Orders the claim's tenant stopped (again): it went while being served, so whatever was made must go too. */
  orderStop(claim: HostedClaim & { workspaceId: string }, at: number): Promise<void>;
  /** The order's next try, unless it was ordered again meanwhile (then the new order stands). */
  retryStop(order: StopOrder, nextAt: number, reported: boolean): Promise<void>;
  /** No tenant is left: the order goes, unless it was ordered again meanwhile. */
  stopDone(order: StopOrder): Promise<void>;
}
