import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import type { PolicyRequest } from '../../shared/api/workspaces.ts';
import { Problem } from '../../shared/api/output.ts';
import { problemBody } from '../../shared/http/errors.ts';
import { toHttpError } from '../../shared/http/refusals.ts';
import { Forbidden, Invalid } from '../../shared/domain/refusals.ts';
import { policyInput } from '../../functions/workspaces/inputs.ts';
import { secretLimits, workspaceLimits } from '../../shared/limits.ts';
import type { WorkspacePolicy } from '../../shared/domain/workspaces/model.ts';
import {
  assertPolicy,
  parsePolicy as parseRules,
  policyLimitsForCompose,
  policyReply,
  policyRules,
  policyViolations,
  type PolicyCandidate,
  type PolicyRecipient,
  type PolicyRule,
} from '../../shared/domain/workspaces/policy.ts';

const day = 24 * 3600;

/** The policy a `PUT …/policy` body sets, as the route hands it to the domain. */
const parsePolicy = (body: PolicyRequest) => parseRules(policyInput(body));

/** What parsePolicy threw, as the 400's entries. */
function refusal(body: PolicyRequest): { path: string; message: string }[] {
  try {
    parsePolicy(body);
  } catch (error) {
    expect(error).toBeInstanceOf(Invalid);
    const http = toHttpError(error);
    expect([http.status, http.code]).toEqual([400, 'invalid_request']);
    return http.extras.errors ?? [];
  }
  throw new Error(`parsePolicy accepted ${JSON.stringify(body)}`);
}
const refusedPaths = (body: PolicyRequest) => refusal(body).map((entry) => entry.path);
const domainsOf = (allowed_recipient_domains: string[]) => parsePolicy({ allowed_recipient_domains }).allowedRecipientDomains;

const restricted = (email: string): PolicyRecipient => ({ email, restricted: true });
const text = (fields: Partial<Extract<PolicyCandidate, { kind: 'text' }>> = {}): PolicyCandidate => ({
  kind: 'text',
  expiresIn: day,
  maxViews: 1,
  passphrase: false,
  recipients: [],
  ...fields,
});
const file = (fields: Partial<Extract<PolicyCandidate, { kind: 'file' }>> = {}): PolicyCandidate => ({
  kind: 'file',
  expiresIn: day,
  maxViews: 1,
  passphrase: false,
  recipients: [],
  sizeBytes: 1024,
  ...fields,
});
const request = (expiresIn = day): PolicyCandidate => ({ kind: 'request', expiresIn });
const brokenRules = (policy: WorkspacePolicy, candidate: PolicyCandidate) =>
  policyViolations(policy, candidate).map((violation) => [violation.rule, violation.field]);

