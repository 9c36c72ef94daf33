import { describe, expect, it } from 'vitest';
import { curlOptions, newTextSecret } from '../../functions/secrets/inputs.ts';
import { Forbidden, Gone, Invalid, Locked, NotFound, TooEarly, Unauthenticated } from '../../shared/domain/refusals.ts';
import { claimSecret, type ClaimProof } from '../../shared/domain/secrets/claim.ts';
import { createSecret, storeSecret } from '../../shared/domain/secrets/create.ts';
import { createCurlSecret } from '../../shared/domain/secrets/curl.ts';
import { verifyGate } from '../../shared/domain/secrets/gate.ts';
import { listOwnedSecrets } from '../../shared/domain/secrets/owner.ts';
import { readSecret, revokeSecret } from '../../shared/domain/secrets/read.ts';
import { listReceipts } from '../../shared/domain/secrets/receipts.ts';
import { revokeRecipient } from '../../shared/domain/secrets/recipients.ts';
import { sealText } from '../../shared/envelope/index.ts';
import { HttpError } from '../../shared/http/errors.ts';
import { toHttpError } from '../../shared/http/refusals.ts';
import { secretLimits } from '../../shared/limits.ts';
import { expectRefusal, refusalOf, secretGroupPorts as ports, textSecret } from '../support/refusalChecks.ts';

// The secrets use cases refuse in the domain's words (issue 27), and take their own inputs; what
// a client reads of each refusal is exactly what the HttpError it replaced said: status, code,
// detail, problem members, field errors and headers. Each expectation is that former HttpError,
// verbatim. Runs on the in-memory fakes: no runtime, no Java.

const noProof: ClaimProof = { claimToken: null, linkToken: null, recipientId: null, gateToken: null };
const view = { channel: 'api' as const };

describe('creating a secret', () => {
  it('refuses a claim verifier without its link verifier, and a not_before after the expiry, naming the fields as sent', async () => {
    const deps = ports();
    const { sealed, input } = await textSecret();
    await expectRefusal(
      createSecret({ ...input, claimVerifier: sealed.claimVerifier }, null, deps),
      Invalid,
      new HttpError(
        400,
        'invalid_request',
        'A secret with a claim_verifier needs its link_verifier too (docs/envelope.md, "Link token").',
        {
          errors: [{ path: 'body.link_verifier', message: 'required with claim_verifier' }],
        },
      ),
    );
    await expectRefusal(
      createSecret({ ...input, notBefore: deps.clock.now() + 3600 * 1000 }, null, deps),
      Invalid,
      new HttpError(400, 'invalid_request', 'not_before must be before the secret expires.', {
        errors: [{ path: 'body.not_before', message: 'must be before the expiry' }],
      }),
    );
  });

  it('refuses an envelope of our format that does not hold together', async () => {
    const { input } = await textSecret();
    const other = (await sealText('another')).salt;
    const error = await refusalOf(createSecret({ ...input, salt: other }, null, ports()));
    expect(error).toBeInstanceOf(Invalid);
    const shown = toHttpError(error);
    expect([shown.status, shown.code, shown.detail]).toEqual([400, 'invalid_request', 'The envelope is not a valid envelope v1.']);
    expect(shown.extras.errors).toEqual([{ path: 'body.envelope', message: expect.stringMatching(/^salt_mismatch: /) }]);
  });

  it('takes the body mapped into its own input: the envelope decoded, not_before in milliseconds', async () => {
    const { sealed } = await textSecret();
    const body = {
      kind: 'text' as const,
      envelope: Buffer.from(sealed.envelope).toString('base64'),
      salt: sealed.salt,
      size_bytes: sealed.envelope.length,
      expires_in: 600,
      max_views: 2,
      not_before: '2026-11-24T12:05:00Z',
      recipients: [{ label: 'ops' }],
    };
    const input = newTextSecret(body);
    expect(input).toMatchObject({
      salt: sealed.salt,
      expiresInSeconds: 600,
      maxViews: 2,
      notBefore: Date.UTC(2026, 10, 24, 12, 5),
      recipients: [{ label: 'ops' }],
    });
    expect(Buffer.from(input.envelope).equals(Buffer.from(sealed.envelope))).toBe(true);
    const { secret } = await createSecret(input, null, ports());
    expect(secret).toMatchObject({
      maxViews: 2,
      viewsLeft: 2,
      notBefore: Date.UTC(2026, 10, 24, 12, 5),
      recipients: [{ label: 'ops', restricted: false }],
    });
  });

  it('clamps curl mode’s limits, a query value that is not a whole number taking the default', async () => {
    expect(curlOptions({ expires_in: ' 120 ', max_views: '2.5' })).toEqual({ expiresInSeconds: 120, maxViews: undefined });
    const { secret } = await createCurlSecret(
      new TextEncoder().encode('hi'),
      curlOptions({ expires_in: '99999999999', max_views: '-3' }),
      ports(),
    );
    expect([secret.expiresAt - secret.createdAt, secret.maxViews]).toEqual([
      secretLimits.expiresInSeconds.max * 1000,
      secretLimits.maxViews.min,
    ]);
  });
});

