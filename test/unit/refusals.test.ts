import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import {
  Conflict,
  Forbidden,
  Gone,
  Invalid,
  Locked,
  Misdirected,
  NotFound,
  RateLimited,
  TooEarly,
  TooLarge,
  Unauthenticated,
  refusalCodes,
} from '../../shared/domain/refusals.ts';
import { errorCodes, HttpError, problemBody } from '../../shared/http/errors.ts';
import { fromRefusal, scimErrorBody, toHttpError } from '../../shared/http/refusals.ts';

// The one table from the domain's refusals to HTTP: every kind's status, the headers it needs,
// and the problem (or SCIM error message) a client reads.

describe('the refusal table', () => {
  it('gives each kind its status and default code', () => {
    const cases: Array<[Error, number, string]> = [
      [new Invalid('bad'), 400, 'invalid_request'],
      [new Unauthenticated('who?'), 401, 'unauthorized'],
      [new Forbidden('no'), 403, 'forbidden'],
      [new NotFound('none'), 404, 'not_found'],
      [new Conflict('taken'), 409, 'conflict'],
      [new Gone('ended'), 410, 'gone'],
      [new TooLarge('big'), 413, 'payload_too_large'],
      [new Misdirected('elsewhere'), 421, 'misdirected'],
      [new Locked('locked'), 423, 'locked'],
      [new TooEarly('not yet', 7), 425, 'too_early'],
      [new RateLimited('slow down', 3), 429, 'rate_limited'],
    ];
    for (const [refusal, status, code] of cases) {
      const error = toHttpError(refusal);
      expect([error.status, error.code, error.detail], refusal.message).toEqual([status, code, refusal.message]);
    }
  });

  it('says when to retry, and which credential a 401 asks for', () => {
    expect(fromRefusal(new TooEarly('not yet', 42, { code: 'upload_pending' })).extras.headers).toEqual({ 'retry-after': '42' });
    expect(fromRefusal(new RateLimited('slow down', 5)).extras.headers).toEqual({ 'retry-after': '5' });
    expect(fromRefusal(new Unauthenticated('who?', { challenge: 'bearer' })).extras.headers).toEqual({ 'www-authenticate': 'Bearer' });
    expect(fromRefusal(new Unauthenticated('key?', { challenge: 'directory' })).extras.headers).toEqual({
      'www-authenticate': 'Bearer realm="scim"',
    });
    expect(fromRefusal(new Unauthenticated('who?', { code: 'gate_required' })).extras.headers).toBeUndefined();
  });

  it('renders field issues at their place in the request, and facts as members of the problem', () => {
    const refusal = new Invalid('The request body is not valid.', [
      { field: 'email', message: 'is a member already' },
      { field: 'cursor', message: 'is not a cursor', in: 'query' },
    ]);
    const body = problemBody(fromRefusal(refusal), 'req_1');
    expect(body).toEqual({
      type: 'https://hushlink.dev/problems/invalid-request',
      title: 'Bad Request',
      status: 400,
      detail: 'The request body is not valid.',
      code: 'invalid_request',
      errors: [
        { path: 'body.email', message: 'is a member already' },
        { path: 'query.cursor', message: 'is not a cursor' },
      ],
      request_id: 'req_1',
    });
    const forbidden = problemBody(fromRefusal(new Forbidden('Team only.', { facts: { reason: 'plan', plan: 'free', required: 'team' } })));
    expect(forbidden).toMatchObject({ status: 403, code: 'forbidden', reason: 'plan', plan: 'free', required: 'team' });
  });

  it('shows a refusal to a SCIM client in its own shape, with its scimType', () => {
    const uniqueness = scimErrorBody(fromRefusal(new Conflict('userName is taken.', { facts: { scimType: 'uniqueness' } })));
    expect(uniqueness).toEqual({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
      status: '409',
      scimType: 'uniqueness',
      detail: 'userName is taken.',
    });
    expect(scimErrorBody(fromRefusal(new Invalid('Bad.', [{ field: 'userName', message: 'is required' }])))).toEqual({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
      status: '400',
      scimType: 'invalidSyntax',
      detail: 'Bad. body.userName is required',
    });
  });

  it('passes transport errors through, reads zod errors as a body refused, and hides anything else behind a bare 500', () => {
    const transport = new HttpError(405, 'method_not_allowed', 'no', { headers: { allow: 'GET' } });
    expect(toHttpError(transport)).toBe(transport);
    const parsed = z.object({ name: z.string() }).safeParse({});
    expect(toHttpError(parsed.error)).toMatchObject({ status: 400, code: 'invalid_request' });
    const hidden = toHttpError(new Error('ConditionalCheckFailed on pk=USER#…'));
    expect([hidden.status, hidden.code, hidden.detail]).toEqual([
      500,
      'internal',
      'Something went wrong on our side; the request was not completed.',
    ]);
  });

  it('has every refusal code among the codes the API document lists', () => {
    for (const code of refusalCodes) expect(errorCodes).toContain(code);
  });
});
