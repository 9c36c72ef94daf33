import type { SchemaName } from './api/index.ts';
import { curlLimits } from './limits.ts';

/**
 * THE route table. `lib/` turns every row into an API Gateway route integrated with its
 * group's Lambda; `local/` serves the same rows; the OpenAPI document (`GET /v1/openapi.json`)
 * is made from them. A route exists here and nowhere else.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One Lambda per group; the entry is `functions/<group>.ts`. */
export const groups = [
  'secrets',
  'gate',
  'files',
  'requests',
  'account',
  'webhooks',
  'workspaces',
  'billing',
  'billingWebhook',
  'scim',
  'chat',
  'openapi',
] as const;
export type Group = (typeof groups)[number];

/**
 * The groups whose functions check the host a request arrived on (functions/shared/apiDeps.ts): on a
 * workspace's hostname that is not verified, any of their routes answers 404 `unknown_host`,
 * whether or not its row lists 404 (the document says so). The payment provider's webhook and
 * the OpenAPI document are reached on this deployment's own host only.
 */
export const hostCheckedGroups: readonly Group[] = groups.filter((group) => group !== 'billingWebhook' && group !== 'openapi');

/**
 * Who may call a route.
 * - `public`: anyone; no credential is read.
 * - `optional`: anyone; a session, or an API key holding `scope`, makes the caller known (and
 *   a credential that is present must be valid: 403 otherwise, as these routes list no 401).
 * - `user`: a session, or an API key holding `scope` (any key when `scope` is null).
 * - `session`: a session only; an API key gets 403 (no key administers its account).
 * - `key`: an API key only (any scope when `scope` is null); anything else gets 401, as the
 *   interface says of the webhook test: it "requires an API key in the authorization header".
 * - `directory`: a workspace's directory key (`authorization: Bearer hlscim_…`, issue 17), for its
 *   SCIM client: the routes act on that workspace (interface §5.6). Nothing else is accepted.
 * - `lenient`: anyone, never refused: a valid session, or an API key holding `scope`, makes the
 *   caller known (the owner sees more); a missing, invalid or under-scoped credential leaves the
 *   caller anonymous. For public reads, which must not fail on a stale token.
 */
export type Credential = 'public' | 'optional' | 'lenient' | 'user' | 'session' | 'key' | 'directory';

/** API key scopes (interface §5.3). A session may do everything its user may. */
export const scopes = ['secrets:write', 'secrets:read', 'receipts:read'] as const;
export type Scope = (typeof scopes)[number];

/** Rate classes name a row of `limits.ts`; `null` for routes the interface lists without 429. */
export type RateClass =
  | 'secret_create'
  | 'secret_claim'
  | 'otp_start'
  | 'otp_verify'
  | 'otp_link'
  | 'adopt'
  | 'report'
  | 'feedback'
  | 'cli_install'
  | 'gate_start'
  | 'gate_verify'
  | 'curl'
  | 'file_upload'
  | 'request_response'
  | 'billing_checkout'
  | 'enterprise_inquiry'
  | 'invitation_preview'
  | 'billing_prices';

/** Error statuses a route may answer (problem+json); success statuses are the `reply`'s. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 410 | 413 | 421 | 423 | 425 | 429 | 503;

export interface Route {
  readonly method: HttpMethod;
  readonly path: string;
  readonly group: Group;
  /** Name of the operation the group's function implements for this route. */
  readonly operation: string;
  readonly credential: Credential;
  readonly scope: Scope | null;
  readonly rate: RateClass | null;
  /**
   * Named schemas (`shared/api/<group>.ts`) the JSON body and the query string are parsed with
   * before the operation runs; null when the route takes none.
   */
  readonly body: SchemaName | null;
  readonly query: SchemaName | null;
  /** The success answer: its status and the named schema of its JSON body (null: no body; a 302's `location` says where to go). */
  readonly reply: { readonly status: 200 | 201 | 202 | 204 | 302; readonly body: SchemaName | null };
  /** A second success, for work the route accepts and finishes later (202), with its own body. */
  readonly accepted?: { readonly status: 202; readonly body: SchemaName };
  /**
   * Every error status the route answers: the interface's list, plus what its input (400) and
   * credential (401/403) add where the interface leaves them out. The contract test fails on a
   * status not listed here, and on a listed one no suite answered.
   */
  readonly errors: readonly ErrorStatus[];
  /** The largest body the route takes, below the gateway's own limit; 413 beyond (curl mode). */
  readonly maxBodyBytes?: number;
  /** Answers text/plain too (the body's JSON form to clients asking for JSON). */
  readonly textReply?: true;
  /**
   * Answers a file (`content-disposition: attachment`): in this media type, or as the reply's
   * JSON when asked for (`format=json`).
   */
  readonly download?: 'text/csv';
  /** Request headers the operation reads besides `authorization`, for the document. */
  readonly headers?: readonly { readonly name: string; readonly description: string }[];
  /**
   * The web client's refresh-token cookie (ADR 0178, shared/http/refreshCookie.ts): read from the
   * request, and/or set (or cleared) by the answer, for the document.
   */
  readonly sessionCookie?: { readonly reads?: true; readonly sets?: true };
  /** Routes the interface does not list (DESIGN.md §7). */
  readonly beyondInterface?: true;
  /**
   * SCIM's own shapes (RFC 7644): bodies in application/scim+json, errors as SCIM error messages
   * (with `scimType`) instead of problem+json.
   */
  readonly media?: 'scim';
  /** Answers a small HTML page (a browser lands here). */
  readonly page?: true;
  /**
   * A browser navigates here (a provider's redirect, a link): an error answers a short HTML page
   * saying what happened and what to do to a request that accepts text/html, problem+json to any
   * other (ADR 0173); `path` is the web page its link goes back to.
   */
  readonly browser?: { readonly path: string; readonly label: string };
}

const none = null;

/** Read by the routes that mail someone: the mail's language (issue 32). */
const acceptLanguage = {
  name: 'accept-language',
  description:
    'The language of the mail this request sends (the first of the ten Hushlink speaks), for the mails its reader asked for; for others, when the recipient’s account has saved none. English otherwise.',
} as const;