describe('claiming a secret', () => {
  it('says a file still uploading is too early, with its retry time and code', async () => {
    const deps = ports();
    const upload = async () => ({ id: 'upl_1', partSize: 8 << 20, partCount: 1, chunkLog2: 20 });
    const { secret } = await storeSecret(
      { kind: 'file', sizeBytes: 10, salt: 'A'.repeat(22), expiresInSeconds: 3600, maxViews: 1, upload },
      null,
      deps,
    );
    await expectRefusal(
      claimSecret(secret.id, noProof, view, null, deps),
      TooEarly,
      new HttpError(425, 'upload_pending', 'This file is still being uploaded; try again once the upload is complete.', {
        headers: { 'retry-after': '5' },
      }),
    );
  });

  it('says a secret not open yet is too early, until when, and how long to wait', async () => {
    const deps = ports();
    const { input } = await textSecret();
    const notBefore = deps.clock.now() + 90_500;
    const { secret } = await createSecret({ ...input, notBefore }, null, deps);
    await expectRefusal(
      claimSecret(secret.id, noProof, view, null, deps),
      TooEarly,
      new HttpError(425, 'too_early', 'This secret cannot be opened yet.', {
        headers: { 'retry-after': '91' },
        members: { not_before: new Date(notBefore).toISOString() },
      }),
    );
  });

  it('refuses a link-less claim, asks a restricted link for its gate (with no challenge), and says a revoked link is gone', async () => {
    const deps = ports();
    const { input } = await textSecret({ recipients: [{ email: 'ana@example.com', restricted: true }, { label: 'bo' }] });
    const { secret, deleteToken } = await createSecret(input, 'usr_owner', deps);
    const [restricted, open] = secret.recipients!;
    await expectRefusal(
      claimSecret(secret.id, noProof, view, null, deps),
      Forbidden,
      new HttpError(403, 'recipient_required', 'This secret opens only through one of its per-recipient links.'),
    );
    await expectRefusal(
      claimSecret(secret.id, { ...noProof, recipientId: restricted!.id }, view, null, deps),
      Unauthenticated,
      new HttpError(401, 'gate_required', 'This link opens only for the address it was sent to: ask for a code first.'),
    );
    await revokeRecipient(secret.id, open!.id, { ownerId: null, deleteToken }, deps);
    await expectRefusal(
      claimSecret(secret.id, { ...noProof, recipientId: open!.id }, view, null, deps),
      Gone,
      new HttpError(410, 'recipient_revoked', 'This link was revoked by the sender; other links of the secret may still work.', {
        members: { state: 'revoked' },
      }),
    );
    const noSuchLink = new HttpError(404, 'not_found', 'This secret has no such link.');
    await expectRefusal(
      claimSecret(secret.id, { ...noProof, recipientId: 'rcp_AAAAAAAAAAAAAAAAAAAAAA' }, view, null, deps),
      NotFound,
      noSuchLink,
    );
  });

  it('asks for the claim token, counts refused ones from link holders, and locks', async () => {
    const deps = ports();
    const { sealed, input } = await textSecret({});
    const { secret } = await createSecret({ ...input, claimVerifier: sealed.claimVerifier, linkVerifier: sealed.linkVerifier }, null, deps);
    await expectRefusal(
      claimSecret(secret.id, noProof, view, null, deps),
      Forbidden,
      new HttpError(403, 'proof_required', 'This secret needs the claim token derived from its link.'),
    );
    const wrong = { ...noProof, claimToken: 'A'.repeat(43), linkToken: sealed.linkToken };
    const refusedProof = (left: number) =>
      new HttpError(403, 'proof_refused', 'The claim token does not match; check the link or the passphrase.', {
        members: { attempts_left: left },
      });
    // Without the link, a refused token counts for nothing.
    await expectRefusal(claimSecret(secret.id, { ...wrong, linkToken: null }, view, null, deps), Forbidden, refusedProof(5));
    for (let left = 4; left > 0; left--)
      await expectRefusal(claimSecret(secret.id, wrong, view, null, deps), Forbidden, refusedProof(left));
    await expectRefusal(
      claimSecret(secret.id, wrong, view, null, deps),
      Locked,
      new HttpError(423, 'locked', 'This secret is locked after too many refused attempts.'),
    );
  });

  it('says a burned secret is gone, with its state', async () => {
    const deps = ports();
    const { input } = await textSecret();
    const { secret } = await createSecret(input, null, deps);
    await claimSecret(secret.id, noProof, view, null, deps);
    await expectRefusal(
      claimSecret(secret.id, noProof, view, null, deps),
      Gone,
      new HttpError(410, 'gone', 'This secret is no longer available (burned).', { members: { state: 'burned' } }),
    );
    await expectRefusal(
      claimSecret('nope', noProof, view, null, deps),
      NotFound,
      new HttpError(404, 'not_found', 'No secret has this id.'),
    );
  });
});

