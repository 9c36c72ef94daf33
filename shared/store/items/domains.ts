import type { Domain, DomainCheckError } from '../../domain/domains/model.ts';
import type { CertificateState, HostingGiveUp, HostingStep } from '../../domain/domains/ports.ts';
import { workspacePartition } from './workspaces.ts';

// Custom domains. Every item here is written by the domain store (workspaceDomains.ts) alone:
// hosting (domainHosting.ts) reads them and sends the domain store's parts for its changes.

/**
 * A claim of a hostname (`WORKSPACE#<id>` / `DOMAIN#<hostname>`: one per hostname and workspace
 * by its key). While pending its next check is on the work index (`DOMAIN_CHECK`); once verified
 * its next hosting step (`DOMAIN_HOSTING`), until live or given up, with where hosting stands
 * (`hosting_*`, `tenant_id`, `certificate`).
 */
export const claimKey = (workspaceId: string, hostname: string) => ({ pk: workspacePartition(workspaceId), sk: `DOMAIN#${hostname}` });
export const claimPrefix = 'DOMAIN#';
export interface DomainClaimItem {
  pk: string;
  sk: string;
  type: 'domain';
  id: string;
  workspace_id: string;
  hostname: string;
  state: Domain['state'];
  token: string;
  created_at: number;
  verified_at: number | null;
  last_checked_at: number | null;
  last_error: DomainCheckError | null;
  check_until: number;
  hosting_step?: HostingStep;
  hosting_since?: number;
  hosting_checked_at?: number | null;
  tenant_id?: string | null;
  certificate?: CertificateState | null;
  hosting_gave_up?: HostingGiveUp | null;
  hosting_reported?: boolean;
  gsi2pk?: string;
  gsi2sk?: string;
}

/** A claim's id's pointer (`DOMAIN#<id>` / `DOMAIN`: its workspace and hostname), for the routes that name a claim by id. */
export const domainPointerKey = (id: string) => ({ pk: `DOMAIN#${id}`, sk: 'DOMAIN' });
export interface DomainPointerItem {
  pk: string;
  sk: string;
  type: 'domain_pointer';
  id: string;
  workspace_id: string;
  hostname: string;
}

/**
 * A hostname's verified claim (`HOSTNAME#<hostname>` / `HOSTNAME`), at most one: written when a
 * claim is verified and removed with it; what a request on the hostname is checked against
 * (hostClaims.ts reads it).
 */
export const hostnameKey = (hostname: string) => ({ pk: `HOSTNAME#${hostname}`, sk: 'HOSTNAME' });
export interface HostnameItem {
  pk: string;
  sk: string;
  type: 'hostname';
  hostname: string;
  domain_id: string;
  workspace_id: string;
  verified_at: number;
}

/**
 * A verified claim's stop order once the claim is deleted (`HOSTING_STOP#<id>` / `HOSTING_STOP`),
 * due on the work index (`HOSTING_STOP`) until its tenant is gone; `version` moves with each order.
 */
export const stopOrderKey = (domainId: string) => ({ pk: `HOSTING_STOP#${domainId}`, sk: 'HOSTING_STOP' });
export interface HostingStopItem {
  pk: string;
  sk: string;
  type: 'hosting_stop';
  domain_id: string;
  workspace_id: string;
  hostname: string;
  ordered_at: number;
  version: number;
  reported: boolean;
  gsi2pk: string;
  gsi2sk: string;
}