// The table, by group: each group's function imports its own rows only (a bundle carries no
// other group's), and `routes` is every row, for lib/, local/ and the OpenAPI document.

/** Interface §4.1: secrets. */
export const secretsRoutes = [
  {
    method: 'POST',
    path: '/v1/secrets',
    group: 'secrets',
    operation: 'createSecret',
    credential: 'optional',
    scope: 'secrets:write',
    rate: 'secret_create',
    body: 'CreateSecretRequest',
    query: none,
    reply: { status: 201, body: 'SecretCreated' },
    errors: [400, 403, 429],
  },
  {
    method: 'GET',
    path: '/v1/secrets',
    group: 'secrets',
    operation: 'listSecrets',
    credential: 'user',
    scope: 'secrets:read',
    rate: null,
    body: none,
    query: 'SecretListQuery',
    reply: { status: 200, body: 'SecretList' },
    errors: [400, 401, 403],
  },
  {
    method: 'GET',
    path: '/v1/secrets/{id}',
    group: 'secrets',
    operation: 'readSecret',
    credential: 'lenient',
    scope: 'secrets:read',
    rate: null,
    body: none,
    query: 'SecretReadQuery',
    reply: { status: 200, body: 'SecretMetadata' },
    errors: [400, 404],
  },
  {
    method: 'DELETE',
    path: '/v1/secrets/{id}',
    group: 'secrets',
    operation: 'revokeSecret',
    credential: 'optional',
    scope: 'secrets:write',
    rate: null,
    body: none,
    query: none,
    reply: { status: 204, body: none },
    errors: [403, 404],
    headers: [{ name: 'x-delete-token', description: 'The delete token the secret was created with (or send its owner’s credential).' }],
  },
  {
    method: 'POST',
    path: '/v1/secrets/{id}/claim',
    group: 'secrets',
    operation: 'claimSecret',
    credential: 'public',
    scope: null,
    rate: 'secret_claim',
    body: 'ClaimRequest',
    query: none,
    reply: { status: 200, body: 'ClaimedSecret' },
    errors: [401, 403, 404, 410, 423, 425, 429],
  },
  {
    method: 'GET',
    path: '/v1/secrets/{id}/receipts',
    group: 'secrets',
    operation: 'listReceipts',
    credential: 'user',
    scope: 'receipts:read',
    rate: null,
    body: none,
    query: 'ReceiptListQuery',
    reply: { status: 200, body: 'ReceiptList' },
    errors: [400, 401, 403, 404],
  },
  {
    method: 'DELETE',
    path: '/v1/secrets/{id}/recipients/{recipientId}',
    group: 'secrets',
    operation: 'revokeRecipient',
    credential: 'optional',
    scope: 'secrets:write',
    rate: null,
    body: none,
    query: none,
    reply: { status: 200, body: 'RecipientRevoked' },
    errors: [401, 404],
    headers: [{ name: 'x-delete-token', description: 'The delete token the secret was created with (or send its owner’s credential).' }],
  },
  {
    method: 'POST',
    path: '/v1/reports',
    group: 'secrets',
    operation: 'reportSecret',
    credential: 'public',
    scope: null,
    rate: 'report',
    body: 'ReportRequest',
    query: none,
    reply: { status: 202, body: 'Accepted' },
    errors: [400, 429],
  },
  {
    method: 'POST',
    path: '/v1/curl',
    group: 'secrets',
    operation: 'createCurlSecret',
    credential: 'public',
    scope: null,
    rate: 'curl',
    body: none,
    query: 'CurlQuery',
    reply: { status: 200, body: 'CurlSecret' },
    errors: [413, 429],
    maxBodyBytes: curlLimits.maxBodyBytes,
    textReply: true,
    headers: [{ name: 'accept', description: 'application/json for the JSON answer; anything else gets the link as text/plain.' }],
  },
  {
    method: 'POST',
    path: '/v1/feedback/reveal',
    group: 'secrets',
    operation: 'recordRevealFeedback',
    credential: 'public',
    scope: null,
    rate: 'feedback',
    body: 'RevealFeedbackRequest',
    query: none,
    reply: { status: 202, body: 'Accepted' },
    errors: [400, 429],
  },
] as const satisfies readonly Route[];

/**
 * Interface §4.1, restricted recipients: the emailed code and the gate session. A group of its
 * own, so only its function carries the mailer the codes go out through.
 */
export const gateRoutes = [
  {
    method: 'POST',
    path: '/v1/secrets/{id}/gate/start',
    group: 'gate',
    operation: 'startGate',
    credential: 'public',
    scope: null,
    rate: 'gate_start',
    body: 'GateStartRequest',
    query: none,
    reply: { status: 200, body: 'GateCodeSent' },
    errors: [400, 404, 429],
    headers: [acceptLanguage],
  },
  {
    method: 'POST',
    path: '/v1/secrets/{id}/gate/verify',
    group: 'gate',
    operation: 'verifyGate',
    credential: 'public',
    scope: null,
    rate: 'gate_verify',
    body: 'GateVerifyRequest',
    query: none,
    reply: { status: 200, body: 'GateSession' },
    errors: [400, 401, 404, 429],
  },
] as const satisfies readonly Route[];

/**
 * Interface §4.2: files. Uploads go straight to the files bucket by presigned multipart; the
 * claim of a file is the secrets group's, answering a presigned download. Completing and
 * aborting take the upload's delete token, whoever sends them.
 */
export const filesRoutes = [
  {
    method: 'POST',
    path: '/v1/files/multipart',
    group: 'files',
    operation: 'openFileUpload',
    credential: 'optional',
    scope: 'secrets:write',
    rate: 'file_upload',
    body: 'FileUploadRequest',
    query: none,
    reply: { status: 200, body: 'FileUpload' },
    errors: [400, 403, 429],
  },
  {
    method: 'POST',
    path: '/v1/files/multipart/complete',
    group: 'files',
    operation: 'completeFileUpload',
    credential: 'public',
    scope: null,
    rate: null,
    body: 'CompleteUploadRequest',
    query: none,
    reply: { status: 200, body: 'CompletedUpload' },
    // A large upload: S3 may take minutes to complete it, so the completion sweep does (issue 28).
    accepted: { status: 202, body: 'CompletingUpload' },
    errors: [400, 409, 413],
  },
  {
    method: 'POST',
    path: '/v1/files/multipart/abort',
    group: 'files',
    operation: 'abortFileUpload',
    credential: 'public',
    scope: null,
    rate: null,
    body: 'AbortUploadRequest',
    query: none,
    reply: { status: 200, body: 'AbortedUpload' },
    errors: [400, 404],
  },
] as const satisfies readonly Route[];