describe('parsePolicy', () => {
  it('reads an empty body, or nulls, as a policy with no rules', () => {
    expect(parsePolicy({})).toEqual({});
    const nulls = {
      max_expires_in: null,
      max_views: null,
      require_passphrase: null,
      allowed_recipient_domains: null,
      allow_files: null,
      max_file_bytes: null,
      allow_requests: null,
    };
    const policy = parsePolicy(nulls);
    expect(policy).toEqual({});
    expect(Object.keys(policy)).toEqual([]);
  });

  it('keeps every rule as given, false as well as true', () => {
    expect(
      parsePolicy({
        max_expires_in: 3600,
        max_views: 3,
        require_passphrase: true,
        allowed_recipient_domains: ['example.com'],
        allow_files: false,
        max_file_bytes: 1000,
        allow_requests: true,
      }),
    ).toEqual({
      maxExpiresIn: 3600,
      maxViews: 3,
      requirePassphrase: true,
      allowedRecipientDomains: ['example.com'],
      allowFiles: false,
      maxFileBytes: 1000,
      allowRequests: true,
    });
    expect(parsePolicy({ require_passphrase: false, allow_files: true, allow_requests: false })).toEqual({
      requirePassphrase: false,
      allowFiles: true,
      allowRequests: false,
    });
  });

  it('takes the bounds of a secret: expiry 60 s to 30 days, 1 to 100 views, files of at least 1 byte', () => {
    const { expiresInSeconds, maxViews } = secretLimits;
    expect(parsePolicy({ max_expires_in: expiresInSeconds.min, max_views: maxViews.min, max_file_bytes: 1 })).toEqual({
      maxExpiresIn: 60,
      maxViews: 1,
      maxFileBytes: 1,
    });
    expect(parsePolicy({ max_expires_in: expiresInSeconds.max, max_views: maxViews.max, max_file_bytes: Number.MAX_SAFE_INTEGER })).toEqual(
      {
        maxExpiresIn: 30 * day,
        maxViews: 100,
        maxFileBytes: Number.MAX_SAFE_INTEGER,
      },
    );
    expect(refusedPaths({ max_expires_in: 59 })).toEqual(['body.max_expires_in']);
    expect(refusedPaths({ max_expires_in: 30 * day + 1 })).toEqual(['body.max_expires_in']);
    expect(refusedPaths({ max_expires_in: 3600.5 })).toEqual(['body.max_expires_in']);
    expect(refusedPaths({ max_views: 0 })).toEqual(['body.max_views']);
    expect(refusedPaths({ max_views: 101 })).toEqual(['body.max_views']);
    expect(refusedPaths({ max_file_bytes: 0 })).toEqual(['body.max_file_bytes']);
    expect(refusedPaths({ max_file_bytes: 2 ** 53 })).toEqual(['body.max_file_bytes']);
    expect(refusal({ max_views: 101 })[0]!.message).toBe('must be a whole number from 1 to 100');
    expect(refusal({ max_file_bytes: 0 })[0]!.message).toBe('must be a whole number, at least 1');
  });

  it('reports every problem at once', () => {
    expect(
      refusedPaths({
        max_expires_in: 1,
        max_views: 1000,
        max_file_bytes: -1,
        allowed_recipient_domains: ['example.com', '*.example.org', 'localhost'],
      }),
    ).toEqual([
      'body.max_expires_in',
      'body.max_views',
      'body.max_file_bytes',
      'body.allowed_recipient_domains.1',
      'body.allowed_recipient_domains.2',
    ]);
  });
});

describe('allowed recipient domains', () => {
  it('are lower-cased, without a trailing dot or surrounding spaces, deduplicated and sorted', () => {
    expect(domainsOf(['Example.COM', 'example.com.', ' example.com ', 'corp.example', 'A.Example.com'])).toEqual([
      'a.example.com',
      'corp.example',
      'example.com',
    ]);
  });

  it('are kept in their ASCII form, so a Unicode spelling and its punycode are one domain', () => {
    expect(domainsOf(['Bücher.example', 'xn--bcher-kva.example', 'BÜCHER.example.'])).toEqual(['xn--bcher-kva.example']);
    // UTS #46 maps the ideographic full stop to a dot, as browsers do.
    expect(domainsOf(['example。com'])).toEqual(['example.com']);
  });

  it('refuse wildcards and leading dots, saying subdomains are not included', () => {
    for (const domain of ['*.example.com', '*', '.example.com']) {
      const [entry] = refusal({ allowed_recipient_domains: [domain] });
      expect(entry!.path).toBe('body.allowed_recipient_domains.0');
      expect(entry!.message).toMatch(/subdomains are not included/);
    }
  });

  it('refuse anything that is not a domain an address can have', () => {
    const refused = [
      '',
      '   ',
      'localhost',
      'example',
      '1.2.3.4',
      '0x7f.1',
      '[::1]',
      'a_b.example.com',
      'ana@example.com',
      'example.com:25',
      'example.com/x',
      'example.com?x',
      'exa mple.com',
      '%65xample.com',
      '-example.com',
      'example-.com',
      'example..com',
      'xn--zz.com',
      `${'a'.repeat(64)}.com`,
      `${'a.'.repeat(126)}com`,
    ];
    for (const domain of refused)
      expect(refusedPaths({ allowed_recipient_domains: [domain] }), domain).toEqual(['body.allowed_recipient_domains.0']);
    expect(domainsOf([`${'a'.repeat(63)}.com`])).toEqual([`${'a'.repeat(63)}.com`]);
  });

  it('must name at least one domain: null is what allows any', () => {
    expect(refusal({ allowed_recipient_domains: [] })).toEqual([
      { path: 'body.allowed_recipient_domains', message: 'must name at least one domain (null allows any)' },
    ]);
  });

  it(`are at most ${workspaceLimits.allowedRecipientDomains}, counted once spelled alike`, () => {
    const fifty = Array.from({ length: workspaceLimits.allowedRecipientDomains }, (_, i) => `d${i}.example`);
    expect(domainsOf(fifty)).toHaveLength(50);
    expect(domainsOf([...fifty, 'D0.example.'])).toHaveLength(50);
    expect(refusedPaths({ allowed_recipient_domains: [...fifty, 'd50.example'] })).toEqual(['body.allowed_recipient_domains']);
  });
});

