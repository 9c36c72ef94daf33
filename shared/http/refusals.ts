/**
 * The one table from what the domain refuses to what HTTP answers: each refusal kind's status,
 * the headers it needs (retry-after, www-authenticate), and its body as problem+json (RFC 9457)
 * or, for the scim group, as SCIM's error message (RFC 7644 §3.12). The error middleware calls
 * `toHttpError` on anything thrown.
 */
import { $ZodError } from 'zod/v4/core';
import {
  Refusal,
  RateLimited,
  TooEarly,
  Unauthenticated,
  Unavailable,
  type Challenge,
  type FieldIssue,
  type RefusalKind,
} from '../domain/refusals.ts';
import { HttpError, validationError, type ErrorCode, type FieldError } from './errors.ts';

const statusOf: Record<RefusalKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  too_large: 413,
  misdirected: 421,
  locked: 423,
  too_early: 425,
  rate_limited: 429,
  unavailable: 503,
};

const challenges: Record<Challenge, string> = {
  bearer: 'Bearer',
  directory: 'Bearer realm="scim"',
};

// An issue with no field (`''`) is about the input as a whole, named by its place alone (`body`).
const fieldError = (issue: FieldIssue): FieldError => ({
  path: issue.field ? `${issue.in ?? 'body'}.${issue.field}` : (issue.in ?? 'body'),
  message: issue.message,
});

/** A domain refusal as HTTP shows it. */
export function fromRefusal(refusal: Refusal): HttpError {
  const headers: Record<string, string> = {};
  if (refusal instanceof RateLimited || refusal instanceof TooEarly || refusal instanceof Unavailable)
    headers['retry-after'] = String(refusal.retryAfterSeconds);
  if (refusal instanceof Unauthenticated && refusal.challenge) headers['www-authenticate'] = challenges[refusal.challenge];
  return new HttpError(statusOf[refusal.kind], refusal.code, refusal.detail, {
    ...(Object.keys(headers).length ? { headers } : {}),
    ...(refusal.fields.length ? { errors: refusal.fields.map(fieldError) } : {}),
    ...(Object.keys(refusal.facts).length ? { members: { ...refusal.facts } } : {}),
  });
}

/** Maps anything thrown to an HttpError; what is neither a refusal nor one is a fault of ours, a bare 500. */
export function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof Refusal) return fromRefusal(error);
  if (error instanceof $ZodError) return validationError(error, 'body');
  // A cursor the store refused (shared/store/cursor.ts) is the caller's input, whichever
  // listing it was sent to, including one whose domain code does not answer it itself.
  if (error instanceof Error && error.name === 'InvalidCursor') {
    return new HttpError(400, 'invalid_request', 'The cursor is not one this listing gave out.', {
      errors: [{ path: 'query.cursor', message: 'is not a cursor this listing gave out' }],
    });
  }
  return new HttpError(500, 'internal', 'Something went wrong on our side; the request was not completed.');
}

const syntaxCodes: readonly ErrorCode[] = ['invalid_json', 'invalid_request', 'unsupported_media_type'];

/**
 * The same error as a SCIM error message, for the scim group: its `status` a string, its
 * `scimType` when the refusal names one (or invalidSyntax for a request that does not parse),
 * its detail. Validation errors' fields are said in the detail: SCIM's message has no place for them.
 */
export function scimErrorBody(error: HttpError): { schemas: string[]; status: string; scimType?: string; detail: string } {
  const scimType = error.extras.members?.scimType;
  const fields = error.extras.errors?.map((field) => `${field.path} ${field.message}`).join('; ');
  return {
    schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
    status: String(error.status),
    ...(typeof scimType === 'string' ? { scimType } : syntaxCodes.includes(error.code) ? { scimType: 'invalidSyntax' } : {}),
    detail: fields ? `${error.detail} ${fields}` : error.detail,
  };
}