/**
 * Interface §4.3: request links. The requester's routes take a session (an API key gets 403);
 * a responder's two are public: the link's public key and prompt, and a response.
 */
export const requestsRoutes = [
  {
    method: 'GET',
    path: '/v1/requests',
    group: 'requests',
    operation: 'listRequests',
    credential: 'session',
    scope: null,
    rate: null,
    body: none,
    query: 'RequestListQuery',
    reply: { status: 200, body: 'RequestList' },
    errors: [400, 401, 403],
  },
  {
    method: 'POST',
    path: '/v1/requests',
    group: 'requests',
    operation: 'createRequest',
    credential: 'session',
    scope: null,
    rate: null,
    body: 'CreateRequestRequest',
    query: none,
    reply: { status: 201, body: 'RequestCreated' },
    errors: [400, 401, 403],
  },
  {
    method: 'GET',
    path: '/v1/requests/{id}',
    group: 'requests',
    operation: 'readRequest',
    credential: 'public',
    scope: null,
    rate: null,
    body: none,
    query: none,
    reply: { status: 200, body: 'RequestLink' },
    errors: [404, 410],
  },
  {
    method: 'DELETE',
    path: '/v1/requests/{id}',
    group: 'requests',
    operation: 'closeRequest',
    credential: 'session',
    scope: null,
    rate: null,
    body: none,
    query: none,
    reply: { status: 200, body: 'RequestClosed' },
    errors: [401, 403, 404],
  },
  {
    method: 'GET',
    path: '/v1/requests/{id}/inbox',
    group: 'requests',
    operation: 'readInbox',
    credential: 'session',
    scope: null,
    rate: null,
    body: none,
    query: 'InboxQuery',
    reply: { status: 200, body: 'Inbox' },
    errors: [400, 401, 403, 404],
  },
  {
    method: 'POST',
    path: '/v1/requests/{id}/responses',
    group: 'requests',
    operation: 'respondToRequest',
    credential: 'public',
    scope: null,
    rate: 'request_response',
    body: 'ResponseRequest',
    query: none,
    reply: { status: 201, body: 'ResponseCreated' },
    errors: [400, 404, 409, 410, 429],
  },
] as const satisfies readonly Route[];