describe('policyReply and the compose page', () => {
  it('answers every rule, null where none is set', () => {
    expect(policyReply({})).toEqual({
      max_expires_in: null,
      max_views: null,
      require_passphrase: null,
      allowed_recipient_domains: null,
      allow_files: null,
      max_file_bytes: null,
      allow_requests: null,
      scim_admin_group: null,
    });
    expect(policyReply({ maxViews: 2, allowFiles: false, allowedRecipientDomains: ['example.com'] })).toMatchObject({
      max_views: 2,
      allow_files: false,
      allowed_recipient_domains: ['example.com'],
    });
  });

  it('round-trips through parsePolicy', () => {
    const policy = parsePolicy({
      max_expires_in: 600,
      require_passphrase: false,
      allowed_recipient_domains: ['B.example', 'a.example'],
      allow_requests: false,
    });
    expect(parsePolicy(policyReply(policy))).toEqual(policy);
  });

  it('gives the compose page every limit resolved: the service’s where the policy sets none', () => {
    expect(policyLimitsForCompose({})).toEqual({
      max_expires_in: secretLimits.expiresInSeconds.max,
      max_views: secretLimits.maxViews.max,
      require_passphrase: false,
      allowed_recipient_domains: null,
      allow_files: true,
      max_file_bytes: null,
      allow_requests: true,
    });
    expect(
      policyLimitsForCompose({
        maxExpiresIn: 3600,
        maxViews: 1,
        requirePassphrase: true,
        allowedRecipientDomains: ['example.com'],
        allowFiles: false,
        maxFileBytes: 5,
        allowRequests: false,
      }),
    ).toEqual({
      max_expires_in: 3600,
      max_views: 1,
      require_passphrase: true,
      allowed_recipient_domains: ['example.com'],
      allow_files: false,
      max_file_bytes: 5,
      allow_requests: false,
    });
  });
});

