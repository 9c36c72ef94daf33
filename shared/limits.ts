import type { RateClass } from './routes.ts';

/** Every number the service enforces, in one place (DESIGN.md §3). */
export const secretLimits = {
  expiresInSeconds: { min: 60, max: 30 * 24 * 3600, default: 24 * 3600 },
  maxViews: { min: 1, max: 100, default: 1 },
  /** Decoded text envelope; files go through /v1/files. */
  textEnvelopeBytes: 256 * 1024,
  /** Refused claim proofs before a secret locks. */
  refusedProofsBeforeLock: 5,
  /** How long a terminal secret keeps its tombstone (state, no payload) before TTL removes it. */
  tombstoneSeconds: 30 * 24 * 3600,
  /** Per-recipient links of one secret, each with its own `max_views`. */
  recipients: { min: 1, max: 20 },
  recipientLabelChars: 64,
  /** Receipts per page of `GET /v1/secrets/{id}/receipts`. */
  receiptsPageSize: { default: 25, max: 100 },
  /** The user agent kept with a view until the relay reduces it to a browser and OS family. */
  userAgentChars: 256,
} as const;

/**
 * Restricted recipients prove their address with an emailed code (DESIGN.md §3). A "source" is
 * a client address as the per-IP limits count it (IPv6 by its /64); why these rules and
 * numbers: docs/adr/0134-the-gate-one-live-code-caps-per-link-and-source.md (issue 26).
 */
export const gateLimits = {
  codeDigits: 6,
  codeSeconds: 10 * 60,
  /** A gate session, bound to one secret, one recipient and one address. */
  sessionSeconds: 15 * 60,
  /**
   * Starts for one link from one source an hour, whatever the address (so a 429 says nothing
   * about it): beyond, 429 for that source only. A link has one live code at a time, and a
   * start never replaces it, so strangers can have at most one code every 10 minutes mailed.
   */
  startsPerSource: { limit: 5, windowSeconds: 3600 },
  /**
   * Tries of one link's code from one source: beyond, 429 for that source only, and its refused
   * tries use none of the link's day. Ten is under half of the day's 25, so no one source can
   * spend the link's budget and keep the recipient out.
   */
  triesPerSource: [
    { limit: 5, windowSeconds: 600 },
    { limit: 10, windowSeconds: 24 * 3600 },
  ],
  /**
   * Tries of one link's code a day, from every source together: bounds guessing over a secret's
   * life (30 days at most: 750 tries of 10^6 codes, one live at a time: 0.075 %).
   */
  triesPerRecipient: { limit: 25, windowSeconds: 24 * 3600 },
} as const;

/**
 * Files (interface §4.2): presigned multipart uploads of the envelope, downloads by presigned
 * GET. The largest file is the plan's (`plans.ts`).
 */
export const fileLimits = {
  /** S3 allows 10,000; fewer parts keep the answer of an upload (every part's URL) small. */
  maxParts: 1000,
  /** Every part but the last is a whole number of envelope chunks, at least this long. */
  minPartBytes: 8 * 1024 * 1024,
  /** How long presigned part URLs work (resuming gives fresh ones). */
  partUrlSeconds: 3600,
  /** How long a claim's download URL works; a burned file's object goes once the last one has expired. */
  downloadUrlSeconds: 15 * 60,
  /** An upload never completed is aborted, and its secret revoked, this long after it began. */
  staleUploadSeconds: 24 * 3600,
  /**
   * Uploads up to this size complete inside the request (`INLINE_COMPLETION_BYTES` changes it):
   * S3 completes 128 parts in well under a second. Larger ones are left to the completion sweep.
   */
  inlineCompletionBytes: 1024 * 1024 * 1024,
  /**
   * One try of the completion sweep holds a completion this long before another may take it up:
   * over the schedule function's timeout (15 minutes), so a live try is never doubled.
   */
  completionLeaseSeconds: 16 * 60,
  /** A try that failed is taken up again after this, doubling with each try up to `completionRetryMaxSeconds`. */
  completionRetrySeconds: 60,
  completionRetryMaxSeconds: 15 * 60,
  /** A completion still failing this long after it was asked for ends the upload: the secret is revoked and its parts deleted. */
  completionGiveUpSeconds: 24 * 3600,
  /** Completions one run of the sweep takes up, and how many at once. */
  completionBatch: 20,
  completionConcurrency: 5,
} as const;