/** Interface §4.7: workspaces, their domains and SSO directory. Session only (an API key administers nothing), but for SSO discovery and an invitation's preview, which anyone may ask. */
export const workspacesRoutes = [
  {
    method: 'GET',
    path: '/v1/workspaces',
    group: 'workspaces',
    operation: 'listWorkspaces',
    credential: 'session',
    scope: null,
    rate: null,
    body: none,
    query: none,
    reply: { status: 200, body: 'WorkspaceList' },
    errors: [401, 403],
  },
  {
    method: 'POST',
    path: '/v1/workspaces',
    group: 'workspaces',
    operation: 'createWorkspace',
    credential: 'session',
    scope: null,
    rate: null,
    body: 'CreateWorkspaceRequest',
    query: none,
    reply: { status: 201, body: 'WorkspaceCreated' },
    errors: [400, 401, 403, 409, 421],
  },
  {
    method: 'GET',
    path: '/v1/workspaces/{id}/audit',
    group: 'workspaces',
    operation: 'readAudit',
    credential: 'session',
    scope: null,
    rate: null,
    body: none,
    query: 'AuditQuery',
    reply: { status: 200, body: 'AuditPage' },
    errors: [400, 401, 403, 404],
  },
  {
    method: 'GET',
    path: '/v1/workspaces/{id}/audit/export',
    group: 'workspaces',
    operation: 'exportAudit',
    credential: 'session',
    scope: null,
    rate: null,
    body: none,
    query: 'AuditExportQuery',
    reply: { status: 200, body: 'AuditExport' },
    errors: [400, 401, 403, 404],
    download: 'text/csv',
  },
  {
    method: 'PUT',
    path: '/v1/workspaces/{id}/branding',
    group: 'workspaces',
    operation: 'setBranding',
    credential: 'session',
    scope: null,
    rate: null,
    body: 'BrandingRequest',
    query: none,
    reply: { status: 200, body: 'Branding' },
    errors: [400, 401, 403, 404],
  },
  {
    method: 'POST',
    path: '/v1/workspaces/{id}/invitations',
    group: 'workspaces',
    operation: 'inviteMember',
    credential: 'session',
    scope: null,
    rate: null,
    body: 'InvitationRequest',
    query: none,
    reply: { status: 201, body: 'InvitationCreated' },
    errors: [400, 401, 403, 404],
    headers: [acceptLanguage],
  },
  {
    method: 'GET',
    path: '/v1/workspaces/{id}/members',
    group: 'workspaces',
    operation: 'listMembers',
    credential: 'session',
    scope: null,
    rate: null,
    body: none,
    query: none,
    reply: { status: 200, body: 'MemberList' },
    errors: [401, 403, 404],
  },
  {
    method: 'DELETE',
    path: '/v1/workspaces/{id}/members/{userId}',
    group: 'workspaces',
    operation: 'removeMember',
    credential: 'session',
    scope: null,
    rate: null,
    body: none,
    query: none,
    reply: { status: 200, body: 'MemberRemoved' },
    errors: [401, 403, 404, 409],
    headers: [acceptLanguage],
  },
  {
    method: 'PATCH',
    path: '/v1/workspaces/{id}/members/{userId}',
    group: 'workspaces',
    operation: 'changeRole',
    credential: 'session',
    scope: null,
    rate: null,
    body: 'RoleRequest',
    query: none,
    reply: { status: 200, body: 'RoleChanged' },
    errors: [400, 401, 403, 404, 409],
  },
  {
    method: 'PUT',
    path: '/v1/workspaces/{id}/policy',
    group: 'workspaces',
    operation: 'setPolicy',
    credential: 'session',
    scope: null,
    rate: null,
    body: 'PolicyRequest',
    query: none,
    reply: { status: 200, body: 'Policy' },
    errors: [400, 401, 403, 404, 409],
  },
  {
    method: 'POST',
    path: '/v1/workspaces/{id}/transfer',
    group: 'workspaces',
    operation: 'transferWorkspace',
    credential: 'session',
    scope: null,
    rate: null,
    body: 'TransferRequest',
    query: none,
    reply: { status: 200, body: 'WorkspaceTransferred' },
    errors: [400, 401, 403, 404],
    headers: [acceptLanguage],
  },
  {
    method: 'POST',
    path: '/v1/workspaces/invitations/accept',
    group: 'workspaces',
    operation: 'acceptInvitation',
    credential: 'session',
    scope: null,
    rate: null,
    body: 'AcceptInvitationRequest',
    query: none,
    reply: { status: 200, body: 'InvitationAccepted' },
    errors: [400, 401, 403, 404, 410],
  },
  {
    // The invitation page (/join#<token>) names the workspace, the inviter and the address before
    // anyone signs in (ADR 0181). Its own per-address class, like the other public token routes.
    method: 'POST',
    path: '/v1/workspaces/invitations/preview',
    group: 'workspaces',
    operation: 'previewInvitation',
    credential: 'public',
    scope: null,
    rate: 'invitation_preview',
    body: 'InvitationPreviewRequest',
    query: none,
    reply: { status: 200, body: 'InvitationPreview' },
    errors: [400, 404, 410, 429],
    beyondInterface: true,
  },
  {
    method: 'GET',
    path: '/v1/domains',
    group: 'workspaces',
    operation: 'listDomains',
    credential: 'session',
    scope: null,
    rate: null,
    body: none,
    query: 'DomainListQuery',
    reply: { status: 200, body: 'DomainList' },
    errors: [400, 401, 403, 404],
  },
  {
    method: 'POST',
    path: '/v1/domains',
    group: 'workspaces',
    operation: 'claimDomain',
    credential: 'session',
    scope: null,
    rate: null,
    body: 'DomainClaimRequest',
    query: none,
    reply: { status: 201, body: 'DomainClaimed' },
    errors: [400, 401, 403, 404, 409],
  },
  {
    method: 'DELETE',
    path: '/v1/domains/{id}',
    group: 'workspaces',
    operation: 'deleteDomain',
    credential: 'session',
    scope: null,
    rate: null,
    body: none,
    query: none,
    reply: { status: 200, body: 'DomainDeleted' },
    errors: [401, 403, 404],
  },
  {
    method: 'POST',
    path: '/v1/domains/{id}/verify',
    group: 'workspaces',
    operation: 'verifyDomain',
    credential: 'session',
    scope: null,
    rate: null,
    body: none,
    query: none,
    reply: { status: 200, body: 'DomainChecked' },
    errors: [401, 403, 404],
  },
  {
    method: 'PUT',
    path: '/v1/workspaces/{id}/sso',
    group: 'workspaces',
    operation: 'setSso',
    credential: 'session',
    scope: null,
    rate: null,
    body: 'SsoRequest',
    query: none,
    reply: { status: 200, body: 'SsoDirectory' },
    errors: [400, 401, 403, 404, 409],
  },
  {
    method: 'GET',
    path: '/v1/workspaces/sso/discover',
    group: 'workspaces',
    operation: 'discoverSso',
    credential: 'public',
    scope: null,
    rate: null,
    body: none,
    query: 'SsoDiscoverQuery',
    reply: { status: 200, body: 'SsoDiscovery' },
    errors: [400],
  },
] as const satisfies readonly Route[];

/** Interface §4.6: billing. Session only (an API key reads no billing), but for an Enterprise enquiry, which anyone may send. */
export const billingRoutes = [
  {
    method: 'POST',
    path: '/v1/billing/checkout',
    group: 'billing',
    operation: 'startCheckout',
    credential: 'session',
    scope: null,
    rate: 'billing_checkout',
    body: 'CheckoutRequest',
    query: none,
    reply: { status: 201, body: 'CheckoutCreated' },
    errors: [400, 401, 403, 409, 429, 503],
  },
  {
    method: 'GET',
    path: '/v1/billing/invoices',
    group: 'billing',
    operation: 'listInvoices',
    credential: 'session',
    scope: null,
    rate: null,
    body: none,
    query: 'InvoiceListQuery',
    reply: { status: 200, body: 'InvoiceList' },
    errors: [400, 401, 403, 404, 503],
  },
  {
    method: 'POST',
    path: '/v1/billing/portal',
    group: 'billing',
    operation: 'openPortal',
    credential: 'session',
    scope: null,
    rate: null,
    body: 'PortalRequest',
    query: none,
    reply: { status: 201, body: 'PortalCreated' },
    errors: [400, 401, 403, 404, 409, 503],
  },
  {
    method: 'GET',
    path: '/v1/billing/subscription',
    group: 'billing',
    operation: 'readSubscription',
    credential: 'session',
    scope: null,
    rate: null,
    body: none,
    query: none,
    reply: { status: 200, body: 'BillingSubscription' },
    errors: [401, 403],
  },
  {
    method: 'PATCH',
    path: '/v1/billing/seats',
    group: 'billing',
    operation: 'changeSeats',
    credential: 'session',
    scope: null,
    rate: null,
    body: 'SeatsRequest',
    query: none,
    reply: { status: 200, body: 'SeatsChanged' },
    errors: [400, 401, 403, 404, 503],
  },
  {
    method: 'POST',
    path: '/v1/billing/enterprise-inquiry',
    group: 'billing',
    operation: 'sendEnterpriseInquiry',
    credential: 'public',
    scope: null,
    rate: 'enterprise_inquiry',
    body: 'EnterpriseInquiryRequest',
    query: none,
    reply: { status: 202, body: 'EnterpriseInquiryAccepted' },
    errors: [400, 429],
    headers: [acceptLanguage],
  },
  {
    // The Plans page's prices (issue 31), read from the provider and kept a few minutes: public, as the plans are.
    method: 'GET',
    path: '/v1/billing/prices',
    group: 'billing',
    operation: 'listPlanPrices',
    credential: 'public',
    scope: null,
    rate: 'billing_prices',
    body: none,
    query: none,
    reply: { status: 200, body: 'PlanPrices' },
    errors: [429, 503],
    beyondInterface: true,
  },
] as const satisfies readonly Route[];

