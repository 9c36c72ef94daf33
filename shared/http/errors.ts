import { en } from 'zod/locales';
import * as z from 'zod/mini';
import type { $ZodError } from 'zod/v4/core';
import { refusalCodes } from '../domain/refusals.ts';

// zod/mini loads no messages: without a locale every issue reads "Invalid input". Classic zod
// installs English on first use; do the same here (and in shared/config.ts), unless a locale is
// already set. Imported by name, so the bundle carries English alone.
if (!z.config().localeError) z.config(en());

/**
 * Stable, snake_case error codes a client can switch on: every code of the domain's refusals,
 * and those only the transport says (a body that is not JSON, a method not served, a timeout).
 */
export const errorCodes = [
  ...refusalCodes,
  'invalid_json',
  'unsupported_media_type',
  'method_not_allowed',
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

/**
 * What the transport answers: the refusal table (refusals.ts) makes one of each domain refusal,
 * and the transport's own steps (routing, body parsing, limits) throw it directly.
 */
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
