import * as z from 'zod/mini';
import { domainsReplies } from './domains.ts';
import { page, timestamp } from './output.ts';
import { memberRoles } from './workspaces.ts';

const role = z.enum(memberRoles);
const plan = z.enum(['free', 'pro', 'team', 'enterprise']);

/** A policy as set: a rule that is null does not apply. */
const policy = z.strictObject({
  max_expires_in: z.nullable(z.int()),
  max_views: z.nullable(z.int()),
  require_passphrase: z.nullable(z.boolean()),
  allowed_recipient_domains: z.nullable(z.array(z.string())),
  allow_files: z.nullable(z.boolean()),
  max_file_bytes: z.nullable(z.int()),
  allow_requests: z.nullable(z.boolean()),
  /** The SCIM Group whose members are admins (issue 30); null: none. Always present in answers. */
  scim_admin_group: z.optional(z.nullable(z.string())),
});

const branding = z.strictObject({ display_name: z.string(), logo: z.nullable(z.string()), accent: z.nullable(z.string()) });

const auditRow = z.strictObject({
  id: z.string(),
  at: timestamp,
  actor: z.strictObject({ user_id: z.nullable(z.string()), email: z.nullable(z.string()), via: z.enum(['session', 'scim', 'system']) }),
  /** A dotted verb: `member.invited`, `member.role_changed`, `policy.updated`, … */
  action: z.string(),
  target: z.string(),
  details: z.record(z.string(), z.unknown()),
});

/** What the workspaces group's routes answer: types and the document only, never parsed at run time. */
export const workspacesReplies = {
  WorkspaceCreated: z.strictObject({
    id: z.string(),
    name: z.string(),
    slug: z.string(),
    region: z.string(),
    role: z.literal('owner'),
    seats: z.int(),
    members: z.int(),
  }),
  WorkspaceList: z.strictObject({
    items: z.array(
      z.strictObject({
        id: z.string(),
        name: z.string(),
        slug: z.string(),
        role,
        plan,
        seats: z.int(),
        members: z.int(),
        /** What a secret, file or request link sent inside must satisfy: what compose shows before sending. */
        policy,
        /** What the reveal page shows of a secret sent inside (display only); null when none is set. */
        branding: z.nullable(branding),
      }),
    ),
  }),
  InvitationCreated: z.strictObject({ id: z.string(), email: z.string(), role: z.enum(['admin', 'member']), expires_at: timestamp }),
  InvitationAccepted: z.strictObject({ workspace_id: z.string(), role }),
  /** What the invitation page shows before anyone signs in: what the invitation's email said already. */
  InvitationPreview: z.strictObject({
    /** `branding` only where the reveal page would show it (the workspace's plan has branding); null otherwise. */
    workspace: z.strictObject({ name: z.string(), branding: z.nullable(branding) }),
    /** Who sent it; null when their account is gone. */
    inviter: z.nullable(z.strictObject({ email: z.string() })),
    /** The address it was sent to: the one to sign in with. */
    email: z.string(),
    role: z.enum(['admin', 'member']),
    expires_at: timestamp,
  }),
  MemberList: z.strictObject({
    items: z.array(
      z.strictObject({
        user_id: z.string(),
        email: z.string(),
        role,
        joined_at: timestamp,
        source: z.enum(['owner', 'invitation', 'scim', 'sso']),
      }),
    ),
    invitations: z.array(z.strictObject({ id: z.string(), email: z.string(), role: z.enum(['admin', 'member']), expires_at: timestamp })),
  }),
  MemberRemoved: z.strictObject({ user_id: z.string(), removed: z.literal(true) }),
  RoleChanged: z.strictObject({ user_id: z.string(), role }),
  WorkspaceTransferred: z.strictObject({ owner: z.string() }),
  Policy: policy,
  Branding: branding,
  AuditPage: page(auditRow),
  /** `format=json`: the whole trail (or one part of it), newest first. */
  AuditExport: z.strictObject({ items: z.array(auditRow) }),
  ...domainsReplies,
};
