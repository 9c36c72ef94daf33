import { en } from 'zod/locales';
import * as z from 'zod/mini';
import { $ZodError } from 'zod/v4/core';

// zod/mini loads no messages: without a locale every issue reads "Invalid input". Classic zod
// installs English on first use; do the same here (and in shared/config.ts), unless a locale is
// already set. Imported by name, so the bundle carries English alone.
if (!z.config().localeError) z.config(en());

/** Stable, snake_case error codes a client can switch on. */
export const errorCodes = [
  'invalid_request',
  'invalid_json',
  'unsupported_media_type',
  'not_found',
  'method_not_allowed',
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
  'timeout',
  'starting',
  'internal',
] as const;
export type ErrorCode = (typeof errorCodes)[number];

const titles: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  410: 'Gone',
  413: 'Content Too Large',
  421: 'Misdirected Request',
  423: 'Locked',
  425: 'Too Early',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export interface FieldError {
  path: string;
  message: string;
}

export interface ProblemExtras {
  headers?: Record<string, string>;
  errors?: FieldError[];
  /** Extra members of the problem body (e.g. `state` on a 410). */
  members?: Record<string, unknown>;
}

/** The one error type. Handlers throw it; the error middleware turns it into problem+json. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    readonly detail: string,
    readonly extras: ProblemExtras = {},
  ) {
    super(detail);
    this.name = 'HttpError';
  }
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  errors?: FieldError[];
  [member: string]: unknown;
}

export function problemBody(error: HttpError, requestId?: string): Problem {
  return {
    type: `https://hushlink.dev/problems/${error.code.replaceAll('_', '-')}`,
    title: titles[error.status] ?? 'Error',
    status: error.status,
    detail: error.detail,
    code: error.code,
    ...(error.extras.errors ? { errors: error.extras.errors } : {}),
    ...(error.extras.members ?? {}),
    ...(requestId ? { request_id: requestId } : {}),
  };
}

/**
 * The same error as a SCIM error message (RFC 7644 §3.12), for the scim group: its `status` a
 * string, its `scimType` when the error has one (ScimError's), its detail. Validation errors'
 * fields are said in the detail: SCIM's message has no place for them.
 */
export function scimErrorBody(error: HttpError): { schemas: string[]; status: string; scimType?: string; detail: string } {
  const scimType = error.extras.members?.scimType;
  const fields = error.extras.errors?.map((field) => `${field.path} ${field.message}`).join('; ');
  return {
    schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
    status: String(error.status),
    ...(typeof scimType === 'string' ? { scimType } : ['invalid_json', 'invalid_request', 'unsupported_media_type'].includes(error.code) ? { scimType: 'invalidSyntax' } : {}),
    detail: fields ? `${error.detail} ${fields}` : error.detail,
  };
}

export function validationError(error: $ZodError, where: 'body' | 'query' | 'path' | 'header'): HttpError {
  const errors = error.issues.flatMap((issue) => {
    const at = (path: PropertyKey[]) => [where, ...path.map(String)].join('.');
    // zod reports unknown keys once, at the object; name each field instead.
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: at([...issue.path, key]), message: 'is not a known field' }));
    }
    return [{ path: at(issue.path), message: issue.message }];
  });
  return new HttpError(400, 'invalid_request', `The request ${where} is not valid.`, { errors });
}

/** Maps anything thrown to an HttpError; what is not one is a fault of ours and becomes a bare 500. */
export function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof $ZodError) return validationError(error, 'body');
  // A cursor the store refused (shared/store/cursor.ts) is the caller's input, whichever
  // listing it was sent to, including one whose domain code does not answer it itself.
  if (error instanceof Error && error.name === 'InvalidCursor') {
    return new HttpError(400, 'invalid_request', 'The cursor is not one this listing gave out.', { errors: [{ path: 'query.cursor', message: 'is not a cursor this listing gave out' }] });
  }
  return new HttpError(500, 'internal', 'Something went wrong on our side; the request was not completed.');
}