describe('a secret’s other routes', () => {
  it('refuses revoking without a credential (a bearer challenge), and without the right one', async () => {
    const deps = ports();
    const { input } = await textSecret({ recipients: [{ label: 'a' }] });
    const { secret } = await createSecret(input, null, deps);
    await expectRefusal(
      revokeRecipient(secret.id, secret.recipients![0]!.id, { ownerId: null, deleteToken: null }, deps),
      Unauthenticated,
      new HttpError(401, 'unauthorized', 'Send the owner’s credential, or the secret’s delete token as `x-delete-token`.', {
        headers: { 'www-authenticate': 'Bearer' },
      }),
    );
    const notYours = new HttpError(404, 'not_found', 'No secret of yours has this link.');
    await expectRefusal(
      revokeRecipient(secret.id, secret.recipients![0]!.id, { ownerId: 'usr_other', deleteToken: null }, deps),
      NotFound,
      notYours,
    );
    await expectRefusal(
      revokeSecret(secret.id, 'hld_wrong', null, deps),
      Forbidden,
      new HttpError(403, 'forbidden', 'Only the owner, or the holder of its delete token, can revoke this secret.'),
    );
    await expectRefusal(
      readSecret(secret.id, 'rcp_AAAAAAAAAAAAAAAAAAAAAA', null, deps),
      NotFound,
      new HttpError(404, 'not_found', 'This secret has no such link.'),
    );
    await expectRefusal(
      listReceipts(secret.id, 'usr_other', 10, null, deps),
      NotFound,
      new HttpError(404, 'not_found', 'No secret of yours has this id.'),
    );
  });

  it('names a cursor it did not give out as the query’s', async () => {
    await expectRefusal(
      listOwnedSecrets('usr_1', 10, 'not-a-cursor', ports()),
      Invalid,
      new HttpError(400, 'invalid_request', 'The cursor is not valid.', {
        errors: [{ path: 'query.cursor', message: 'is not a cursor this API gave' }],
      }),
    );
  });

  it('answers a wrong gate code with the tries left, and no challenge', async () => {
    const deps = ports();
    const { input } = await textSecret({ recipients: [{ email: 'ana@example.com', restricted: true }] });
    const { secret } = await createSecret(input, null, deps);
    const error = await refusalOf(verifyGate(secret.id, secret.recipients![0]!.id, 'ana@example.com', '000000', '192.0.2.1', null, deps));
    expect(error).toBeInstanceOf(Unauthenticated);
    const shown = toHttpError(error);
    expect([shown.status, shown.code, shown.detail, shown.extras.headers]).toEqual([
      401,
      'unauthorized',
      'That code is not right, or it has expired or been used; ask for a new one if it has.',
      undefined,
    ]);
    expect(shown.extras.members).toEqual({ attempts_left: expect.any(Number) });
    await expectRefusal(
      verifyGate(secret.id, 'rcp_AAAAAAAAAAAAAAAAAAAAAA', 'ana@example.com', '000000', '192.0.2.1', null, deps),
      NotFound,
      new HttpError(404, 'not_found', 'No secret has this id, or it has no such link.'),
    );
  });
});
