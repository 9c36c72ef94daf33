import type { SsoSettings } from '../../shared/domain/sso/directory.ts';
import type { BrandingInput } from '../../shared/domain/workspaces/branding.ts';
import type { NewInvitation } from '../../shared/domain/workspaces/members.ts';
import type { PolicyInput } from '../../shared/domain/workspaces/policy.ts';
import type { NewWorkspace } from '../../shared/domain/workspaces/workspaces.ts';
import type { RequestOf } from '../../shared/http/group.ts';

/**
 * The workspaces group's bodies, as parsed, in the use cases' own words. A field the domain refuses
 * is named as the body spells it (shared/domain keeps those names beside its inputs), so problems
 * read as they did when the domain took the bodies themselves.
 */
type BodyOf<Op> = RequestOf<Op>['body'];

export const newWorkspace = (body: BodyOf<'createWorkspace'>): NewWorkspace => ({ name: body.name, slug: body.slug, region: body.region });

export const newInvitation = (body: BodyOf<'inviteMember'>): NewInvitation => ({ email: body.email, role: body.role });

export const policyInput = (body: BodyOf<'setPolicy'>): PolicyInput => ({
  maxExpiresIn: body.max_expires_in,
  maxViews: body.max_views,
  requirePassphrase: body.require_passphrase,
  allowedRecipientDomains: body.allowed_recipient_domains,
  allowFiles: body.allow_files,
  maxFileBytes: body.max_file_bytes,
  allowRequests: body.allow_requests,
  scimAdminGroup: body.scim_admin_group,
});

export const brandingInput = (body: BodyOf<'setBranding'>): BrandingInput => ({
  displayName: body.display_name,
  logo: body.logo,
  accent: body.accent,
});

export const ssoSettings = (body: BodyOf<'setSso'>): SsoSettings => ({
  issuer: body.issuer,
  emailDomain: body.email_domain,
  rotateDirectoryKey: body.rotate_directory_key,
  clientId: body.client_id,
  clientSecret: body.client_secret,
  enforce: body.enforce,
  ssoJit: body.sso_jit,
});
