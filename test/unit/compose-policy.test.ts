import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { secretLimits } from '../../shared/limits.ts';
import type { PolicyRequest } from '../../shared/api/workspaces.ts';
import { parsePolicy as parseRules, policyLimitsForCompose, policyReply, recipientDomain } from '../../shared/domain/workspaces/policy.ts';
import { policyInput } from '../../functions/workspaces/inputs.ts';
import { composeLimits, durationWords, emailDomain, orList, policySentences } from '../../web/src/composePolicy.ts';

/** The policy a `PUT …/policy` body sets, as the route hands it to the domain. */
const parsePolicy = (body: PolicyRequest) => parseRules(policyInput(body));

// The compose page reads a workspace's policy without importing policy.ts (zod's error module
// would come into its bundle): what it resolves and compares must be what the server does.

const noRules = {
  max_expires_in: null,
  max_views: null,
  require_passphrase: null,
  allowed_recipient_domains: null,
  allow_files: null,
  max_file_bytes: null,
  allow_requests: null,
};
const domains = ['example.com', 'example.org', 'bücher.example', 'Mail.Example.NET.'];

const policyBody = fc.record({
  max_expires_in: fc.option(fc.integer({ min: secretLimits.expiresInSeconds.min, max: secretLimits.expiresInSeconds.max })),
  max_views: fc.option(fc.integer({ min: secretLimits.maxViews.min, max: secretLimits.maxViews.max })),
  require_passphrase: fc.option(fc.boolean()),
  allowed_recipient_domains: fc.option(fc.subarray(domains, { minLength: 1 })),
  allow_files: fc.option(fc.boolean()),
  max_file_bytes: fc.option(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER })),
  allow_requests: fc.option(fc.boolean()),
});

describe('the compose page’s reading of a policy', () => {
  it('resolves every rule as policyLimitsForCompose does, from the policy as the list answers it', () => {
    fc.assert(
      fc.property(policyBody, (body) => {
        const policy = parsePolicy(body);
        expect(composeLimits(policyReply(policy))).toEqual(policyLimitsForCompose(policy));
      }),
    );
    expect(composeLimits(noRules)).toEqual(policyLimitsForCompose({}));
  });

  it('compares an address’s domain as the server does (lower case, ASCII, no trailing dot)', () => {
    const allowed = parsePolicy({ allowed_recipient_domains: domains }).allowedRecipientDomains!;
    const addresses = [
      'ana@example.com',
      'ana@EXAMPLE.COM',
      'ana@example.com.',
      ' ana@example.org ',
      'ana@xn--bcher-kva.example',
      'ana@bücher.example',
      'ana@mail.example.net',
      'ana@sub.example.com',
      'ana@example.co',
      'ana@localhost',
      'ana@127.0.0.1',
      'no-at-sign',
      'ana@',
      'a@b@example.com',
      'ana@exa mple.com',
      'ana@example.com/x',
      'ana@example.com:25',
      'ana@%65xample.com',
    ];
    for (const address of addresses) {
      const server = recipientDomain(address);
      expect(allowed.includes(emailDomain(address) ?? ''), address).toBe(server !== null && allowed.includes(server));
    }
  });

  it('says each rule set in plain words, in the form’s order, and nothing for rules not set', () => {
    expect(policySentences(noRules)).toEqual([]);
    expect(
      policySentences({
        ...noRules,
        max_expires_in: 86_400,
        max_views: 3,
        require_passphrase: true,
        allowed_recipient_domains: ['example.com'],
        allow_files: false,
        max_file_bytes: 10 * 2 ** 20,
        allow_requests: false,
      }),
    ).toEqual([
      'Expires within 1 day at most',
      'At most 3 views',
      'A passphrase is required',
      'Recipients must be restricted to addresses at example.com',
      'Files are not allowed',
    ]);
    expect(
      policySentences({
        ...noRules,
        max_views: 1,
        allowed_recipient_domains: ['a.example', 'b.example', 'c.example'],
        max_file_bytes: 10 * 2 ** 20,
      }),
    ).toEqual(['At most 1 view', 'Recipients must be restricted to addresses at a.example, b.example or c.example', 'Files up to 10 MB']);
    expect(policySentences({ ...noRules, require_passphrase: false, allow_files: true })).toEqual([]);
  });

  it('names a duration by its largest whole unit', () => {
    expect([60, 300, 5400, 3600, 90_000, 86_400, 30 * 86_400, 61].map(durationWords)).toEqual([
      '1 minute',
      '5 minutes',
      '90 minutes',
      '1 hour',
      '25 hours',
      '1 day',
      '30 days',
      '61 seconds',
    ]);
    expect([[], ['a'], ['a', 'b']].map(orList)).toEqual(['', 'a', 'a or b']);
  });
});
