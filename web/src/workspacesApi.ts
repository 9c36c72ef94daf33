/**
 * The workspaces pages' API calls (interface §4.7), on `api.ts`'s `call` (same origin, the
 * session's access token): workspaces, members and invitations, roles, transfer, policy,
 * branding, the audit trail, and its export, which answers a file (read here as a Blob, part by
 * part). An invitation's token goes only in the body of `invitations/accept`.
 */
import type { Role } from '../../shared/domain/workspaces/model.ts';
import type { PolicyReply } from '../../shared/domain/workspaces/policy.ts';
import { ApiError, call, type Page, type Problem } from './api.ts';

export type { Role };
export type WorkspacePolicy = PolicyReply;
export type WorkspacePlan = 'free' | 'pro' | 'team' | 'enterprise';

export interface WorkspaceBranding {
  display_name: string;
  /** A `data:` URL of a PNG, JPEG or WebP image. */
  logo: string | null;
  /** `#rrggbb`. */
  accent: string | null;
}

/** A workspace of the caller, as `GET /v1/workspaces` lists it. */
export interface WorkspaceSummary {
  id: string;
  name: string;
  slug: string;
  role: Role;
  plan: WorkspacePlan;
  seats: number;
  members: number;
  policy: WorkspacePolicy;
  branding: WorkspaceBranding | null;
}

export interface CreatedWorkspace {
  id: string;
  name: string;
  slug: string;
  region: string;
  role: 'owner';
  seats: number;
  members: number;
}

export type MemberSource = 'owner' | 'invitation' | 'scim';

export interface WorkspaceMember {
  user_id: string;
  email: string;
  role: Role;
  joined_at: string;
  source: MemberSource;
}

export interface PendingInvitation {
  /** `inv_…`: revoked with `DELETE …/members/{id}`. */
  id: string;
  email: string;
  role: 'admin' | 'member';
  expires_at: string;
}

export interface MemberList {
  items: WorkspaceMember[];
  invitations: PendingInvitation[];
}

export interface AuditRow {
  id: string;
  at: string;
  actor: { user_id: string | null; email: string | null; via: 'session' | 'scim' | 'system' | string };
  /** A dotted verb: `member.invited`, `policy.updated`, … */
  action: string;
  target: string;
  details: Record<string, unknown>;
}

export interface Region {
  id: string;
  api_url: string;
  current: boolean;
}

export type PolicyBody = { [rule in keyof WorkspacePolicy]?: WorkspacePolicy[rule] };

export interface BrandingBody {
  display_name: string;
  logo?: string | null;
  accent?: string | null;
}

/** One part of an export: the file's bytes, the name the server gave it, and the next part's path. */
export interface ExportPart {
  blob: Blob;
  fileName: string | null;
  next: string | null;
}

const workspacePath = (id: string) => `/v1/workspaces/${encodeURIComponent(id)}`;

export const workspacesApi = {
  list: (token: string) => call<{ items: WorkspaceSummary[] }>('GET', '/v1/workspaces', { token }),
  create: (token: string, body: { name: string; slug?: string; region?: string }) => call<CreatedWorkspace>('POST', '/v1/workspaces', { json: body, token }),
  regions: () => call<{ current: { id: string; api_url: string }; regions: Region[] }>('GET', '/v1/regions'),
  members: (token: string, id: string) => call<MemberList>('GET', `${workspacePath(id)}/members`, { token }),
  invite: (token: string, id: string, body: { email: string; role: 'admin' | 'member' }) =>
    call<PendingInvitation>('POST', `${workspacePath(id)}/invitations`, { json: body, token }),
  /** The token in the body, never in a URL or header. */
  accept: (token: string, invitation: string) => call<{ workspace_id: string; role: Role }>('POST', '/v1/workspaces/invitations/accept', { json: { token: invitation }, token }),
  /** A member (`usr_…`: removing, or leaving when it is oneself) or a pending invitation (`inv_…`: revoking). */
  remove: (token: string, id: string, memberOrInvitation: string) =>
    call<{ user_id: string; removed: true }>('DELETE', `${workspacePath(id)}/members/${encodeURIComponent(memberOrInvitation)}`, { token }),
  changeRole: (token: string, id: string, userId: string, role: Role) =>
    call<{ user_id: string; role: Role }>('PATCH', `${workspacePath(id)}/members/${encodeURIComponent(userId)}`, { json: { role }, token }),
  transfer: (token: string, id: string, userId: string) => call<{ owner: string }>('POST', `${workspacePath(id)}/transfer`, { json: { user_id: userId }, token }),
  setPolicy: (token: string, id: string, body: PolicyBody) => call<WorkspacePolicy>('PUT', `${workspacePath(id)}/policy`, { json: body, token }),
  setBranding: (token: string, id: string, body: BrandingBody) => call<WorkspaceBranding>('PUT', `${workspacePath(id)}/branding`, { json: body, token }),
  audit: (token: string, id: string, limit: number, cursor: string | null) =>
    call<Page<AuditRow>>('GET', `${workspacePath(id)}/audit?${new URLSearchParams({ limit: String(limit), ...(cursor ? { cursor } : {}) }).toString()}`, { token }),
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
    throw new ApiError(0, { status: 0, code: 'network', detail: 'The server could not be reached. Check your connection and try again.' }, null);
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
  return { blob: await response.blob(), fileName: attachmentName(response.headers.get('content-disposition')), next: nextPart(response.headers.get('link'), workspaceId) };
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
    if (target.origin === location.origin && target.pathname === `${workspacePath(workspaceId)}/audit/export`) return `${target.pathname}${target.search}`;
  }
  return null;
}