/**
 * Interface §4.6 and §6.6: the payment provider's deliveries, in a function of their own. Public:
 * the provider's signature over the raw body is the credential (400 when it does not verify).
 */
export const billingWebhookRoutes = [
  {
    method: 'POST',
    path: '/v1/billing/webhook',
    group: 'billingWebhook',
    operation: 'receiveProviderEvent',
    credential: 'public',
    scope: null,
    rate: null,
    body: none,
    query: none,
    reply: { status: 200, body: 'ProviderEventReceived' },
    errors: [400, 503],
    headers: [{ name: 'stripe-signature', description: "Stripe's signature of the raw body: t=<unix seconds>,v1=<hex HMAC-SHA256>." }],
  },
] as const satisfies readonly Route[];

/** Interface §4.4: account, sessions, keys. */
export const accountRoutes = [
  {
    method: 'POST',
    path: '/v1/auth/otp/start',
    group: 'account',
    operation: 'startSignIn',
    credential: 'public',
    scope: null,
    rate: 'otp_start',
    body: 'EmailRequest',
    query: none,
    reply: { status: 200, body: 'CodeSent' },
    errors: [400, 429],
    headers: [acceptLanguage],
  },
  {
    method: 'POST',
    path: '/v1/auth/otp/resend',
    group: 'account',
    operation: 'resendSignInCode',
    credential: 'public',
    scope: null,
    rate: 'otp_start',
    body: 'EmailRequest',
    query: none,
    reply: { status: 200, body: 'CodeSent' },
    errors: [400, 429],
    headers: [acceptLanguage],
  },
  {
    method: 'POST',
    path: '/v1/auth/otp/verify',
    group: 'account',
    operation: 'verifySignInCode',
    credential: 'public',
    scope: null,
    rate: 'otp_verify',
    body: 'VerifyCodeRequest',
    query: none,
    reply: { status: 200, body: 'IssuedTokens' },
    errors: [400, 401, 403, 429],
    sessionCookie: { sets: true },
  },
  {
    // The one-click link mailed with each code (ADR 0167): the web page posts its token here.
    // No guess budget: 256 random bits leave nothing to guess, so nobody's guessing keeps the
    // link's holder out. A generous per-IP class bounds the reads one source makes (each is a
    // read of an address's codes). Unknown, used and expired answer one 401.
    method: 'POST',
    path: '/v1/auth/otp/link',
    group: 'account',
    operation: 'signInWithLink',
    credential: 'public',
    scope: null,
    rate: 'otp_link',
    body: 'SignInLinkRequest',
    query: none,
    reply: { status: 200, body: 'IssuedTokens' },
    errors: [400, 401, 403, 429],
    beyondInterface: true,
    sessionCookie: { sets: true },
  },
  {
    // Single sign-on (issue 29, beyond the interface, which gives no redirect): to the workspace's
    // identity provider, authorization code with PKCE; the address's class of otp/start.
    method: 'GET',
    path: '/v1/auth/sso/start',
    group: 'account',
    operation: 'startSsoSignIn',
    credential: 'public',
    scope: null,
    rate: 'otp_start',
    body: none,
    query: 'SsoStartQuery',
    reply: { status: 302, body: null },
    errors: [400, 429, 503],
    beyondInterface: true,
    browser: { path: '/signin', label: 'Back to sign-in' },
  },
  {
    // The provider's redirect back: its state is the sign-in's own (single use), so no rate class.
    method: 'GET',
    path: '/v1/auth/sso/callback',
    group: 'account',
    operation: 'completeSsoSignIn',
    credential: 'public',
    scope: null,
    rate: null,
    body: none,
    query: 'SsoCallbackQuery',
    reply: { status: 302, body: null },
    errors: [400, 401, 403, 503],
    beyondInterface: true,
    browser: { path: '/signin', label: 'Back to sign-in' },
  },
  {
    method: 'POST',
    path: '/v1/auth/sso/exchange',
    group: 'account',
    operation: 'exchangeSsoCode',
    credential: 'public',
    scope: null,
    rate: 'otp_verify',
    body: 'SsoExchangeRequest',
    query: none,
    reply: { status: 200, body: 'IssuedTokens' },
    errors: [400, 401, 429],
    beyondInterface: true,
    sessionCookie: { sets: true },
  },
  {
    method: 'POST',
    path: '/v1/auth/refresh',
    group: 'account',
    operation: 'refreshSession',
    credential: 'public',
    scope: null,
    rate: null,
    body: 'RefreshRequest',
    query: none,
    reply: { status: 200, body: 'IssuedTokens' },
    errors: [400, 401],
    sessionCookie: { reads: true, sets: true },
  },
  {
    method: 'GET',
    path: '/v1/auth/jwks',
    group: 'account',
    operation: 'publishSigningKeys',
    credential: 'public',
    scope: null,
    rate: null,
    body: none,
    query: none,
    reply: { status: 200, body: 'Jwks' },
    errors: [],
  },
  {
    method: 'GET',
    path: '/v1/auth/sessions',
    group: 'account',
    operation: 'listSessions',
    credential: 'session',
    scope: null,
    rate: null,
    body: none,
    query: none,
    reply: { status: 200, body: 'SessionList' },
    errors: [401, 403],
  },
  // The account's own settings (issue 32, beyond the interface): the language its mails go out in.
  {
    method: 'GET',
    path: '/v1/auth/account',
    group: 'account',
    operation: 'readAccount',
    credential: 'session',
    scope: null,
    rate: null,
    body: none,
    query: none,
    reply: { status: 200, body: 'Account' },
    errors: [401, 403],
    beyondInterface: true,
  },
  {
    method: 'PATCH',
    path: '/v1/auth/account',
    group: 'account',
    operation: 'updateAccount',
    credential: 'session',
    scope: null,
    rate: null,
    body: 'AccountUpdateRequest',
    query: none,
    reply: { status: 200, body: 'Account' },
    errors: [400, 401, 403],
    beyondInterface: true,
  },
  {
    method: 'POST',
    path: '/v1/auth/logout',
    group: 'account',
    operation: 'logout',
    credential: 'public',
    scope: null,
    rate: null,
    body: 'LogoutRequest',
    query: none,
    reply: { status: 200, body: 'SignedOut' },
    errors: [],
    sessionCookie: { reads: true, sets: true },
  },
  {
    method: 'POST',
    path: '/v1/auth/logout-all',
    group: 'account',
    operation: 'logoutEverywhere',
    credential: 'session',
    scope: null,
    rate: null,
    body: none,
    query: none,
    reply: { status: 200, body: 'SignedOutEverywhere' },
    errors: [401, 403],
    sessionCookie: { reads: true, sets: true },
  },
  {
    method: 'POST',
    path: '/v1/auth/tos',
    group: 'account',
    operation: 'acceptTerms',
    credential: 'session',
    scope: null,
    rate: null,
    body: 'TermsRequest',
    query: none,
    reply: { status: 200, body: 'TermsAccepted' },
    errors: [400, 401, 403],
  },
  {
    method: 'POST',
    path: '/v1/auth/adopt-secrets',
    group: 'account',
    operation: 'adoptSecrets',
    credential: 'session',
    scope: null,
    rate: 'adopt',
    body: 'AdoptSecretsRequest',
    query: none,
    reply: { status: 200, body: 'AdoptionResult' },
    errors: [400, 401, 403, 429],
  },
  {
    method: 'GET',
    path: '/v1/api-keys',
    group: 'account',
    operation: 'listApiKeys',
    credential: 'session',
    scope: null,
    rate: null,
    body: none,
    query: none,
    reply: { status: 200, body: 'ApiKeyList' },
    errors: [401, 403],
  },
  {
    method: 'POST',
    path: '/v1/api-keys',
    group: 'account',
    operation: 'createApiKey',
    credential: 'session',
    scope: null,
    rate: null,
    body: 'CreateApiKeyRequest',
    query: none,
    reply: { status: 201, body: 'CreatedApiKey' },
    errors: [400, 401, 403],
  },
  {
    method: 'DELETE',
    path: '/v1/api-keys/{id}',
    group: 'account',
    operation: 'revokeApiKey',
    credential: 'session',
    scope: null,
    rate: null,
    body: none,
    query: none,
    reply: { status: 200, body: 'ApiKeyRevoked' },
    errors: [401, 403, 404],
  },
  {
    method: 'GET',
    path: '/v1/usage',
    group: 'account',
    operation: 'readUsage',
    credential: 'user',
    scope: null,
    rate: null,
    body: none,
    query: none,
    reply: { status: 200, body: 'Usage' },
    errors: [401],
  },
  {
    method: 'GET',
    path: '/v1/usage/history',
    group: 'account',
    operation: 'readUsageHistory',
    credential: 'user',
    scope: null,
    rate: null,
    body: none,
    query: 'UsageHistoryQuery',
    reply: { status: 200, body: 'UsageHistory' },
    errors: [400, 401],
  },
  {
    method: 'POST',
    path: '/v1/events',
    group: 'account',
    operation: 'recordProductEvent',
    credential: 'session',
    scope: null,
    rate: null,
    body: 'ProductEventRequest',
    query: none,
    reply: { status: 202, body: 'Accepted' },
    errors: [400, 401, 403],
  },
  {
    method: 'GET',
    path: '/v1/flags',
    group: 'account',
    operation: 'readFlags',
    credential: 'optional',
    scope: null,
    rate: null,
    body: none,
    query: none,
    reply: { status: 200, body: 'Flags' },
    errors: [403],
  },
  {
    method: 'GET',
    path: '/v1/regions',
    group: 'account',
    operation: 'listRegions',
    credential: 'public',
    scope: null,
    rate: null,
    body: none,
    query: none,
    reply: { status: 200, body: 'Regions' },
    errors: [],
  },
  {
    method: 'POST',
    path: '/v1/cli/install',
    group: 'account',
    operation: 'countCliInstall',
    credential: 'public',
    scope: null,
    rate: 'cli_install',
    body: 'CliInstallRequest',
    query: none,
    reply: { status: 202, body: 'Accepted' },
    errors: [400, 429],
  },
] as const satisfies readonly Route[];