/**
 * Request links (interface §4.3): a requester publishes a public key; responders' secrets are
 * sealed to it. Responses stay readable after the link closes or expires (rule 4) for
 * `retentionSeconds`, then go with the link.
 */
export const requestLimits = {
  expiresInSeconds: { min: 60, max: 30 * 24 * 3600, default: 7 * 24 * 3600 },
  maxResponses: { min: 1, max: 100, default: 10 },
  /** The sealed prompt (an envelope v1) a responder's page shows. */
  promptEnvelopeBytes: 8 * 1024,
  /** How long the link and its responses are kept after it expires (closed or not). */
  retentionSeconds: 30 * 24 * 3600,
  /** Request links per page of `GET /v1/requests`. */
  listPageSize: { default: 25, max: 100 },
  /** Responses per page of the inbox (a page also stops at DynamoDB's 1 MB a query). */
  inboxPageSize: { default: 10, max: 50 },
} as const;

/** Workspaces (interface §4.7). */
export const workspaceLimits = {
  name: { min: 1, max: 80 },
  /** Lower-case letters, digits and single dashes, not at either end. */
  slug: { min: 3, max: 40 },
  /** Seats of a workspace without a Team subscription: its owner's. */
  defaultSeats: 1,
  /** An invitation's link works this long (DESIGN.md §3). */
  invitationSeconds: 7 * 24 * 3600,
  /** Branding: the logo's decoded bytes, and the display name. */
  logoBytes: 64 * 1024,
  /**
   * A logo's pixels a side, at most: it is drawn a few dozen pixels high; 4096 leaves room for
   * any honest export while refusing a 64 KiB file that decodes to a 16384² canvas (a GiB of RGBA).
   */
  logoSide: 4096,
  displayName: { min: 1, max: 60 },
  /** WCAG 2's contrast ratio the accent must reach with what is drawn on and around it. */
  accentContrast: 4.5,
  /** Audit rows per page of `GET …/audit`, and per DynamoDB page of an export. */
  auditPageSize: { default: 50, max: 200 },
  auditExportPageSize: 500,
  /** Policy bounds. */
  allowedRecipientDomains: 50,
} as const;

/** Custom domains (issue 17). */
export const domainLimits = {
  /** Claims a workspace holds at once, pending and verified. */
  perWorkspace: 20,
  /** A pending claim is checked again by the schedule this long after it was made. */
  recheckSeconds: 7 * 24 * 3600,
  /** Pending claims one schedule run checks (each lookup may take the resolver's 6 s deadline), a few at a time. */
  recheckBatch: 50,
  recheckConcurrency: 5,
  /**
   * How long an instance trusts that a hostname has no verified claim (a verified one is read on
   * every request, so a deleted claim stops serving at once everywhere: rule 5): a claim verified
   * elsewhere serves on every instance within this; at once on the one that verified it.
   */
  hostCacheSeconds: 5,
  /**
   * Hosting steps (a verified claim served, or a deleted one's tenant stopped) one schedule run
   * takes, a few at once: each is two to five CloudFront calls, CloudFront's control plane
   * throttles at a rate it does not publish, and the run has the schedule function's timeout.
   */
  hostingStepsPerRun: 10,
  hostingConcurrency: 2,
  /** A verified claim not live this long after its verification is given up (its CNAME never came, say). */
  hostingWindowSeconds: 7 * 24 * 3600,
  /** Waiting for the customer's CNAME: CloudFront is asked every 5 minutes on the first day after verification, hourly after. */
  cnameWait: { firstDaySeconds: 24 * 3600, firstDayEverySeconds: 300, thenEverySeconds: 3600 },
  /** When the schedule asks CloudFront again, by where a claim stands. */
  hostingRetrySeconds: {
    /** An earlier claim's tenant usually goes within minutes. */
    hostnameTaken: 300,
    /** Certificate issuance and tenant deploys take minutes. */
    deploying: 60,
    stopping: 60,
    /** After CloudFront or the table failed a step. */
    failed: 300,
  },
  /** A hostname taken, or a stop not finished, this long is an operator's problem: logged and counted once. */
  hostingStuckSeconds: 3600,
} as const;