describe('policyViolations, each rule alone', () => {
  it('no rules: anything goes', () => {
    for (const candidate of [text({ expiresIn: 30 * day, maxViews: 100 }), file({ sizeBytes: 2 ** 40 }), request(30 * day)])
      expect(policyViolations({}, candidate)).toEqual([]);
  });

  it('max_expires_in: exactly the maximum passes, a second more does not, for texts, files and request links', () => {
    const policy = { maxExpiresIn: day };
    for (const candidate of [text({ expiresIn: day }), file({ expiresIn: day }), request(day)])
      expect(policyViolations(policy, candidate)).toEqual([]);
    for (const candidate of [text({ expiresIn: day + 1 }), file({ expiresIn: day + 1 }), request(day + 1)]) {
      expect(policyViolations(policy, candidate)).toEqual([
        { field: 'expires_in', rule: 'max_expires_in', message: 'at most 86400 seconds in this workspace' },
      ]);
    }
  });

  it('max_views: at the maximum passes, above it does not; a request link has no views', () => {
    const policy = { maxViews: 3 };
    expect(policyViolations(policy, text({ maxViews: 3 }))).toEqual([]);
    expect(policyViolations(policy, text({ maxViews: 4 }))).toEqual([
      { field: 'max_views', rule: 'max_views', message: 'at most 3 views in this workspace' },
    ]);
    expect(brokenRules(policy, file({ maxViews: 4 }))).toEqual([['max_views', 'max_views']]);
    expect(policyViolations(policy, request())).toEqual([]);
  });

  it('require_passphrase: read from the envelope’s flag; a file’s from its declaration, unchecked while unknown', () => {
    const policy = { requirePassphrase: true };
    expect(policyViolations(policy, text({ passphrase: true }))).toEqual([]);
    expect(policyViolations(policy, text({ passphrase: false }))).toEqual([
      { field: 'envelope', rule: 'require_passphrase', message: 'must be sealed with a passphrase in this workspace' },
    ]);
    expect(policyViolations(policy, file({ passphrase: null }))).toEqual([]);
    expect(policyViolations(policy, file({ passphrase: true }))).toEqual([]);
    expect(brokenRules(policy, file({ passphrase: false }))).toEqual([['require_passphrase', 'passphrase']]);
    expect(policyViolations(policy, request())).toEqual([]);
    expect(policyViolations({ requirePassphrase: false }, text({ passphrase: false }))).toEqual([]);
  });

  it('allow_files: false refuses files only', () => {
    const policy = { allowFiles: false };
    expect(policyViolations(policy, file())).toEqual([
      { field: 'workspace_id', rule: 'allow_files', message: 'files are not allowed in this workspace' },
    ]);
    expect(policyViolations(policy, text())).toEqual([]);
    expect(policyViolations(policy, request())).toEqual([]);
    expect(policyViolations({ allowFiles: true }, file())).toEqual([]);
  });

  it('max_file_bytes: a file of exactly the maximum passes, a byte more does not', () => {
    const policy = { maxFileBytes: 1000 };
    expect(policyViolations(policy, file({ sizeBytes: 1000 }))).toEqual([]);
    expect(policyViolations(policy, file({ sizeBytes: 1001 }))).toEqual([
      { field: 'size_bytes', rule: 'max_file_bytes', message: 'at most 1000 bytes in this workspace' },
    ]);
    expect(policyViolations({ maxFileBytes: 1 }, text())).toEqual([]);
  });

  it('allow_requests: false refuses request links only', () => {
    const policy = { allowRequests: false };
    expect(policyViolations(policy, request())).toEqual([
      { field: 'workspace_id', rule: 'allow_requests', message: 'request links are not allowed in this workspace' },
    ]);
    expect(policyViolations(policy, text())).toEqual([]);
    expect(policyViolations(policy, file())).toEqual([]);
    expect(policyViolations({ allowRequests: true }, request())).toEqual([]);
  });
});