/** Interface §4.5: webhooks. */
export const webhooksRoutes = [
  {
    method: 'GET',
    path: '/v1/webhooks',
    group: 'webhooks',
    operation: 'listWebhooks',
    credential: 'session',
    scope: null,
    rate: null,
    body: none,
    query: none,
    reply: { status: 200, body: 'WebhookList' },
    errors: [401, 403],
  },
  {
    method: 'POST',
    path: '/v1/webhooks',
    group: 'webhooks',
    operation: 'registerWebhook',
    credential: 'session',
    scope: null,
    rate: null,
    body: 'RegisterWebhookRequest',
    query: none,
    reply: { status: 201, body: 'RegisteredWebhook' },
    errors: [400, 401, 403],
  },
  {
    method: 'DELETE',
    path: '/v1/webhooks/{id}',
    group: 'webhooks',
    operation: 'deleteWebhook',
    credential: 'session',
    scope: null,
    rate: null,
    body: none,
    query: none,
    reply: { status: 200, body: 'WebhookDeleted' },
    errors: [401, 403, 404],
  },
  {
    method: 'GET',
    path: '/v1/webhooks/{id}/deliveries',
    group: 'webhooks',
    operation: 'listWebhookDeliveries',
    credential: 'session',
    scope: null,
    rate: null,
    body: none,
    query: 'DeliveryLogQuery',
    reply: { status: 200, body: 'DeliveryLog' },
    errors: [400, 401, 403, 404],
  },
  {
    method: 'POST',
    path: '/v1/webhooks/{id}/test',
    group: 'webhooks',
    operation: 'testWebhook',
    credential: 'key',
    scope: null,
    rate: null,
    body: none,
    query: none,
    reply: { status: 202, body: 'TestDeliveryQueued' },
    errors: [401, 404],
  },
] as const satisfies readonly Route[];