/** SCIM provisioning (issue 18): what a directory may send of one User, and of one PATCH. */
export const scimUserLimits = {
  userNameChars: 256,
  /** externalId, displayName, each part of a name, and the other single-valued strings. */
  attributeChars: 1024,
  /**
   * A unique value (the folded userName, externalId) in UTF-8 bytes: each is the sort key of its
   * uniqueness item (`SCIM_EXTERNAL#<externalId>`), which DynamoDB caps at 1,024 bytes with the
   * prefix. A userName's 256 characters never reach it; an externalId's 1,024 can (`é` is 2 bytes).
   */
  uniqueValueBytes: 1000,
  emailChars: 254,
  /** An email's `type` (work, home, other, or the directory's own word). */
  emailTypeChars: 64,
  emails: 20,
  /** The enterprise extension's object, kept as sent, as JSON. */
  enterpriseJsonBytes: 8 * 1024,
  /** The other core attributes together (title, locale, phoneNumbers, addresses, …), as JSON. */
  extraJsonBytes: 16 * 1024,
  /** How deep what is kept as sent may nest (DynamoDB holds 32 levels in an item; these sit two down). */
  keptDepth: 16,
  /**
   * Numbers kept as sent, as the document client writes them and DynamoDB holds them: 0, or a
   * magnitude from 1e-130 to 2^53 − 1 (a larger integer is refused by the client, 1e308 by DynamoDB).
   */
  keptNumberMagnitude: { max: Number.MAX_SAFE_INTEGER, minNonZero: 1e-130 },
  patchOperations: 100,
} as const;

/**
 * SCIM filters (issue 18, shared/domain/scim/filter.ts). A filter of 1,000 characters holds at
 * most 59 comparisons, so its exact lookups are at most 59 reads by key (in parallel); parentheses nest
 * 10 deep at most, so no filter reaches the parser's stack limit (Okta and Entra send none).
 */
export const scimFilterLimits = {
  maxChars: 1000,
  maxDepth: 10,
} as const;

/**
 * Pages of SCIM Users (issue 18). Okta imports with `count=100`; a page holds at most
 * `maxResults` (ServiceProviderConfig's `filter.maxResults` says so), and a larger `count` is cut
 * to it rather than refused (RFC 7644 §3.4.2.4). Without `count`, a page holds `defaultCount`.
 */
export const scimListLimits = {
  maxResults: 200,
  defaultCount: 100,
} as const;

/** Contract plans, set by sales' admin command (scripts/set-plan.ts). */
export const contractPlanLimits = {
  /** A workspace's seats under a contract: Team's checkout sells up to 10,000, a contract may go further. */
  seats: { min: 1, max: 1_000_000 },
  /** Why, and who asked: one line each, kept on the item and in a workspace's audit row. */
  noteChars: 500,
  byChars: 200,
} as const;

/** Curl mode (`POST /v1/curl`): the raw body the server seals, at most this long (413 beyond). */
export const curlLimits = {
  maxBodyBytes: 1024 * 1024,
} as const;

/** The local gateway refuses bodies over API Gateway's own payload limit. */
export const maxRequestBodyBytes = 10 * 1024 * 1024;

export interface RateWindow {
  /** Requests allowed per window. */
  limit: number;
  windowSeconds: number;
}

/** Fixed windows kept in DynamoDB, per client IP (and per credential once routes carry one). */
export interface RateLimit {
  perIp: RateWindow;
  /** Per signed-in user or key owner; the per-IP window when absent. */
  perCredential?: RateWindow;
}

export type RateLimits = Record<RateClass, RateLimit>;

