import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { SsoStore } from '../sso/directory.ts';
import type { AuditRow } from '../workspaces/model.ts';
import type { Actor, WorkspacePorts } from '../workspaces/ports.ts';
import type { TxtResolver } from './ports.ts';

/**
 * Custom domains (issue 17, interface §4.7, rule 5): a workspace claims a hostname, proves it by
 * publishing a TXT record of the claim's own challenge, and links sent inside the workspace may
 * then be on that hostname. A hostname is verified by one claim at a time; pending claims of
 * the same hostname by several workspaces may coexist (a squatter's claim blocks no one), and
 * the first whose record is found wins.
 */
export type DomainState = 'pending' | 'verified';

/** Why the last check did not verify the claim (the web client words them). */
export type DomainCheckError =
  /** The challenge name does not exist, or has no TXT record. */
  | 'txt_not_found'
  /** TXT records are there, none of them this claim's. */
  | 'txt_mismatch'
  /** The DNS servers gave no answer to rely on (SERVFAIL, REFUSED, a timeout): try again later. */
  | 'dns_unavailable'
  /** Another workspace's claim of the hostname was verified first. */
  | 'verified_elsewhere';

export interface Domain {
  id: string;
  workspaceId: string;
  /** Lower case, IDNs in punycode (hostname.ts). */
  hostname: string;
  state: DomainState;
  /** The TXT challenge: one per claim, random, 256 bits. */
  token: string;
  createdAt: number;
  verifiedAt: number | null;
  lastCheckedAt: number | null;
  lastError: DomainCheckError | null;
  /** A pending claim is checked again by the schedule until then. */
  checkUntil: number;
}

/** The verified claim of a hostname: what a request on that hostname is served as. */
export interface HostClaim {
  hostname: string;
  domainId: string;
  workspaceId: string;
}

export interface DomainStore {
  /** `duplicate` when the workspace has claimed the hostname already; `refused` when the actor's role changed meanwhile. */
  claim(domain: Domain, actor: Actor, audit: AuditRow): Promise<'claimed' | 'duplicate' | 'refused'>;
  get(id: string): Promise<Domain | null>;
  list(workspaceId: string): Promise<Domain[]>;
  /** The hostname's verified claim, if it has one (strongly consistent). */
  verifiedClaim(hostname: string): Promise<HostClaim | null>;
  /**
   * Makes the pending claim the hostname's verified one, with the audit row: `already` when it was
   * verified meanwhile (by the schedule, say: nothing written), `taken` when another claim holds
   * the hostname (nothing written), `gone` when the claim was deleted meanwhile.
   */
  verify(domain: Domain, now: number, audit: AuditRow): Promise<'verified' | 'already' | 'taken' | 'gone'>;
  /** Records a check that did not verify a pending claim (its time and why). */
  recordCheck(domain: Domain, now: number, error: DomainCheckError): Promise<void>;
  /**
   * Removes the claim (and, when verified, the hostname's claim with it, and `releaseSsoDomain`
   * from the workspace's SSO directory), with the audit row; false when the actor's role changed.
   */
  remove(domain: Domain, actor: Actor, audit: AuditRow, releaseSsoDomain?: string): Promise<boolean>;
  /** Pending claims whose re-checks have not run out, the least recently checked first. */
  pendingDue(now: number, limit: number): Promise<Domain[]>;
  /** A pending claim whose re-checks ran out leaves the schedule's list (it stays listed for the workspace). */
  stopChecking(domain: Domain): Promise<void>;
}

export interface DomainPorts {
  domains: DomainStore;
  workspaces: WorkspacePorts['workspaces'];
  dns: TxtResolver;
  clock: Clock;
  config: Pick<Config, 'WEB_ORIGIN' | 'HUSHLINK_MODE'>;
  /** Forgets what this instance remembers of a hostname (a deleted claim stops serving here at once). */
  hostsChanged(hostname: string): void;
  /** A deleted claim's domain is no longer one the workspace's SSO directory speaks for. */
  sso: Pick<SsoStore, 'directory'>;
}