describe('allowed_recipient_domains on what is sent', () => {
  const policy = parsePolicy({ allowed_recipient_domains: ['example.com', 'Bücher.example'] });

  it('passes restricted recipients at the domains, whatever the address’s case or trailing dot', () => {
    const recipients = [
      restricted('ana@example.com'),
      restricted('Bo@EXAMPLE.COM'),
      restricted('cy@example.com.'),
      restricted('di@xn--bcher-kva.example'),
      restricted('ed@bücher.example'),
    ];
    expect(policyViolations(policy, text({ recipients }))).toEqual([]);
    expect(policyViolations(policy, file({ recipients }))).toEqual([]);
  });

  it('refuses a secret with no recipients: a bare link opens for whoever holds it', () => {
    expect(policyViolations(policy, text())).toEqual([
      {
        field: 'recipients',
        rule: 'allowed_recipient_domains',
        message: 'this workspace sends only to restricted recipients at its allowed domains',
      },
    ]);
    expect(brokenRules(policy, file())).toEqual([['allowed_recipient_domains', 'recipients']]);
  });

  it('names each recipient that is unrestricted, without an address, or at another domain, subdomains included', () => {
    const recipients: PolicyRecipient[] = [
      restricted('ana@example.com'),
      { email: 'bo@example.com' },
      { email: 'cy@example.com', restricted: false },
      restricted('di@mail.example.com'),
      restricted('ed@example.com.evil.test'),
      {},
      restricted('fy@example.org'),
      restricted('not an address'),
    ];
    expect(brokenRules(policy, text({ recipients }))).toEqual([
      ['allowed_recipient_domains', 'recipients.1.restricted'],
      ['allowed_recipient_domains', 'recipients.2.restricted'],
      ['allowed_recipient_domains', 'recipients.3.email'],
      ['allowed_recipient_domains', 'recipients.4.email'],
      ['allowed_recipient_domains', 'recipients.5.restricted'],
      ['allowed_recipient_domains', 'recipients.5.email'],
      ['allowed_recipient_domains', 'recipients.6.email'],
      ['allowed_recipient_domains', 'recipients.7.email'],
    ]);
  });

  it('do not apply to request links, which have no recipients', () => {
    expect(policyViolations(policy, request())).toEqual([]);
  });

  it('do not apply without the rule: unrestricted recipients and bare links pass', () => {
    expect(policyViolations({ maxViews: 5 }, text({ recipients: [{ email: 'ana@anywhere.test' }] }))).toEqual([]);
  });
});

describe('several rules at once', () => {
  const strict = parsePolicy({
    max_expires_in: 3600,
    max_views: 1,
    require_passphrase: true,
    allowed_recipient_domains: ['example.com'],
    allow_files: false,
    max_file_bytes: 100,
    allow_requests: false,
  });

  it('reports every rule a file breaks, each at its field', () => {
    const candidate = file({
      expiresIn: 7200,
      maxViews: 2,
      passphrase: false,
      recipients: [restricted('ana@example.com'), { email: 'bo@other.test' }],
      sizeBytes: 101,
    });
    expect(brokenRules(strict, candidate)).toEqual([
      ['allow_files', 'workspace_id'],
      ['max_expires_in', 'expires_in'],
      ['max_views', 'max_views'],
      ['max_file_bytes', 'size_bytes'],
      ['require_passphrase', 'passphrase'],
      ['allowed_recipient_domains', 'recipients.1.restricted'],
      ['allowed_recipient_domains', 'recipients.1.email'],
    ]);
  });

  it('reports a text’s and a request link’s', () => {
    expect(brokenRules(strict, text({ expiresIn: 3601, maxViews: 5 }))).toEqual([
      ['max_expires_in', 'expires_in'],
      ['max_views', 'max_views'],
      ['require_passphrase', 'envelope'],
      ['allowed_recipient_domains', 'recipients'],
    ]);
    expect(brokenRules(strict, request(3601))).toEqual([
      ['allow_requests', 'workspace_id'],
      ['max_expires_in', 'expires_in'],
    ]);
  });

  it('passes what keeps to all of them', () => {
    expect(
      policyViolations(strict, text({ expiresIn: 3600, maxViews: 1, passphrase: true, recipients: [restricted('ana@example.com')] })),
    ).toEqual([]);
  });
});