export const defaultRateLimits: RateLimits = {
  secret_create: { perIp: { limit: 60, windowSeconds: 60 }, perCredential: { limit: 300, windowSeconds: 60 } },
  secret_claim: { perIp: { limit: 30, windowSeconds: 60 } },
  otp_start: { perIp: { limit: 20, windowSeconds: 3600 } },
  otp_verify: { perIp: { limit: 30, windowSeconds: 600 } },
  /** A sign-in link is used once by its holder: a source using many is reading addresses' codes for nothing. */
  otp_link: { perIp: { limit: 30, windowSeconds: 600 } },
  adopt: { perIp: { limit: 20, windowSeconds: 60 } },
  report: { perIp: { limit: 10, windowSeconds: 3600 } },
  feedback: { perIp: { limit: 30, windowSeconds: 3600 } },
  cli_install: { perIp: { limit: 30, windowSeconds: 3600 } },
  gate_start: { perIp: { limit: 20, windowSeconds: 3600 } },
  gate_verify: { perIp: { limit: 30, windowSeconds: 600 } },
  curl: { perIp: { limit: 30, windowSeconds: 60 } },
  file_upload: { perIp: { limit: 30, windowSeconds: 60 }, perCredential: { limit: 120, windowSeconds: 60 } },
  request_response: { perIp: { limit: 30, windowSeconds: 60 } },
  /** Each checkout makes a session at the payment provider: a person needs a few. */
  billing_checkout: { perIp: { limit: 30, windowSeconds: 3600 }, perCredential: { limit: 10, windowSeconds: 3600 } },
  /** Each enquiry is a mail to sales: a person sends one, a script many. */
  enterprise_inquiry: { perIp: { limit: 5, windowSeconds: 3600 } },
  /** An invitation's page reads it once or twice: more is a source trying tokens. */
  invitation_preview: { perIp: { limit: 30, windowSeconds: 60 } },
  /** A visitor reads the Plans page now and then; the function keeps the provider's answer besides. */
  billing_prices: { perIp: { limit: 60, windowSeconds: 60 } },
};

/** Seats a Team checkout or seat change may ask for: a self-serve ceiling; more is an Enterprise conversation. */
export const teamSeatLimits = { min: 1, max: 10_000 };

/** A buyer's notices (a payment failed, a subscription ended), mailed by the delivery worker. */
export const billingLimits = {
  /** A notice's claim another delivery of its message may not take over before this: one mail, well under the queue's visibility timeout (180 s). */
  noticeLeaseSeconds: 60,
  /** A notice's mark is kept past the queue's retention (14 days), so no copy of its message outlives it. */
  noticeMarkSeconds: 15 * 24 * 3600,
} as const;

/** An Enterprise enquiry (interface §4.6): what sales need to call back, kept to a mail's worth. */
export const enterpriseInquiryLimits = {
  name: { max: 200 },
  company: { max: 200 },
  message: { max: 5000 },
  seats: { max: 1_000_000 },
  /**
   * Acknowledgements mailed to one address (its hash) a day: the enquiry's address is nobody's
   * proof, so whoever types it cannot have it mailed more; beyond, sales still get the enquiry.
   */
  acknowledgementsPerAddress: { limit: 2, windowSeconds: 24 * 3600 } satisfies RateWindow,
};

/**
 * Sign-in (DESIGN.md §3; why these numbers, and the odds of guessing a code:
 * docs/adr/0032-sign-in-guess-budgets-per-address-and-per-source.md, and
 * docs/adr/0031-sign-in-codes-8-digits-3-live-per-address.md).
 * "Address" here is the one caps count (`capAddress`: `ana+tag@` counts as `ana@`); a "source"
 * is a client address, IPv6 by its /64.
 */
export const signInLimits = {
  codeDigits: 8,
  codeSeconds: 10 * 60,
  /** Codes live at once for one exact address; a start beyond them mails nothing (the mailbox holds them). */
  liveCodesPerAddress: 3,
  /** otp/resend answers 429 when the same source asked for the same address this recently. */
  resendCooldownSeconds: 60,
  /** Codes mailed to one address at one source's request. */
  codesPerSource: { limit: 3, windowSeconds: 3600 },
  /** Codes tried for one address, from every source together: what bounds guessing. */
  guessesPerAddress: { limit: 30, windowSeconds: 3600 },
  /** Codes tried for one address from one source: a third of the address's hour at most. */
  guessesPerSource: [
    { limit: 5, windowSeconds: 600 },
    { limit: 10, windowSeconds: 3600 },
  ],
} as const;