/**
 * Interface §4.8: directory provisioning, in SCIM's own shapes, on the directory key's workspace.
 * Beyond the interface, as Okta and Microsoft Entra call them: PUT of a User (Okta's wizard-made
 * apps send every update so), /Schemas and /ResourceTypes, and Groups (issue 30). Any other
 * method on these paths is a SCIM 405 (`scimFallbackPath`).
 */
export const scimRoutes = [
  {
    method: 'GET',
    path: '/scim/v2/ServiceProviderConfig',
    group: 'scim',
    operation: 'readServiceProviderConfig',
    credential: 'public',
    scope: null,
    rate: null,
    body: none,
    query: none,
    reply: { status: 200, body: 'ScimServiceProviderConfig' },
    errors: [],
    media: 'scim',
  },
  {
    method: 'GET',
    path: '/scim/v2/Schemas',
    group: 'scim',
    operation: 'readScimSchemas',
    credential: 'public',
    scope: null,
    rate: null,
    body: none,
    query: none,
    reply: { status: 200, body: 'ScimSchemaList' },
    errors: [],
    media: 'scim',
    beyondInterface: true,
  },
  {
    method: 'GET',
    path: '/scim/v2/ResourceTypes',
    group: 'scim',
    operation: 'readScimResourceTypes',
    credential: 'public',
    scope: null,
    rate: null,
    body: none,
    query: none,
    reply: { status: 200, body: 'ScimResourceTypeList' },
    errors: [],
    media: 'scim',
    beyondInterface: true,
  },
  {
    method: 'GET',
    path: '/scim/v2/Users',
    group: 'scim',
    operation: 'listScimUsers',
    credential: 'directory',
    scope: null,
    rate: null,
    body: none,
    query: 'ScimListQuery',
    reply: { status: 200, body: 'ScimUserList' },
    errors: [400, 401, 403],
    media: 'scim',
  },
  {
    method: 'POST',
    path: '/scim/v2/Users',
    group: 'scim',
    operation: 'createScimUser',
    credential: 'directory',
    scope: null,
    rate: null,
    body: 'ScimUserRequest',
    query: none,
    reply: { status: 201, body: 'ScimUser' },
    errors: [400, 401, 403, 409],
    media: 'scim',
  },
  {
    method: 'GET',
    path: '/scim/v2/Users/{id}',
    group: 'scim',
    operation: 'readScimUser',
    credential: 'directory',
    scope: null,
    rate: null,
    body: none,
    query: none,
    reply: { status: 200, body: 'ScimUser' },
    errors: [401, 403, 404],
    media: 'scim',
  },
  {
    method: 'PUT',
    path: '/scim/v2/Users/{id}',
    group: 'scim',
    operation: 'replaceScimUser',
    credential: 'directory',
    scope: null,
    rate: null,
    body: 'ScimUserRequest',
    query: none,
    reply: { status: 200, body: 'ScimUser' },
    errors: [400, 401, 403, 404, 409],
    media: 'scim',
    beyondInterface: true,
  },
  {
    method: 'PATCH',
    path: '/scim/v2/Users/{id}',
    group: 'scim',
    operation: 'patchScimUser',
    credential: 'directory',
    scope: null,
    rate: null,
    body: 'ScimPatchRequest',
    query: none,
    reply: { status: 200, body: 'ScimUser' },
    errors: [400, 401, 403, 404, 409],
    media: 'scim',
  },
  {
    method: 'DELETE',
    path: '/scim/v2/Users/{id}',
    group: 'scim',
    operation: 'deleteScimUser',
    credential: 'directory',
    scope: null,
    rate: null,
    body: none,
    query: none,
    reply: { status: 204, body: none },
    errors: [401, 403, 404],
    media: 'scim',
  },
  // Groups (issue 30): Okta's Group Push and Entra's group provisioning, how a directory says who is an admin.
  {
    method: 'GET',
    path: '/scim/v2/Groups',
    group: 'scim',
    operation: 'listScimGroups',
    credential: 'directory',
    scope: null,
    rate: null,
    body: none,
    query: 'ScimGroupListQuery',
    reply: { status: 200, body: 'ScimGroupList' },
    errors: [400, 401, 403],
    media: 'scim',
    beyondInterface: true,
  },
  {
    method: 'POST',
    path: '/scim/v2/Groups',
    group: 'scim',
    operation: 'createScimGroup',
    credential: 'directory',
    scope: null,
    rate: null,
    body: 'ScimGroupRequest',
    query: none,
    reply: { status: 201, body: 'ScimGroup' },
    errors: [400, 401, 403, 409],
    media: 'scim',
    beyondInterface: true,
  },
  {
    method: 'GET',
    path: '/scim/v2/Groups/{id}',
    group: 'scim',
    operation: 'readScimGroup',
    credential: 'directory',
    scope: null,
    rate: null,
    body: none,
    query: 'ScimGroupReadQuery',
    reply: { status: 200, body: 'ScimGroup' },
    errors: [400, 401, 403, 404],
    media: 'scim',
    beyondInterface: true,
  },
  {
    method: 'PUT',
    path: '/scim/v2/Groups/{id}',
    group: 'scim',
    operation: 'replaceScimGroup',
    credential: 'directory',
    scope: null,
    rate: null,
    body: 'ScimGroupRequest',
    query: none,
    reply: { status: 200, body: 'ScimGroup' },
    errors: [400, 401, 403, 404, 409],
    media: 'scim',
    beyondInterface: true,
  },
  {
    method: 'PATCH',
    path: '/scim/v2/Groups/{id}',
    group: 'scim',
    operation: 'patchScimGroup',
    credential: 'directory',
    scope: null,
    rate: null,
    body: 'ScimPatchRequest',
    query: none,
    reply: { status: 200, body: 'ScimGroup' },
    errors: [400, 401, 403, 404, 409],
    media: 'scim',
    beyondInterface: true,
  },
  {
    method: 'DELETE',
    path: '/scim/v2/Groups/{id}',
    group: 'scim',
    operation: 'deleteScimGroup',
    credential: 'directory',
    scope: null,
    rate: null,
    body: none,
    query: none,
    reply: { status: 204, body: none },
    errors: [401, 403, 404],
    media: 'scim',
    beyondInterface: true,
  },
] as const satisfies readonly Route[];

