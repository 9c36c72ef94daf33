/**
 * What a use case refuses, in the domain's own words: what happened (not found, a conflict with
 * a code, forbidden for a reason, too early until a time, gone, locked, rate limited for a while,
 * invalid with field issues), never how HTTP shows it. shared/http/refusals.ts is the one table
 * that turns each kind into a status, headers and a problem (or SCIM's error message).
 */

/** What happened, one word each; the HTTP table gives each its status. */
export type RefusalKind =
  | 'invalid'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'gone'
  | 'too_large'
  | 'misdirected'
  | 'locked'
  | 'too_early'
  | 'rate_limited'
  | 'unavailable';

/** Stable snake_case codes a client can switch on (a problem's `code`). */
export const refusalCodes = [
  'invalid_request',
  'not_found',
  'gone',
  'locked',
  'too_early',
  'rate_limited',
  'forbidden',
  'chat_not_configured',
  'policy_violation',
  'proof_required',
  'proof_refused',
  'recipient_required',
  'recipient_revoked',
  'gate_required',
  'gate_refused',
  'upload_pending',
  'unauthorized',
  'conflict',
  'payload_too_large',
  'misdirected',
  'portal_unconfigured',
  'provider_unavailable',
] as const;
export type RefusalCode = (typeof refusalCodes)[number];

/** One input field that was refused, named as the use case's input names it. */
export interface FieldIssue {
  field: string;
  message: string;
  /** Where a transport carries the field; the body unless said (a cursor is a query's). */
  in?: 'body' | 'query' | 'path' | 'header';
}

/**
 * What the reader is told beyond the sentence, named as clients read it: `reason`, `state`,
 * `attempts_left`, SCIM's `scimType`…
 */
export type Facts = Readonly<Record<string, unknown>>;

/** The credential a refusal asks for, so the transport can say how to present it. */
export type Challenge = 'bearer' | 'directory';

export interface RefusalOptions {
  code?: RefusalCode;
  facts?: Facts;
  fields?: readonly FieldIssue[];
}

export class Refusal extends Error {
  readonly code: RefusalCode;
  readonly facts: Facts;
  readonly fields: readonly FieldIssue[];

  constructor(
    readonly kind: RefusalKind,
    readonly detail: string,
    options: RefusalOptions & { code: RefusalCode },
  ) {
    super(detail);
    this.name = 'Refusal';
    this.code = options.code;
    this.facts = options.facts ?? {};
    this.fields = options.fields ?? [];
  }
}

/** Input the rules refuse, field by field. */
export class Invalid extends Refusal {
  constructor(detail: string, fields: readonly FieldIssue[] = [], options: Omit<RefusalOptions, 'fields'> = {}) {
    super('invalid', detail, { code: 'invalid_request', ...options, fields });
  }
}

/** No credential, or one that proves nothing; `challenge` says which one would do. */
export class Unauthenticated extends Refusal {
  constructor(detail: string, options: RefusalOptions & { challenge?: Challenge } = {}) {
    super('unauthenticated', detail, { code: 'unauthorized', ...options });
    this.challenge = options.challenge;
  }
  readonly challenge: Challenge | undefined;
}

/** The caller is known, and may not do this; `facts.reason` says why where clients branch on it. */
export class Forbidden extends Refusal {
  constructor(detail: string, options: RefusalOptions = {}) {
    super('forbidden', detail, { code: 'forbidden', ...options });
  }
}

export class NotFound extends Refusal {
  constructor(detail: string, options: RefusalOptions = {}) {
    super('not_found', detail, { code: 'not_found', ...options });
  }
}

/** The request contradicts what is stored (taken, changed meanwhile, the last owner…). */
export class Conflict extends Refusal {
  constructor(detail: string, options: RefusalOptions = {}) {
    super('conflict', detail, { code: 'conflict', ...options });
  }
}

/** It existed and has ended (burned, expired, revoked, used). */
export class Gone extends Refusal {
  constructor(detail: string, options: RefusalOptions = {}) {
    super('gone', detail, { code: 'gone', ...options });
  }
}

export class TooLarge extends Refusal {
  constructor(detail: string, options: RefusalOptions = {}) {
    super('too_large', detail, { code: 'payload_too_large', ...options });
  }
}

/** Served by another deployment (another region's). */
export class Misdirected extends Refusal {
  constructor(detail: string, options: RefusalOptions = {}) {
    super('misdirected', detail, { code: 'misdirected', ...options });
  }
}

export class Locked extends Refusal {
  constructor(detail: string, options: RefusalOptions = {}) {
    super('locked', detail, { code: 'locked', ...options });
  }
}

/** Not yet: try again in `retryAfterSeconds`. */
export class TooEarly extends Refusal {
  constructor(
    detail: string,
    readonly retryAfterSeconds: number,
    options: RefusalOptions = {},
  ) {
    super('too_early', detail, { code: 'too_early', ...options });
  }
}

/** Too many of these for now: try again in `retryAfterSeconds`. */
export class RateLimited extends Refusal {
  constructor(
    detail: string,
    readonly retryAfterSeconds: number,
    options: RefusalOptions = {},
  ) {
    super('rate_limited', detail, { code: 'rate_limited', ...options });
  }
}

/** Something this depends on (a payment provider) did not answer as it should: try again in `retryAfterSeconds`. */
export class Unavailable extends Refusal {
  constructor(
    detail: string,
    readonly retryAfterSeconds: number,
    options: RefusalOptions = {},
  ) {
    super('unavailable', detail, { code: 'provider_unavailable', ...options });
  }
}
