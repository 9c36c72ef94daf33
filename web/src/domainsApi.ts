/**
 * The calls of a workspace's custom domains and its single sign-on directory (issue 17,
 * interface §4.7), on `api.ts`'s `call` (same origin, the session's access token), and SSO
 * discovery, the one call without a session (the sign-in page asks it). The directory key is in
 * the answer of the PUT that made it, and nowhere else.
 */
import type * as z from 'zod/mini';
import type { domainsReplies, domainsRequests } from '../../shared/api/domains.ts';
import { call } from './api.ts';

type Reply<K extends keyof typeof domainsReplies> = z.output<(typeof domainsReplies)[K]>;

/** A claim of a hostname, as `GET /v1/domains` lists it (lower case, an IDN in its ASCII form). */
export type WorkspaceDomain = Reply<'DomainList'>['items'][number];
export type DomainState = WorkspaceDomain['state'];
/** Why the last check did not verify it; null once verified, or before any check. */
export type DomainCheckError = NonNullable<WorkspaceDomain['last_error']>;
/** The TXT record that proves a claim: published at `name`, its value exactly `value`. */
export type DomainVerification = WorkspaceDomain['verification'];
export type ClaimedDomain = Reply<'DomainClaimed'>;
export type DomainCheck = Reply<'DomainChecked'>;
export type SsoBody = z.input<typeof domainsRequests.SsoRequest>;
/** `scim.directory_key` (`hlscim_…`) only in the answer that made it: the first PUT, or a rotation. */
export type SsoDirectory = Reply<'SsoDirectory'>;
export type SsoDiscovery = Reply<'SsoDiscovery'>;

/** A workspace's directory as the pages know it (the API has no read of one). */
export interface KnownDirectory {
  workspaceId: string;
  issuer: string;
  emailDomain: string;
}

const domainPath = (id: string) => `/v1/domains/${encodeURIComponent(id)}`;

export const domainsApi = {
  list: (token: string, workspaceId: string) =>
    call<Reply<'DomainList'>>('GET', `/v1/domains?${new URLSearchParams({ workspace_id: workspaceId }).toString()}`, { token }),
  claim: (token: string, workspaceId: string, hostname: string) =>
    call<ClaimedDomain>('POST', '/v1/domains', { json: { workspace_id: workspaceId, hostname }, token }),
  /** Looks the TXT record up now; safe to repeat. */
  verify: (token: string, id: string) => call<DomainCheck>('POST', `${domainPath(id)}/verify`, { token }),
  remove: (token: string, id: string) => call<Reply<'DomainDeleted'>>('DELETE', domainPath(id), { token }),
  setSso: (token: string, workspaceId: string, body: SsoBody) =>
    call<SsoDirectory>('PUT', `/v1/workspaces/${encodeURIComponent(workspaceId)}/sso`, { json: body, token }),
  /** Public: which identity provider an address's workspace uses, if any. */
  discover: (email: string) => call<SsoDiscovery>('GET', `/v1/workspaces/sso/discover?${new URLSearchParams({ email }).toString()}`),
  directoryOf,
};

/**
 * The directory of `workspaceId`, found as the sign-in page would find it: discovery asked about
 * an address at each of `names`, the answer naming this workspace kept. `failed` when an answer
 * could not be had (so "none" is not said for sure).
 */
async function directoryOf(workspaceId: string, names: string[]): Promise<{ found: KnownDirectory | null; failed: boolean }> {
  let failed = false;
  const answers = await Promise.all(
    names.map((name) =>
      domainsApi.discover(`someone@${name}`).then(
        (answer) => ({ name, answer }),
        () => {
          failed = true;
          return null;
        },
      ),
    ),
  );
  for (const entry of answers) {
    if (entry?.answer.sso && entry.answer.workspace.id === workspaceId)
      return { found: { workspaceId, issuer: entry.answer.issuer, emailDomain: entry.name }, failed };
  }
  return { found: null, failed };
}

/** An issuer as the pages link it: an `https:` URL, or null (nothing else is ever a link). */
export function issuerUrl(issuer: string): URL | null {
  if (!URL.canParse(issuer)) return null;
  const url = new URL(issuer);
  return url.protocol === 'https:' && url.username === '' && url.password === '' ? url : null;
}
