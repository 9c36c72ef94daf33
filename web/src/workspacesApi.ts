/**
 * The workspaces pages' API calls (interface §4.7), on `api.ts`'s `call` (same origin, the
 * session's access token): workspaces, members and invitations, roles, transfer, policy,
 * branding, the audit trail, and its export, which answers a file (read here as a Blob, part by
 * part). An invitation's token goes only in the body of `invitations/accept`.
 */
import type * as z from 'zod/mini';
import type { accountReplies } from '../../shared/api/accountReplies.ts';
import type { workspacesRequests } from '../../shared/api/workspaces.ts';
import type { workspacesReplies } from '../../shared/api/workspacesReplies.ts';
import { ApiError, call, pageQuery, type Problem } from './api.ts';

type Reply<K extends keyof typeof workspacesReplies> = z.output<(typeof workspacesReplies)[K]>;

/** A workspace of the caller, as `GET /v1/workspaces` lists it. */
export type WorkspaceSummary = Reply<'WorkspaceList'>['items'][number];
export type Role = WorkspaceSummary['role'];
export type WorkspacePlan = WorkspaceSummary['plan'];
export type WorkspacePolicy = Reply<'Policy'>;
/** `logo` is a `data:` URL of a PNG, JPEG or WebP image; `accent` is `#rrggbb`. */
export type WorkspaceBranding = Reply<'Branding'>;
export type CreatedWorkspace = Reply<'WorkspaceCreated'>;
export type MemberList = Reply<'MemberList'>;
export type WorkspaceMember = MemberList['items'][number];
export type MemberSource = WorkspaceMember['source'];
/** `id` (`inv_…`) is revoked with `DELETE …/members/{id}`. */
export type PendingInvitation = MemberList['invitations'][number];
export type AuditRow = Reply<'AuditPage'>['items'][number];
export type InvitationPreview = Reply<'InvitationPreview'>;
type Regions = z.output<typeof accountReplies.Regions>;
export type Region = Regions['regions'][number];
export type PolicyBody = z.input<typeof workspacesRequests.PolicyRequest>;
export type BrandingBody = z.input<typeof workspacesRequests.BrandingRequest>;

/** One part of an export: the file's bytes, the name the server gave it, and the next part's path. */
export interface ExportPart {
  blob: Blob;
  fileName: string | null;
  next: string | null;
}

const workspacePath = (id: string) => `/v1/workspaces/${encodeURIComponent(id)}`;

export const workspacesApi = {
  list: (token: string) => call<Reply<'WorkspaceList'>>('GET', '/v1/workspaces', { token }),
  create: (token: string, body: z.input<typeof workspacesRequests.CreateWorkspaceRequest>) =>
    call<CreatedWorkspace>('POST', '/v1/workspaces', { json: body, token }),
  regions: () => call<Regions>('GET', '/v1/regions'),
  members: (token: string, id: string) => call<MemberList>('GET', `${workspacePath(id)}/members`, { token }),
  invite: (token: string, id: string, body: z.input<typeof workspacesRequests.InvitationRequest>) =>
    call<Reply<'InvitationCreated'>>('POST', `${workspacePath(id)}/invitations`, { json: body, token }),
  /** The token in the body, never in a URL or header. */
  /** What an invitation says (workspace, inviter, address, role), to anyone holding its token: nothing is accepted. */
  preview: (invitation: string) => call<InvitationPreview>('POST', '/v1/workspaces/invitations/preview', { json: { token: invitation } }),
  accept: (token: string, invitation: string) =>
    call<Reply<'InvitationAccepted'>>('POST', '/v1/workspaces/invitations/accept', { json: { token: invitation }, token }),
  /** A member (`usr_…`: removing, or leaving when it is oneself) or a pending invitation (`inv_…`: revoking). */
  remove: (token: string, id: string, memberOrInvitation: string) =>
    call<Reply<'MemberRemoved'>>('DELETE', `${workspacePath(id)}/members/${encodeURIComponent(memberOrInvitation)}`, { token }),
  changeRole: (token: string, id: string, userId: string, role: Role) =>
    call<Reply<'RoleChanged'>>('PATCH', `${workspacePath(id)}/members/${encodeURIComponent(userId)}`, { json: { role }, token }),
  transfer: (token: string, id: string, userId: string) =>
    call<Reply<'WorkspaceTransferred'>>('POST', `${workspacePath(id)}/transfer`, { json: { user_id: userId }, token }),
  setPolicy: (token: string, id: string, body: PolicyBody) =>
    call<WorkspacePolicy>('PUT', `${workspacePath(id)}/policy`, { json: body, token }),
  setBranding: (token: string, id: string, body: BrandingBody) =>
    call<WorkspaceBranding>('PUT', `${workspacePath(id)}/branding`, { json: body, token }),
  audit: (token: string, id: string, limit: number, cursor: string | null) =>
    call<Reply<'AuditPage'>>('GET', `${workspacePath(id)}/audit?${pageQuery(limit, cursor)}`, { token }),
  /** The export's first part. */
  exportPath: (id: string, format: 'csv' | 'json') => `${workspacePath(id)}/audit/export?${new URLSearchParams({ format }).toString()}`,
  exportPart,
};

/**
 * One part of an export, fetched with the bearer token (the route takes no cookie, so a plain
 * download link cannot carry it). `next` is the `link: <…>; rel="next"` of a large trail, kept
 * only when it is this workspace's export again.
 */
async function exportPart(token: string, path: string, workspaceId: string): Promise<ExportPart> {
  let response: Response;
  try {
    response = await fetch(path, {
      headers: { accept: 'text/csv, application/json', authorization: `Bearer ${token}` },
      cache: 'no-store',
      credentials: 'same-origin',
      referrerPolicy: 'no-referrer',
      redirect: 'error',
    });
  } catch {
    throw new ApiError(
      0,
      { status: 0, code: 'network', detail: 'The server could not be reached. Check your connection and try again.' },
      null,
    );
  }
  if (!response.ok) {
    let problem: Problem = { status: response.status };
    try {
      problem = { ...(await response.json()), status: response.status };
    } catch {
      // Not problem+json: the status says enough.
    }
    const retryAfter = Number.parseInt(response.headers.get('retry-after') ?? '', 10);
    throw new ApiError(response.status, problem, Number.isFinite(retryAfter) ? retryAfter : null);
  }
  return {
    blob: await response.blob(),
    fileName: attachmentName(response.headers.get('content-disposition')),
    next: nextPart(response.headers.get('link'), workspaceId),
  };
}

/** `attachment; filename="…"`: the server's names are ASCII letters, digits, dashes and a dot. */
export function attachmentName(disposition: string | null): string | null {
  const name = /filename="([\w.-]+)"/.exec(disposition ?? '')?.[1];
  return name && !name.startsWith('.') ? name : null;
}

/** The `rel="next"` target of a `link` header, when it is a path of this workspace's export (nothing else is followed). */
export function nextPart(link: string | null, workspaceId: string): string | null {
  for (const entry of (link ?? '').split(',')) {
    const match = /^\s*<([^>]*)>\s*;\s*rel="?next"?\s*$/i.exec(entry);
    if (!match) continue;
    const target = new URL(match[1]!, location.origin);
    if (target.origin === location.origin && target.pathname === `${workspacePath(workspaceId)}/audit/export`)
      return `${target.pathname}${target.search}`;
  }
  return null;
}
