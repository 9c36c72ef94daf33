import { SESClient } from '@aws-sdk/client-ses';
import { txtResolver } from '../shared/adapters/dnsTxt.ts';
import { kmsSealer } from '../shared/adapters/kms.ts';
import { oidcDiscovery } from '../shared/adapters/oidcDiscovery.ts';
import { SesMailer } from '../shared/adapters/ses.ts';
import { workspacesRequests } from '../shared/api/workspaces.ts';
import { toIso } from '../shared/clock.ts';
import { exportAudit, readAudit } from '../shared/domain/workspaces/audit.ts';
import { auditItem } from '../shared/domain/workspaces/auditExport.ts';
import type { Member, Workspace, WorkspaceBranding } from '../shared/domain/workspaces/model.ts';
import { acceptInvitation, changeRole, invite, listMembers, removeMember, transferWorkspace } from '../shared/domain/workspaces/members.ts';
import { policyReply } from '../shared/domain/workspaces/policy.ts';
import type { WorkspacePorts } from '../shared/domain/workspaces/ports.ts';
import { previewInvitation, type InvitationPreviewPorts } from '../shared/domain/workspaces/invitationPreview.ts';
import { setBranding, setPolicy } from '../shared/domain/workspaces/settings.ts';
import { createWorkspace, listWorkspaces } from '../shared/domain/workspaces/workspaces.ts';
import { apiDeps, type ApiDeps } from './shared/apiDeps.ts';
import { requireSession } from '../shared/http/auth.ts';
import { groupHandler, type Operations } from '../shared/http/group.ts';
import { requestLanguage } from '../shared/http/language.ts';
import { lambdaEntry, type Adapters, type Platform } from '../shared/platform.ts';
import { workspacesRoutes } from '../shared/routes.ts';
import type { DomainPorts } from '../shared/domain/domains/model.ts';
import { DynamoDomainStore } from '../shared/store/workspaceDomains.ts';
import { DynamoScimGroupStore } from '../shared/store/scimGroups.ts';
import { DynamoScimUserStore } from '../shared/store/workspaceScim.ts';
import { DynamoUserStore } from '../shared/store/users.ts';
import { DynamoSsoStore } from '../shared/store/workspaceSso.ts';
import type { SsoPorts } from '../shared/domain/sso/directory.ts';
import { domainOperations } from './workspaces/domains.ts';
import { brandingInput, newInvitation, newWorkspace, policyInput } from './workspaces/inputs.ts';
import { ssoOperations } from './workspaces/sso.ts';
import { DynamoMembershipChanges } from '../shared/store/workspaceMembershipChanges.ts';
import { DynamoWorkspaceMembership } from '../shared/store/workspaceMembership.ts';
import { DynamoWorkspaceStore } from '../shared/store/workspaces.ts';

const brandingReply = (branding: WorkspaceBranding) => ({
  display_name: branding.displayName,
  logo: branding.logo,
  accent: branding.accent,
});

const memberItem = (member: Member) => ({
  user_id: member.userId,
  email: member.email,
  role: member.role,
  joined_at: toIso(member.joinedAt),
  source: member.source,
});

const created = (workspace: Workspace, seats: number, members: number) => ({
  id: workspace.id,
  name: workspace.name,
  slug: workspace.slug,
  region: workspace.region,
  role: 'owner' as const,
  seats,
  members,
});