describe('assertPolicy', () => {
  it('does nothing when the policy allows it', () => {
    expect(() => assertPolicy({ maxViews: 2 }, text({ maxViews: 2 }))).not.toThrow();
  });

  it('throws 403 policy_violation: one errors entry per violation, their rules alongside, a valid problem', () => {
    let thrown: unknown;
    try {
      assertPolicy({ maxViews: 1, requirePassphrase: true }, text({ maxViews: 2 }));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Forbidden);
    const error = toHttpError(thrown);
    expect([error.status, error.code, error.detail]).toEqual([403, 'policy_violation', 'This workspace’s policy does not allow this.']);
    const body = problemBody(error);
    expect(body.errors).toEqual([
      { path: 'body.max_views', message: 'at most 1 views in this workspace' },
      { path: 'body.envelope', message: 'must be sealed with a passphrase in this workspace' },
    ]);
    expect(body.rules).toEqual(['max_views', 'require_passphrase']);
    // Problem's entries are {path, message} only: the contract check would refuse a `rule` in them.
    expect(() => z.parse(Problem, body)).not.toThrow();
  });
});

describe('properties (fast-check)', () => {
  const pool = ['example.com', 'mail.example.com', 'corp.example', 'example.org'];
  const policyBody: fc.Arbitrary<PolicyRequest> = fc.record(
    {
      max_expires_in: fc.option(fc.integer({ min: 60, max: 30 * day })),
      max_views: fc.option(fc.integer({ min: 1, max: 100 })),
      require_passphrase: fc.option(fc.boolean()),
      allowed_recipient_domains: fc.option(
        fc
          .subarray(pool, { minLength: 1 })
          .map((domains) => domains.map((domain) => (domain.length % 2 ? domain.toUpperCase() : `${domain}.`))),
      ),
      allow_files: fc.option(fc.boolean()),
      max_file_bytes: fc.option(fc.integer({ min: 1, max: 10_000 })),
      allow_requests: fc.option(fc.boolean()),
    },
    { requiredKeys: [] },
  );
  const policyArb = policyBody.map(parsePolicy);
  const recipientArb: fc.Arbitrary<PolicyRecipient> = fc.record(
    {
      email: fc
        .tuple(fc.constantFrom(...pool, 'other.test'), fc.boolean())
        .map(([domain, upper]) => `ana@${upper ? domain.toUpperCase() : domain}`),
      restricted: fc.boolean(),
    },
    { requiredKeys: [] },
  );
  const candidateArb: fc.Arbitrary<PolicyCandidate> = fc.oneof(
    fc.record({
      kind: fc.constant('text' as const),
      expiresIn: fc.integer({ min: 60, max: 30 * day }),
      maxViews: fc.integer({ min: 1, max: 100 }),
      passphrase: fc.boolean(),
      recipients: fc.array(recipientArb, { maxLength: 4 }),
    }),
    fc.record({
      kind: fc.constant('file' as const),
      expiresIn: fc.integer({ min: 60, max: 30 * day }),
      maxViews: fc.integer({ min: 1, max: 100 }),
      passphrase: fc.option(fc.boolean()),
      recipients: fc.array(recipientArb, { maxLength: 4 }),
      sizeBytes: fc.integer({ min: 1, max: 20_000 }),
    }),
    fc.record({ kind: fc.constant('request' as const), expiresIn: fc.integer({ min: 60, max: 30 * day }) }),
  );

  /** Which rules break, worked out afresh from the rules' wording, not from the module's code. */
  function oracle(policy: WorkspacePolicy, candidate: PolicyCandidate): Set<PolicyRule> {
    const broken = new Set<PolicyRule>();
    if (policy.maxExpiresIn !== undefined && candidate.expiresIn > policy.maxExpiresIn) broken.add('max_expires_in');
    if (candidate.kind === 'request') {
      if (policy.allowRequests === false) broken.add('allow_requests');
      return broken;
    }
    if (policy.maxViews !== undefined && candidate.maxViews > policy.maxViews) broken.add('max_views');
    if (policy.requirePassphrase && candidate.passphrase === false) broken.add('require_passphrase');
    const domains = policy.allowedRecipientDomains;
    const atAllowed = (recipient: PolicyRecipient) =>
      recipient.restricted === true && recipient.email !== undefined && domains!.includes(recipient.email.split('@')[1]!.toLowerCase());
    if (domains && (candidate.recipients.length === 0 || !candidate.recipients.every(atAllowed))) broken.add('allowed_recipient_domains');
    if (candidate.kind === 'file') {
      if (policy.allowFiles === false) broken.add('allow_files');
      if (policy.maxFileBytes !== undefined && candidate.sizeBytes > policy.maxFileBytes) broken.add('max_file_bytes');
    }
    return broken;
  }

  it('violations are non-empty exactly when a rule is broken, and name exactly the broken rules', () => {
    fc.assert(
      fc.property(policyArb, candidateArb, (policy, candidate) => {
        const violations = policyViolations(policy, candidate);
        const expected = oracle(policy, candidate);
        expect(violations.length > 0).toBe(expected.size > 0);
        expect(new Set(violations.map((violation) => violation.rule))).toEqual(expected);
        for (const violation of violations) expect(violation.field).toMatch(/^[a-z_]+(\.\d+\.(email|restricted))?$/);
        if (expected.size > 0) expect(() => assertPolicy(policy, candidate)).toThrow(Forbidden);
      }),
      { numRuns: 500 },
    );
  });

  /** A candidate that keeps to every rule of `policy`, anywhere within what it allows. */
  const satisfying = (policy: WorkspacePolicy): fc.Arbitrary<PolicyCandidate> => {
    const expiresIn = fc.integer({ min: 60, max: policy.maxExpiresIn ?? 30 * day });
    const maxViews = fc.integer({ min: 1, max: policy.maxViews ?? 100 });
    const passphrase = policy.requirePassphrase ? fc.constant(true) : fc.boolean();
    const allowed = policy.allowedRecipientDomains;
    const recipients = allowed
      ? fc.array(
          fc
            .tuple(fc.constantFrom(...allowed), fc.boolean())
            .map(([domain, upper]) => restricted(`ana@${upper ? domain.toUpperCase() : domain}`)),
          { minLength: 1, maxLength: 4 },
        )
      : fc.array(recipientArb, { maxLength: 4 });
    const kinds: fc.Arbitrary<PolicyCandidate>[] = [
      fc.record({ kind: fc.constant('text' as const), expiresIn, maxViews, passphrase, recipients }),
    ];
    if (policy.allowFiles !== false) {
      const sizeBytes = fc.integer({ min: 1, max: policy.maxFileBytes ?? 2 ** 40 });
      kinds.push(fc.record({ kind: fc.constant('file' as const), expiresIn, maxViews, passphrase, recipients, sizeBytes }));
    }
    if (policy.allowRequests !== false) kinds.push(fc.record({ kind: fc.constant('request' as const), expiresIn }));
    return fc.oneof(...kinds);
  };

  it('a candidate that keeps to every rule has no violations, and assertPolicy lets it through', () => {
    fc.assert(
      fc.property(
        policyArb.chain((policy) => fc.tuple(fc.constant(policy), satisfying(policy))),
        ([policy, candidate]) => {
          expect(policyViolations(policy, candidate)).toEqual([]);
          expect(() => assertPolicy(policy, candidate)).not.toThrow();
        },
      ),
      { numRuns: 500 },
    );
  });

  it('parsePolicy of policyReply gives the same policy back', () => {
    fc.assert(
      fc.property(policyBody, (body) => {
        const policy = parsePolicy(body);
        expect(parsePolicy(policyReply(policy))).toEqual(policy);
        // Every rule, and the SCIM admin Group (issue 30), which is an owner's setting rather than a rule.
        expect(Object.keys(policyReply(policy)).sort()).toEqual([...policyRules, 'scim_admin_group'].sort());
      }),
    );
  });
});