/** Credentials (DESIGN.md §3). */
export const credentialLimits = {
  accessTokenSeconds: 15 * 60,
  refreshTokenSeconds: 30 * 24 * 3600,
  /**
   * A refresh token presented again this soon after its rotation gets the same new token (a
   * reload racing a refresh); later, presenting it is reuse and signs the session out.
   */
  refreshGraceSeconds: 10,
  /** Signing keys rotate this often; the previous key keeps verifying until its tokens expire. */
  signingKeyRotationSeconds: 30 * 24 * 3600,
  /** `last_used_at` of sessions and keys is written at most this often. */
  lastUsedResolutionSeconds: 60,
  apiKeyMaxSeconds: 365 * 24 * 3600,
} as const;

/** Webhooks (DESIGN.md §3; the retry schedule is in shared/domain/webhooks/model.ts). */
export const webhookLimits = {
  endpointsPerUser: 10,
  /** How long a delivery stays in the log. */
  deliveryLogSeconds: 30 * 24 * 3600,
  /** A claimed attempt another worker may not take over before this (over the 10 s timeout). */
  attemptLeaseSeconds: 60,
  /** Deliveries per page of the log. */
  deliveriesPageSize: { default: 20, max: 100 },
  /** Stream records per relay invocation, and tries of a failing batch before it is set aside. */
  relayBatchSize: 100,
  relayAttempts: 10,
  /** Test deliveries of one endpoint written and not yet settled; beyond them a test is not queued. */
  pendingTestDeliveries: 5,
  /**
   * A test delivery still pending this long after it was written has lost its messages (the
   * retry schedule ends 44.6 h after the first attempt), so it stops counting towards the cap.
   */
  lostTestDeliverySeconds: 2 * 24 * 3600,
} as const;

/** Chat (issue 19): the Slack install's `state`, the composer's chat token, and signed slash commands. */
export const chatLimits = {
  /** An install's `state` works this long, once: Slack's authorization codes also expire after 10 minutes. */
  stateSeconds: 10 * 60,
  /** A chat token (the composer link a slash command answers with) works this long. */
  chatTokenSeconds: 15 * 60,
  /** A slash command signed further than this from now, either way, is refused (Slack's own bound). */
  signatureToleranceSeconds: 5 * 60,
  /**
   * A state or chat token longer than this is refused unread: ours are about 300 characters,
   * and a route reading one from a query or body never verifies a megabyte.
   */
  tokenChars: 1024,
  /**
   * A notice's claim another delivery of its message may not take over before this: over a DM's
   * two calls of 5 s each, under the queue's visibility timeout (180 s).
   */
  noticeLeaseSeconds: 60,
  /** A notice's mark is kept past the queue's retention (14 days), so no copy of its message outlives it. */
  noticeMarkSeconds: 15 * 24 * 3600,
  /** One call to Slack's Web API (a DM is two): Slack answers in well under a second. */
  slackCallTimeoutMs: 5_000,
  /** Slack's error code repeated in a refusal, at most (Slack's are short words; a redirect's `error` is anyone's text). */
  slackErrorChars: 64,
  /** A used install state's mark outlives the state by this much, then goes by TTL (the state is refused by its expiry by then). */
  stateMarkGraceSeconds: 3600,
  /**
   * A rotating bot token (12 h) is renewed by the first DM within its last two hours (as Slack's
   * own SDK's rotator does), so a quiet hour or a failed renewal leaves time to try again.
   */
  tokenRenewAheadSeconds: 2 * 3600,
  /** A token with less left than this is not sent with while another worker renews: it could expire between the DM's two calls. */
  tokenUsableMarginSeconds: 60,
  /** One worker's hold on a renewal: over the refresh call's timeout (5 s) and two writes, under the queue's visibility timeout (180 s). */
  tokenRenewalLeaseSeconds: 30,
  /** A worker that needs a token another is renewing looks again this often, this many times (3 s), then leaves the message to the queue's retry. */
  renewalLookMs: 500,
  renewalLooks: 6,
} as const;

/** Single sign-on through a workspace's identity provider (issue 29). */
export const ssoLimits = {
  /** A sign-in's `state` works this long, once (as an install's with Slack). */
  stateSeconds: 10 * 60,
  /** The one-time code the callback hands the client works this long, once. */
  exchangeSeconds: 60,
  /** One call to the identity provider (discovery, token endpoint, JWKS): then it is unavailable (503). */
  providerCallSeconds: 5,
  /** A state or code longer than this is refused unread. */
  tokenChars: 2048,
} as const;
