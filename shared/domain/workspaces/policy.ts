/**
 * A workspace's policy (interface §4.7): what every secret, file and request link created with
 * the workspace's id must satisfy. Pure: the routes read the policy and the request, and call
 * these; nothing here stores or fetches anything. Why the rules mean what they mean is in
 * docs/adr/0041-the-workspace-policy-one-pure-module.md (with 0042 and 0043).
 */
import { secretLimits, workspaceLimits } from '../../limits.ts';
import { Forbidden, Invalid, type FieldIssue } from '../refusals.ts';
import type { WorkspacePolicy } from './model.ts';

/** The rules, by the names clients give them (the policy's fields, and a violation's `rules`). */
export const policyRules = [
  'max_expires_in',
  'max_views',
  'require_passphrase',
  'allowed_recipient_domains',
  'allow_files',
  'max_file_bytes',
  'allow_requests',
] as const;
export type PolicyRule = (typeof policyRules)[number];

/**
 * The rules a workspace's policy is set to, before they are checked: a rule absent or null does
 * not apply. A refused rule is named as clients name it (`policyRules`).
 */
export type PolicyInput = { [Rule in keyof WorkspacePolicy]?: WorkspacePolicy[Rule] | null };

/** One rule broken by one field of what is created (several recipients may each break the domain rule). */
export interface PolicyViolation extends FieldIssue {
  rule: PolicyRule;
}

/** A recipient as a route's body names it (`recipientRequest` in shared/api/secrets.ts). */
export interface PolicyRecipient {
  email?: string | undefined;
  restricted?: boolean | undefined;
}

/**
 * What is about to be created, as the policy sees it. `recipients` are the body's, in its order,
 * so a violation can name `recipients.<i>`. A file's passphrase flag is in its envelope's
 * header, which the server reads only when the upload completes: the opening declares it
 * (`passphrase`), the rules are checked on that, and completion refuses a header that
 * says otherwise (shared/domain/files/complete.ts). `null`: not known, the rule not checked.
 */
export type PolicyCandidate =
  | { kind: 'text'; expiresIn: number; maxViews: number; passphrase: boolean; recipients: readonly PolicyRecipient[] }
  | {
      kind: 'file';
      expiresIn: number;
      maxViews: number;
      passphrase: boolean | null;
      recipients: readonly PolicyRecipient[];
      sizeBytes: number;
    }
  | { kind: 'request'; expiresIn: number };

/** The policy as the routes answer it: every rule, null where it does not apply. */
export interface PolicyReply {
  max_expires_in: number | null;
  max_views: number | null;
  require_passphrase: boolean | null;
  allowed_recipient_domains: string[] | null;
  allow_files: boolean | null;
  max_file_bytes: number | null;
  allow_requests: boolean | null;
  /** The SCIM Group whose members are admins (issue 30); null: none. */
  scim_admin_group?: string | null;
}

/** What the compose page holds a secret to before sending it in the workspace, with no rule left unresolved. */
export interface ComposeLimits {
  /** The policy's, or the service's longest when it sets none. */
  max_expires_in: number;
  max_views: number;
  require_passphrase: boolean;
  /** When a list: every recipient must be restricted, at one of these; null: any recipients, or none. */
  allowed_recipient_domains: string[] | null;
  allow_files: boolean;
  /** Null: the plan's largest file alone bounds it. */
  max_file_bytes: number | null;
  allow_requests: boolean;
}

const { expiresInSeconds, maxViews } = secretLimits;

type DomainResult = { domain: string } | { refused: string };

