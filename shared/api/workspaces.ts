import * as z from 'zod/mini';
import { secretLimits, workspaceLimits } from '../limits.ts';
import { domainsRequests } from './domains.ts';
import { pageQuery } from './input.ts';

const { name, slug, displayName, auditPageSize, allowedRecipientDomains } = workspaceLimits;

const email = z.email().check(z.maxLength(254));
const workspaceName = z.string().check(z.trim(), z.minLength(name.min, 'name must not be empty'), z.maxLength(name.max));
const workspaceSlug = z
  .string()
  .check(
    z.minLength(slug.min),
    z.maxLength(slug.max),
    z.regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'slug is lower-case letters and digits, with single dashes between them'),
  );

/** A role a person can be given; `owner` only by a transfer or by an owner. */
export const memberRoles = ['owner', 'admin', 'member'] as const;

const createWorkspaceRequest = z.strictObject({
  name: workspaceName,
  /** Made from the name when absent. */
  slug: z.optional(workspaceSlug),
  /** This deployment's region by default; another region's id is 421 with its `api_url`. */
  region: z.optional(z.string().check(z.minLength(1), z.maxLength(64))),
});

const invitationRequest = z.strictObject({
  email,
  role: z.enum(['admin', 'member']),
});

const acceptInvitationRequest = z.strictObject({
  /** The one-time token from the invitation's link (`/join#<token>`). */
  token: z.string().check(z.minLength(1), z.maxLength(256)),
});

const roleRequest = z.strictObject({ role: z.enum(memberRoles) });

const transferRequest = z.strictObject({ user_id: z.string().check(z.minLength(1), z.maxLength(64)) });

const policyRequest = z.strictObject({
  max_expires_in: z.optional(
    z.nullable(z.int().check(z.minimum(secretLimits.expiresInSeconds.min), z.maximum(secretLimits.expiresInSeconds.max))),
  ),
  max_views: z.optional(z.nullable(z.int().check(z.minimum(secretLimits.maxViews.min), z.maximum(secretLimits.maxViews.max)))),
  require_passphrase: z.optional(z.nullable(z.boolean())),
  allowed_recipient_domains: z.optional(
    z.nullable(z.array(z.string().check(z.minLength(1), z.maxLength(253))).check(z.maxLength(allowedRecipientDomains))),
  ),
  allow_files: z.optional(z.nullable(z.boolean())),
  max_file_bytes: z.optional(z.nullable(z.int().check(z.minimum(1), z.maximum(Number.MAX_SAFE_INTEGER)))),
  allow_requests: z.optional(z.nullable(z.boolean())),
  /** The SCIM Group whose members are admins (issue 30): owners alone change it; absent keeps it as it is, null clears it. */
  scim_admin_group: z.optional(z.nullable(z.string().check(z.minLength(1), z.maxLength(64)))),
});
export type PolicyRequest = z.output<typeof policyRequest>;

const brandingRequest = z.strictObject({
  display_name: z.string().check(z.minLength(displayName.min), z.maxLength(displayName.max)),
  /** A `data:` URL of a PNG, JPEG or WebP image; its bytes are decoded and checked. */
  logo: z.optional(z.nullable(z.string().check(z.maxLength(Math.ceil((workspaceLimits.logoBytes * 4) / 3) + 64)))),
  /** `#rrggbb`; refused when it gives too little contrast with the page's text. */
  accent: z.optional(z.nullable(z.string().check(z.regex(/^#[0-9a-fA-F]{6}$/, 'accent is #rrggbb')))),
});
export type BrandingRequest = z.output<typeof brandingRequest>;

const exportQuery = z.strictObject({
  format: z._default(z.enum(['csv', 'json']), 'csv'),
  /** Where the previous part of a large export stopped (its `link: rel="next"`). */
  cursor: z.optional(z.string().check(z.maxLength(2048))),
});

/**
 * What the workspaces group's routes take (interface §4.7), by the names the route table uses.
 * Its answers are in workspacesReplies.ts.
 */
export const workspacesRequests = {
  CreateWorkspaceRequest: createWorkspaceRequest,
  InvitationRequest: invitationRequest,
  AcceptInvitationRequest: acceptInvitationRequest,
  /** The same body as accepting: the token is a bearer secret, so it travels in a body, never in a URL. */
  InvitationPreviewRequest: acceptInvitationRequest,
  RoleRequest: roleRequest,
  TransferRequest: transferRequest,
  PolicyRequest: policyRequest,
  BrandingRequest: brandingRequest,
  AuditQuery: pageQuery(auditPageSize),
  AuditExportQuery: exportQuery,
  ...domainsRequests,
};
