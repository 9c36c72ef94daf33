import * as z from 'zod/mini';
import { nullableTimestamp, timestamp } from './output.ts';

/**
 * Custom domains and the SSO directory (issue 17, interface §4.7), part of the workspaces group's contract. A hostname
 * is only bounded here (DNS's 253 characters, an IDN's Unicode form a little longer); what a
 * hostname may be is the domain's to say (shared/domain/domains/hostname.ts), field by field.
 */
const workspaceId = z.string().check(z.minLength(1), z.maxLength(64));

/**
 * An OIDC issuer: an https URL without credentials, query or fragment (OpenID Connect Discovery §2
 * says so of the issuer). http parses too, for a local run's identity provider on this machine:
 * the route refuses it anywhere else (shared/domain/sso/issuer.ts).
 */
const issuer = z
  .url({ protocol: /^https?$/ })
  .check(
    z.maxLength(512),
    z.refine((value) => {
      // Checks run on after the URL check fails: an unparsable value is its failure, not this one's.
      if (!URL.canParse(value)) return true;
      const url = new URL(value);
      return url.username === '' && url.password === '' && url.search === '' && url.hash === '';
    }, 'must be the https URL of the identity provider, without credentials, query or fragment'),
  )
  .register(z.globalRegistry, {
    description:
      'The identity provider’s issuer, exactly as its discovery document names it (checked at save). https; http only to ' +
      'this machine in a local run (`npm start`).',
  });

/** RFC 6749 §A.1 and §A.2: printable ASCII; no space at either end (a paste's, never the provider's). */
const clientCredential = (max: number) => z.string().check(z.maxLength(max), z.regex(/^[\x21-\x7E](?:[\x20-\x7E]*[\x21-\x7E])?$/));

const ssoConflicts =
  '409 `reason`: `domain_unverified` (verify the email domain, or one above it, first), `domain_claimed` (another ' +
  'workspace’s directory speaks for it), `changed` (the settings kept changing meanwhile), `issuer_unreachable` (the ' +
  'issuer’s discovery document, `<issuer>/.well-known/openid-configuration`, could not be read within 3 s: `found` ' +
  'says what happened: `timeout`, `http_<status>`, `not_json`, `too_large`, `redirect` (to another origin), ' +
  '`forbidden_address`, `dns_failed`, `connection_refused`, `tls: …`), `issuer_mismatch` (the document names another ' +
  'issuer: `found` is the one it names, null for none).';

export const domainsRequests = {
  DomainClaimRequest: z.strictObject({ workspace_id: workspaceId, hostname: z.string().check(z.minLength(1), z.maxLength(300)) }),
  DomainListQuery: z.strictObject({ workspace_id: workspaceId }),
  SsoRequest: z
    .strictObject({
      issuer,
      /** Checked as a domain by the route (shared/domain/sso/directory.ts). */
      email_domain: z.string().check(z.minLength(1), z.maxLength(253)),
      /** A new directory key, and the old one stops at once. */
      rotate_directory_key: z.optional(z.boolean()),
      client_id: z.optional(
        clientCredential(255).register(z.globalRegistry, {
          description: 'The OIDC client registered at the identity provider. Left out: no client (and no secret).',
        }),
      ),
      client_secret: z.optional(
        clientCredential(1024).register(z.globalRegistry, {
          description:
            'The client’s secret: sealed (KMS) and never answered. Left out, the stored secret is kept when `client_id` is the ' +
            'stored one; a new `client_id` needs its secret (400).',
        }),
      ),
      enforce: z.optional(
        z.boolean().register(z.globalRegistry, {
          description:
            'true: the email domain’s addresses sign in through the identity provider only (a code answers 403 `sso_required`); ' +
            'needs `client_id`. Left out: false.',
        }),
      ),
      sso_jit: z.optional(
        z.boolean().register(z.globalRegistry, {
          description:
            'true: someone of the email domain signing in through the identity provider who is not a member joins the workspace ' +
            '(as a member, within its free seats, audited). Needs `client_id`. Left out: false: invitations and SCIM alone make members.',
        }),
      ),
    })
    .register(z.globalRegistry, {
      description: `A workspace’s single sign-on settings. PUT replaces them; only the client secret is kept by leaving it out. ${ssoConflicts}`,
    }),
  SsoDiscoverQuery: z.strictObject({ email: z.email().check(z.maxLength(254)) }),
};

const states = ['pending', 'verified'] as const;
/** The TXT record that proves a claim: published at `name`, its value exactly `value`. */
const verification = z.strictObject({ type: z.literal('TXT'), name: z.string(), value: z.string() });
/** Why the last check did not verify it (shared/domain/domains/model.ts); null once verified or before any check. */
const lastError = z.nullable(z.enum(['txt_not_found', 'txt_mismatch', 'dns_unavailable', 'verified_elsewhere']));

export const domainsReplies = {
  DomainClaimed: z.strictObject({ id: z.string(), hostname: z.string(), state: z.enum(states), verification, created_at: timestamp }),
  DomainList: z.strictObject({
    items: z.array(
      z.strictObject({
        id: z.string(),
        hostname: z.string(),
        state: z.enum(states),
        verification,
        verified_at: nullableTimestamp,
        last_checked_at: nullableTimestamp,
        last_error: lastError,
      }),
    ),
  }),
  DomainChecked: z.strictObject({ id: z.string(), state: z.enum(states), checked_at: timestamp, last_error: lastError }),
  DomainDeleted: z.strictObject({ id: z.string(), deleted: z.literal(true) }),
  SsoDirectory: z.strictObject({
    issuer: z.string(),
    email_domain: z.string(),
    /** The OIDC client, or null; its secret is never answered: only whether one is set. */
    client_id: z.nullable(z.string()),
    client_secret_set: z.boolean(),
    enforce: z.boolean(),
    sso_jit: z.boolean(),
    /** Where the directory provisions (SCIM 2.0), and its key: only in the answer that made it. */
    scim: z.strictObject({ base_url: z.string(), directory_key: z.optional(z.string()) }),
  }),
  SsoDiscovery: z.union([
    z.strictObject({ sso: z.literal(false) }),
    z.strictObject({
      sso: z.literal(true),
      workspace: z.strictObject({ id: z.string(), name: z.string() }),
      issuer: z.string(),
      /** The directory has an OIDC client: `/v1/auth/sso/start` signs the address in through the provider. */
      sign_in: z.boolean(),
      /** The address cannot sign in with an emailed code (403 `sso_required`). */
      enforced: z.boolean(),
    }),
  ]),
};