/** Characters a hostname never has but the URL parser would read as something else (a path, a port, userinfo, an escape). */
const notHostname = /[\s/\\?#@:%[\]*]/;
const asciiHostname = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?=[a-z0-9-]*[a-z])[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * A domain as policies and addresses are compared: trimmed, without a trailing dot, lower case
 * and in its ASCII (IDNA) form, by the WHATWG URL parser's host processing, as webhook hosts
 * are read (shared/webhooks/destination.ts). Recipient addresses pass the API's email check
 * only in ASCII, so `bücher.example` in a policy matches `ana@xn--bcher-kva.example`.
 */
export function normalizeDomain(raw: string): DomainResult {
  const trimmed = raw.trim();
  if (trimmed.startsWith('*')) return { refused: 'must be a domain without wildcards: subdomains are not included, list each one' };
  if (trimmed.startsWith('.')) return { refused: 'must be a domain without a leading dot: subdomains are not included, list each one' };
  if (trimmed === '' || notHostname.test(trimmed)) return { refused: 'must be a domain name such as example.com' };
  let host: string;
  try {
    host = new URL(`http://${trimmed}/`).hostname;
  } catch {
    return { refused: 'must be a domain name such as example.com' };
  }
  const domain = host.endsWith('.') ? host.slice(0, -1) : host;
  // At least two labels, letters, digits and inner dashes only, a top-level label that is not all
  // digits: no IP address, no single-label name, nothing an email domain cannot be.
  return asciiHostname.test(domain) ? { domain } : { refused: 'must be a domain name such as example.com' };
}

/** The domain of an address, compared as policies' are; null when it has none a policy could name. */
export function recipientDomain(email: string): string | null {
  const at = email.lastIndexOf('@');
  if (at < 0) return null;
  const result = normalizeDomain(email.slice(at + 1));
  return 'domain' in result ? result.domain : null;
}

function wholeNumber(
  errors: FieldIssue[],
  field: PolicyRule,
  value: number | null | undefined,
  min: number,
  max: number,
): number | undefined {
  if (value === null || value === undefined) return undefined;
  if (Number.isSafeInteger(value) && value >= min && value <= max) return value;
  errors.push({
    field,
    message: max === Number.MAX_SAFE_INTEGER ? `must be a whole number, at least ${min}` : `must be a whole number from ${min} to ${max}`,
  });
  return undefined;
}

function domainList(errors: FieldIssue[], list: readonly string[] | null | undefined): string[] | undefined {
  if (list === null || list === undefined) return undefined;
  const field: PolicyRule = 'allowed_recipient_domains';
  // An empty list would refuse every secret and file; a policy that means "any domain" says null.
  if (list.length === 0) {
    errors.push({ field, message: 'must name at least one domain (null allows any)' });
    return undefined;
  }
  const domains = new Set<string>();
  list.forEach((raw, index) => {
    const result = normalizeDomain(raw);
    if ('domain' in result) domains.add(result.domain);
    else errors.push({ field: `${field}.${index}`, message: result.refused });
  });
  if (domains.size > workspaceLimits.allowedRecipientDomains)
    errors.push({ field, message: `must name at most ${workspaceLimits.allowedRecipientDomains} domains` });
  // Sorted: one spelling of a policy, whatever order it was typed in (audit rows compare them).
  return [...domains].sort();
}

/**
 * The policy the rules set: a rule that is absent or null does not apply. Every problem is
 * reported at once (invalid, one issue per field).
 */
export function parsePolicy(rules: PolicyInput): WorkspacePolicy {
  const errors: FieldIssue[] = [];
  const maxExpiresIn = wholeNumber(errors, 'max_expires_in', rules.maxExpiresIn, expiresInSeconds.min, expiresInSeconds.max);
  const maxViewsRule = wholeNumber(errors, 'max_views', rules.maxViews, maxViews.min, maxViews.max);
  const maxFileBytes = wholeNumber(errors, 'max_file_bytes', rules.maxFileBytes, 1, Number.MAX_SAFE_INTEGER);
  const allowedRecipientDomains = domainList(errors, rules.allowedRecipientDomains);
  if (errors.length > 0) throw new Invalid('The policy is not valid.', errors);
  const flag = (value: boolean | null | undefined) => (value === null ? undefined : value);
  const policy: WorkspacePolicy = {
    maxExpiresIn,
    maxViews: maxViewsRule,
    requirePassphrase: flag(rules.requirePassphrase),
    allowedRecipientDomains,
    allowFiles: flag(rules.allowFiles),
    maxFileBytes,
    allowRequests: flag(rules.allowRequests),
    scimAdminGroup: rules.scimAdminGroup ?? undefined,
  };
  // Absent rules are absent keys, so a stored policy has one shape for "no rule".
  for (const key of Object.keys(policy) as (keyof WorkspacePolicy)[]) if (policy[key] === undefined) delete policy[key];
  return policy;
}

/** The policy as the routes answer it; set again as it reads, it gives the same policy back. */
export const policyReply = (policy: WorkspacePolicy): PolicyReply => ({
  max_expires_in: policy.maxExpiresIn ?? null,
  max_views: policy.maxViews ?? null,
  require_passphrase: policy.requirePassphrase ?? null,
  allowed_recipient_domains: policy.allowedRecipientDomains ? [...policy.allowedRecipientDomains] : null,
  allow_files: policy.allowFiles ?? null,
  max_file_bytes: policy.maxFileBytes ?? null,
  allow_requests: policy.allowRequests ?? null,
  scim_admin_group: policy.scimAdminGroup ?? null,
});

/** The policy with every rule resolved, for the compose page to hold a secret to before it is sent. */
export const policyLimitsForCompose = (policy: WorkspacePolicy): ComposeLimits => ({
  max_expires_in: policy.maxExpiresIn ?? expiresInSeconds.max,
  max_views: policy.maxViews ?? maxViews.max,
  require_passphrase: policy.requirePassphrase ?? false,
  allowed_recipient_domains: policy.allowedRecipientDomains ? [...policy.allowedRecipientDomains] : null,
  allow_files: policy.allowFiles ?? true,
  max_file_bytes: policy.maxFileBytes ?? null,
  allow_requests: policy.allowRequests ?? true,
});

/**
 * With allowed domains, every recipient must be restricted (only the gate proves who opens a
 * link; an unrestricted one opens for whoever holds it, whatever address labels it), and at one
 * of the domains, exactly: a subdomain is another domain. A secret without recipients is one
 * bare link, so it is refused too.
 */
function recipientViolations(allowed: readonly string[], recipients: readonly PolicyRecipient[]): PolicyViolation[] {
  const rule: PolicyRule = 'allowed_recipient_domains';
  if (recipients.length === 0) {
    return [{ field: 'recipients', rule, message: 'this workspace sends only to restricted recipients at its allowed domains' }];
  }
  return recipients.flatMap((recipient, index): PolicyViolation[] => {
    const field = `recipients.${index}`;
    const domain = recipient.email === undefined ? null : recipientDomain(recipient.email);
    return [
      ...(recipient.restricted === true
        ? []
        : [{ field: `${field}.restricted`, rule, message: 'must be true: this workspace sends only to restricted recipients' }]),
      ...(domain !== null && allowed.includes(domain)
        ? []
        : [{ field: `${field}.email`, rule, message: 'must be an address at one of this workspace’s allowed domains' }]),
    ];
  });
}

/**
 * Every rule `candidate` breaks, each named by the request field that breaks it (as the client
 * spells it, so a refusal for the policy points where an invalid field would): empty when the
 * policy allows it. A rule the candidate's kind does not have (views of a request link) never applies.
 */
export function policyViolations(policy: WorkspacePolicy, candidate: PolicyCandidate): PolicyViolation[] {
  const violations: PolicyViolation[] = [];
  const broken = (rule: PolicyRule, field: string, message: string) => violations.push({ field, rule, message });
  if (candidate.kind === 'request' && policy.allowRequests === false)
    broken('allow_requests', 'workspace_id', 'request links are not allowed in this workspace');
  if (candidate.kind === 'file' && policy.allowFiles === false)
    broken('allow_files', 'workspace_id', 'files are not allowed in this workspace');
  // A request link's lifetime too: it is a door into the workspace for as long as it is open.
  if (policy.maxExpiresIn !== undefined && candidate.expiresIn > policy.maxExpiresIn) {
    broken('max_expires_in', 'expires_in', `at most ${policy.maxExpiresIn} seconds in this workspace`);
  }
  if (candidate.kind === 'request') return violations;
  if (policy.maxViews !== undefined && candidate.maxViews > policy.maxViews)
    broken('max_views', 'max_views', `at most ${policy.maxViews} views in this workspace`);
  if (candidate.kind === 'file' && policy.maxFileBytes !== undefined && candidate.sizeBytes > policy.maxFileBytes) {
    broken('max_file_bytes', 'size_bytes', `at most ${policy.maxFileBytes} bytes in this workspace`);
  }
  if (policy.requirePassphrase === true && candidate.passphrase === false) {
    // A text's envelope is in its body; a file's is declared at opening, its header checked at completion.
    broken(
      'require_passphrase',
      candidate.kind === 'text' ? 'envelope' : 'passphrase',
      'must be sealed with a passphrase in this workspace',
    );
  }
  if (policy.allowedRecipientDomains !== undefined)
    violations.push(...recipientViolations(policy.allowedRecipientDomains, candidate.recipients));
  return violations;
}

/**
 * Forbidden (`policy_violation`) when `candidate` breaks any rule: one field issue per field and
 * rule (a problem's entries are `{path, message}` only), and the fact `rules` names each issue's
 * rule, in the same order, for clients that switch on them.
 */
export function assertPolicy(policy: WorkspacePolicy, candidate: PolicyCandidate): void {
  const violations = policyViolations(policy, candidate);
  if (violations.length === 0) return;
  throw new Forbidden('This workspace’s policy does not allow this.', {
    code: 'policy_violation',
    fields: violations.map(({ field, message }) => ({ field, message })),
    facts: { rules: violations.map(({ rule }) => rule) },
  });
}