/** The workspaces group (interface §4.7): workspaces, members and invitations, policy, branding, the audit trail, domains, the SSO directory. */
export const operations: Operations<'workspaces', WorkspacesDeps> = {
  ...domainOperations,
  ...ssoOperations,
  async listWorkspaces(request, deps) {
    const memberships = await listWorkspaces(requireSession(request.principal).userId, deps);
    return {
      status: 200,
      body: {
        items: memberships.map(({ workspace, roster, role, branding }) => ({
          id: workspace.id,
          name: workspace.name,
          slug: workspace.slug,
          role,
          plan: workspace.plan,
          seats: roster.seats,
          members: roster.members,
          policy: policyReply(workspace.policy),
          branding: branding && brandingReply(branding),
        })),
      },
    };
  },

  async createWorkspace(request, deps) {
    const { workspace, roster } = await createWorkspace(newWorkspace(request.body), requireSession(request.principal).userId, deps);
    return { status: 201, body: created(workspace, roster.seats, roster.members) };
  },

  async inviteMember(request, deps) {
    const invitation = await invite(
      request.params.id ?? '',
      requireSession(request.principal).userId,
      newInvitation(request.body),
      deps,
      requestLanguage(request),
    );
    return {
      status: 201,
      body: { id: invitation.id, email: invitation.email, role: invitation.role, expires_at: toIso(invitation.expiresAt) },
    };
  },

  async acceptInvitation(request, deps) {
    const joined = await acceptInvitation(request.body.token, requireSession(request.principal).userId, deps);
    return { status: 200, body: { workspace_id: joined.workspaceId, role: joined.role } };
  },

  async previewInvitation(request, deps) {
    const preview = await previewInvitation(request.body.token, deps);
    return {
      status: 200,
      body: {
        workspace: { name: preview.workspace.name, branding: preview.workspace.branding && brandingReply(preview.workspace.branding) },
        inviter: preview.inviter,
        email: preview.email,
        role: preview.role,
        expires_at: toIso(preview.expiresAt),
      },
    };
  },

  async listMembers(request, deps) {
    const roll = await listMembers(request.params.id ?? '', requireSession(request.principal).userId, deps);
    return {
      status: 200,
      body: {
        items: roll.members.map(memberItem),
        invitations: roll.invitations.map((invitation) => ({
          id: invitation.id,
          email: invitation.email,
          role: invitation.role,
          expires_at: toIso(invitation.expiresAt),
        })),
      },
    };
  },

  async removeMember(request, deps) {
    const target = request.params.userId ?? '';
    await removeMember(request.params.id ?? '', requireSession(request.principal).userId, target, deps, requestLanguage(request));
    return { status: 200, body: { user_id: target, removed: true } };
  },

  async changeRole(request, deps) {
    const member = await changeRole(
      request.params.id ?? '',
      requireSession(request.principal).userId,
      request.params.userId ?? '',
      request.body.role,
      deps,
    );
    return { status: 200, body: { user_id: member.userId, role: member.role } };
  },

  async transferWorkspace(request, deps) {
    await transferWorkspace(
      request.params.id ?? '',
      requireSession(request.principal).userId,
      request.body.user_id,
      deps,
      requestLanguage(request),
    );
    return { status: 200, body: { owner: request.body.user_id } };
  },

  async setPolicy(request, deps) {
    const policy = await setPolicy(request.params.id ?? '', requireSession(request.principal).userId, policyInput(request.body), deps);
    return { status: 200, body: policyReply(policy) };
  },

  async setBranding(request, deps) {
    const branding = await setBranding(
      request.params.id ?? '',
      requireSession(request.principal).userId,
      brandingInput(request.body),
      deps,
    );
    return { status: 200, body: brandingReply(branding) };
  },

  async readAudit(request, deps) {
    const { limit, cursor } = request.query;
    const page = await readAudit(request.params.id ?? '', requireSession(request.principal).userId, limit, cursor ?? null, deps);
    return { status: 200, body: { items: page.items.map(auditItem), next_cursor: page.nextCursor } };
  },

  async exportAudit(request, deps) {
    const id = request.params.id ?? '';
    const { format, cursor } = request.query;
    const part = await exportAudit(id, requireSession(request.principal).userId, format, cursor ?? null, deps);
    const next: Record<string, string> =
      part.nextCursor === null
        ? {}
        : {
            link: `</v1/workspaces/${encodeURIComponent(id)}/audit/export?${new URLSearchParams({ format, cursor: part.nextCursor })}>; rel="next"`,
          };
    return {
      status: 200,
      text: part.body,
      headers: {
        'content-type': part.contentType,
        'content-disposition': `attachment; filename="${part.fileName}"`,
        'cache-control': 'no-store',
        ...next,
      },
    };
  },
};

/**
 * The workspaces group's wiring: its stores (workspaces, memberships, domains, SSO), the users
 * (addresses), the mailer, DNS (domains' TXT records), identity providers' discovery documents and
 * the sealer of SSO client secrets (KMS context `sso_workspace`, Encrypt only: it never opens one).
 */
export type WorkspacesDeps = ApiDeps &
  WorkspacePorts &
  DomainPorts &
  SsoPorts &
  Pick<InvitationPreviewPorts, 'invitations' | 'workspaceMembership'>;

export function compose(platform: Platform, adapters: Pick<Adapters, 'mailer' | 'dns' | 'ssoSealer' | 'issuerDiscovery'>): WorkspacesDeps {
  const { db, config } = platform;
  const api = apiDeps(platform);
  const memberships = new DynamoMembershipChanges(db, config.TABLE_NAME);
  return {
    ...api,
    domains: new DynamoDomainStore(db, config.TABLE_NAME),
    sso: new DynamoSsoStore(db, config.TABLE_NAME),
    ssoSealer: adapters.ssoSealer,
    issuerDiscovery: adapters.issuerDiscovery,
    dns: adapters.dns,
    // A claim verified here serves at once on this instance (others within the cache's bound); a
    // deleted one stops at once everywhere, since verified claims are read on every request.
    hostsChanged: (hostname) => api.hosts.forget(hostname),
    workspaces: new DynamoWorkspaceStore(db, config.TABLE_NAME),
    memberships,
    // The invitation page's preview reads the invitation (its inviter) and what the reveal page shows of the workspace.
    invitations: memberships,
    workspaceMembership: new DynamoWorkspaceMembership(db, config.TABLE_NAME),
    users: new DynamoUserStore(db, config.TABLE_NAME),
    mailer: adapters.mailer,
    scimAdminRoles: {
      scimGroups: new DynamoScimGroupStore(db, config.TABLE_NAME, platform.clock),
      scimUsers: new DynamoScimUserStore(db, config.TABLE_NAME),
    },
  };
}

export const createHandler = (deps: WorkspacesDeps) => groupHandler(workspacesRoutes, operations, workspacesRequests, deps);
export const handler = lambdaEntry((platform) =>
  createHandler(
    compose(platform, {
      mailer: new SesMailer(new SESClient({ region: platform.config.REGION }), platform.config.MAIL_FROM),
      dns: txtResolver(platform.config.DNS_SERVERS),
      ssoSealer: kmsSealer(platform.config, 'sso_workspace'),
      issuerDiscovery: oidcDiscovery({ local: platform.config.HUSHLINK_MODE === 'local' }),
    }),
  ),
);
