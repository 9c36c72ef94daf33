import { describe, expect, it } from 'vitest';
import { completedParts, newFileUpload } from '../../functions/files/inputs.ts';
import { abortFileUpload, completeFileUpload } from '../../shared/domain/files/complete.ts';
import { startFileUpload, type FilePorts } from '../../shared/domain/files/upload.ts';
import { Conflict, Forbidden, Gone, Invalid, NotFound, RateLimited } from '../../shared/domain/refusals.ts';
import { createRequestLink, refusedResponse } from '../../shared/domain/requests/links.ts';
import { keepUntil, type RequestLink } from '../../shared/domain/requests/model.ts';
import { respondToRequest, settleAdded } from '../../shared/domain/requests/responses.ts';
import { HttpError } from '../../shared/http/errors.ts';
import { expectRefusal, expectShown, secretGroupPorts as ports, textSecret, unused } from '../support/refusalChecks.ts';

// The files and requests use cases refuse in the domain's words (issue 27), and take their own
// inputs; each expectation is the HttpError a refusal replaced, verbatim (see secrets-refusals).
// Runs on the in-memory fakes: no runtime, no Java.

describe('files', () => {
  const filePorts = (): FilePorts => ({ ...ports(), uploads: unused('uploads') });
  const body = { size_bytes: 10, salt: 'A'.repeat(22), expires_in: 3600, max_views: 1, chunk_log2: 20, passphrase: false };

  it('refuses a file beyond the plan’s limit, and a response to a link that takes none, before any upload', async () => {
    const deps = filePorts();
    const limit = 100 * 1024 * 1024;
    await expectRefusal(
      startFileUpload(newFileUpload({ ...body, size_bytes: 10 ** 12 }), null, null, deps),
      Forbidden,
      new HttpError(403, 'forbidden', `Files are limited to ${limit} bytes on your plan.`, {
        members: { reason: 'plan_limit', limit_bytes: limit },
      }),
    );
    const response = { request_id: 'rql_AAAAAAAAAAAAAAAAAAAAAA', enc: 'e', wrapped_key: 'w' };
    const input = newFileUpload({ ...body, ...response });
    expect(input.response).toEqual({ requestId: response.request_id, enc: 'e', wrappedKey: 'w' });
    await expectRefusal(
      startFileUpload(input, null, null, deps),
      Forbidden,
      new HttpError(403, 'forbidden', 'This request link takes no responses (not_found).', { members: { reason: 'request_not_found' } }),
    );
  });

  it('refuses completing or aborting an upload that is not pending', async () => {
    const deps = filePorts();
    const ref = { id: 'sec_AAAAAAAAAAAAAAAAAAAAAA', upload_id: 'upl_1', delete_token: 'hld_x' };
    const parts = completedParts({ ...ref, parts: [{ part_number: 1, etag: '"e"' }] });
    expect(parts).toEqual({ id: ref.id, uploadId: 'upl_1', deleteToken: 'hld_x', parts: [{ partNumber: 1, etag: '"e"' }] });
    await expectRefusal(
      completeFileUpload(parts, deps),
      Conflict,
      new HttpError(409, 'conflict', 'No upload of yours is pending under these ids.', { members: { reason: 'not_pending' } }),
    );
    await expectRefusal(
      abortFileUpload(parts, deps),
      NotFound,
      new HttpError(404, 'not_found', 'No upload of yours is pending under these ids.'),
    );
  });
});

describe('request links', () => {
  const link = (overrides: Partial<RequestLink> = {}): RequestLink => ({
    id: 'rql_AAAAAAAAAAAAAAAAAAAAAA',
    ownerId: 'usr_1',
    publicKey: 'k',
    kem: 'x25519',
    promptEnvelope: null,
    createdAt: 0,
    expiresAt: 10_000,
    maxResponses: 1,
    responsesLeft: 0,
    closedAt: null,
    ...overrides,
  });

  it('refuses a public key no client could seal to, named as sent', async () => {
    const input = { publicKey: Buffer.alloc(32).toString('base64url'), kem: 'x25519' as const, expiresInSeconds: 3600, maxResponses: 1 };
    await expectRefusal(
      createRequestLink(input, 'usr_1', ports() as never),
      Invalid,
      new HttpError(400, 'invalid_request', 'public_key must not be all zeros.', {
        errors: [{ path: 'body.public_key', message: 'must not be all zeros' }],
      }),
    );
    await expectRefusal(
      createRequestLink({ ...input, publicKey: 'AAAA' }, 'usr_1', ports() as never),
      Invalid,
      new HttpError(400, 'invalid_request', 'public_key must be the 32-byte x25519 public key, unpadded base64url.', {
        errors: [{ path: 'body.public_key', message: 'must be the 32-byte x25519 public key, unpadded base64url' }],
      }),
    );
  });

  it('says why a link takes no more responses: full, closed, expired, unknown, or busy for a moment', async () => {
    expectShown(
      refusedResponse(link(), 0),
      Conflict,
      new HttpError(409, 'conflict', 'This link has all the responses it asked for.', { members: { reason: 'request_full' } }),
    );
    expectShown(
      refusedResponse(link({ closedAt: 5 }), 0),
      Gone,
      new HttpError(410, 'gone', 'The requester closed this link.', { members: { reason: 'closed' } }),
    );
    expectShown(
      refusedResponse(link(), 10_000),
      Gone,
      new HttpError(410, 'gone', 'This link has expired.', { members: { reason: 'expired' } }),
    );
    expectShown(refusedResponse(null, 0), NotFound, new HttpError(404, 'not_found', 'No request link has this id.'));
    await expectRefusal(
      settleAdded('busy', 'rql_AAAAAAAAAAAAAAAAAAAAAA', ports()),
      RateLimited,
      new HttpError(429, 'rate_limited', 'Many responses are arriving at this link at once; send again in a moment.', {
        headers: { 'retry-after': '1' },
      }),
    );
  });

  it('refuses a wrapped key the link’s KEM does not make, each field named as sent', async () => {
    const deps = ports();
    const stored = link({ publicKey: Buffer.alloc(32, 9).toString('base64url'), responsesLeft: 1, expiresAt: deps.clock.now() + 60_000 });
    await deps.requests.insert(stored, keepUntil(stored));
    const { sealed } = await textSecret();
    await expectRefusal(
      respondToRequest(stored.id, { envelope: sealed.envelope, salt: sealed.salt, enc: 'AAAA', wrappedKey: 'AAAA' }, null, deps),
      Invalid,
      new HttpError(400, 'invalid_request', 'The wrapped key is not what the link’s KEM makes.', {
        errors: [
          { path: 'body.enc', message: 'must be the 32-byte encapsulated key of x25519' },
          { path: 'body.wrapped_key', message: 'must be 48 bytes: a sealed 32-byte key' },
        ],
      }),
    );
  });
});