/**
 * Where the scim group answers what no row of it matches (API Gateway's `ANY` route with a greedy
 * path, and the local gateway's): a SCIM 405 with `allow` when the path is a row's with another
 * method, a SCIM 404 otherwise, never the gateway's own
 * answer, which SCIM clients cannot read.
 */
export const scimFallbackPath = '/scim/v2/{proxy+}';

/**
 * Interface §4.9: the chat integration (Slack). Installing starts from a signed-in account
 * (beyond the interface: it gives no route to start one); Slack's redirect, its slash command
 * and the composer's subscription are public, each proved by what it carries (a single-use
 * state, Slack's signature, a chat token and the secret's delete token).
 */
export const chatRoutes = [
  {
    method: 'POST',
    path: '/v1/chat/install',
    group: 'chat',
    operation: 'startChatInstall',
    credential: 'session',
    scope: null,
    rate: null,
    body: none,
    query: none,
    reply: { status: 200, body: 'ChatInstallStarted' },
    errors: [401, 403],
    beyondInterface: true,
  },
  {
    method: 'GET',
    path: '/v1/chat/callback',
    group: 'chat',
    operation: 'completeChatInstall',
    credential: 'public',
    scope: null,
    rate: null,
    body: none,
    query: 'ChatCallbackQuery',
    reply: { status: 302, body: null },
    errors: [400, 401, 403],
    browser: { path: '/account', label: 'Back to your account' },
  },
  {
    method: 'POST',
    path: '/v1/chat/commands',
    group: 'chat',
    operation: 'answerChatCommand',
    credential: 'public',
    scope: null,
    rate: null,
    body: none,
    query: none,
    reply: { status: 200, body: 'ChatCommandReply' },
    errors: [400, 403],
    headers: [
      { name: 'x-slack-signature', description: 'Slack’s v0 signature of the raw body.' },
      { name: 'x-slack-request-timestamp', description: 'When Slack sent it (unix seconds); five minutes either way at most.' },
    ],
  },
  {
    method: 'POST',
    path: '/v1/chat/subscribe',
    group: 'chat',
    operation: 'subscribeChat',
    credential: 'public',
    scope: null,
    rate: null,
    body: 'ChatSubscribeRequest',
    query: none,
    reply: { status: 200, body: 'ChatSubscribed' },
    errors: [400, 403, 404],
  },
] as const satisfies readonly Route[];

/** Beyond the interface (DESIGN.md §7): the OpenAPI document. */
export const openapiRoutes = [
  {
    method: 'GET',
    path: '/v1/openapi.json',
    group: 'openapi',
    operation: 'publishOpenApi',
    credential: 'public',
    scope: null,
    rate: null,
    body: none,
    query: none,
    reply: { status: 200, body: 'OpenApiDocument' },
    errors: [],
    beyondInterface: true,
  },
] as const satisfies readonly Route[];

/** THE route table: every row of every group. */
export const routes = /* @__PURE__ */ joined(
  secretsRoutes,
  gateRoutes,
  filesRoutes,
  requestsRoutes,
  accountRoutes,
  webhooksRoutes,
  workspacesRoutes,
  billingRoutes,
  billingWebhookRoutes,
  scimRoutes,
  chatRoutes,
  openapiRoutes,
);

/** The parts of the table as one list; marked pure so a bundle that reads no other part drops them. */
function joined<Parts extends readonly (readonly Route[])[]>(...parts: Parts): ReadonlyArray<Parts[number][number]> {
  return parts.flat();
}

export type RouteRow = (typeof routes)[number];
/** Operation names of one group, so a group's function must implement exactly its rows. */
export type OperationOf<G extends Group> = Extract<RouteRow, { group: G }>['operation'];

export const routeKey = (route: Pick<Route, 'method' | 'path'>): string => `${route.method} ${route.path}`;

export interface RouteMatch {
  route: Route;
  pathParameters: Record<string, string>;
}

/**
 * Finds the row serving a request path, as API Gateway does: static segments must be equal,
 * `{name}` matches one non-empty segment. Used by the local gateway only; in AWS, API Gateway
 * does this. Returns the routes on the path (any method) when the method does not match.
 */
export function matchRoute(method: string, path: string): RouteMatch | { route: null; allowed: HttpMethod[] } {
  const segments = path.split('/');
  const allowed: HttpMethod[] = [];
  for (const [route, pattern] of routePatterns) {
    const params = matchPath(pattern, segments);
    if (!params) continue;
    if (route.method === method) return { route, pathParameters: params };
    allowed.push(route.method);
  }
  return { route: null, allowed };
}

/** Each route with its path split once: the local gateway matches every request against all of them. */
const routePatterns: ReadonlyArray<readonly [Route, string[]]> = (routes as readonly Route[]).map((route) => [
  route,
  route.path.split('/'),
]);

/** The methods `rows` serve at `path`: what a 405's `allow` names (empty: nothing is served there). */
export function methodsAt(rows: readonly Route[], path: string): HttpMethod[] {
  const segments = path.split('/');
  return rows.filter((route) => matchPath(route.path.split('/'), segments) !== null).map((route) => route.method);
}

function matchPath(pattern: string[], segments: string[]): Record<string, string> | null {
  if (pattern.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i]!;
    const actual = segments[i]!;
    if (expected.startsWith('{') && expected.endsWith('}')) {
      if (actual === '') return null;
      let decoded: string;
      try {
        decoded = decodeURIComponent(actual);
      } catch {
        return null;
      }
      params[expected.slice(1, -1)] = decoded;
    } else if (expected !== actual) {
      return null;
    }
  }
  return params;
}
