import { Readable } from 'node:stream';
import {
  CloudFrontClient,
  CNAMEAlreadyExists,
  CreateDistributionTenantCommand,
  DeleteDistributionTenantCommand,
  EntityAlreadyExists,
  EntityNotFound,
  GetDistributionTenantCommand,
  GetManagedCertificateDetailsCommand,
  InvalidArgument,
  PreconditionFailed,
  ResourceNotDisabled,
  UpdateDistributionTenantCommand,
  type DistributionTenant,
} from '@aws-sdk/client-cloudfront';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CloudFrontHostnames, cloudFrontHostnames, tenantNameOf } from '../../shared/adapters/cloudfrontTenants.ts';

// CloudFront cannot run here: what matters is the exact requests the adapter sends (ids, ETags,
// the certificate request, Enabled flags) and how it reads CloudFront's refusals.

// The one client the adapter under test sends through; the wire-format tests below use their own.
const client = new CloudFrontClient({ region: 'us-east-1' });
const cloudfront = mockClient(client);
afterAll(() => cloudfront.restore());
afterEach(() => cloudfront.reset());

const DISTRIBUTION = {
  distributionId: 'E2MULTITENANT01',
  connectionGroupId: 'cg_2whCJoXMYCjHcxaLGrkllvyABC',
  routingEndpoint: 'd111111abcdef8.cloudfront.net',
};
const CLAIM = { domainId: 'dom_AAAAAAAAAAAAAAAAAAAAAA', hostname: 'secrets.acme.example' };
const NAME = tenantNameOf(DISTRIBUTION.distributionId, CLAIM);
const TENANT_ID = 'dt_2x9GhoK0TZRsohWzv1b9It8J1AB';
const CERTIFICATE = 'arn:aws:acm:us-east-1:123456789012:certificate/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';

const hosting = () => new CloudFrontHostnames(client, DISTRIBUTION);

/** The claim's tenant as CloudFront answers it: just created unless told otherwise. */
const tenant = (changes: Partial<DistributionTenant> = {}): DistributionTenant => ({
  Id: TENANT_ID,
  DistributionId: DISTRIBUTION.distributionId,
  Name: NAME,
  Arn: `arn:aws:cloudfront::123456789012:distribution-tenant/${TENANT_ID}`,
  Domains: [{ Domain: CLAIM.hostname, Status: 'inactive' }],
  ConnectionGroupId: DISTRIBUTION.connectionGroupId,
  Enabled: true,
  Status: 'InProgress',
  ...changes,
});
/** Deployed, its domain active, the issued certificate its own: serving links. */
const liveTenant = (changes: Partial<DistributionTenant> = {}) =>
  tenant({
    Status: 'Deployed',
    Domains: [{ Domain: CLAIM.hostname, Status: 'active' }],
    Customizations: { Certificate: { Arn: CERTIFICATE } },
    ...changes,
  });

const notFound = () =>
  new EntityNotFound({ message: 'The specified distribution tenant does not exist.', $metadata: { httpStatusCode: 404 } });
const stale = () =>
  new PreconditionFailed({ message: 'The If-Match version is missing or not valid.', $metadata: { httpStatusCode: 412 } });
const throttled = () => Object.assign(new Error('Rate exceeded'), { name: 'Throttling', $metadata: { httpStatusCode: 400 } });
const certificate = (status: string, arn: string | undefined = CERTIFICATE) => ({
  ManagedCertificateDetails: {
    CertificateStatus: status as 'issued',
    ValidationTokenHost: 'cloudfront' as const,
    ...(arn ? { CertificateArn: arn } : {}),
  },
});

const inputs = <T extends object>(command: new (input: T) => unknown) =>
  cloudfront.commandCalls(command as never).map((call) => (call.args[0] as { input: T }).input);

describe('tenantNameOf', () => {
  it('names a claim by its hostname and a digest of distribution and domain id, in letters, digits and hyphens', () => {
    expect(NAME).toMatch(/^secrets-acme-example-[0-9a-f]{16}$/);
    expect(tenantNameOf(DISTRIBUTION.distributionId, { ...CLAIM })).toBe(NAME);
    // A later claim of the same hostname, or another stage's, is another tenant.
    expect(tenantNameOf(DISTRIBUTION.distributionId, { ...CLAIM, domainId: 'dom_BBBBBBBBBBBBBBBBBBBBBB' })).not.toBe(NAME);
    expect(tenantNameOf('E9OTHERSTAGE', CLAIM)).not.toBe(NAME);
  });

  it('stays within 64 characters for the longest hostnames, punycode included', () => {
    const long = { domainId: CLAIM.domainId, hostname: `${'a'.repeat(63)}.${'b'.repeat(63)}.xn--bcher-kva.example` };
    const name = tenantNameOf(DISTRIBUTION.distributionId, long);
    expect(name.length).toBeLessThanOrEqual(64);
    expect(name).toMatch(/^[a-z0-9][a-z0-9-]*[a-z0-9]$/);
    expect(tenantNameOf(DISTRIBUTION.distributionId, { domainId: CLAIM.domainId, hostname: 'xn--bcher-kva.example' })).toMatch(
      /^xn-bcher-kva-example-/,
    );
  });
});

describe('serve', () => {
  it('creates the claim’s tenant in the connection group with a certificate CloudFront validates over HTTP', async () => {
    cloudfront.on(GetDistributionTenantCommand).rejects(notFound());
    cloudfront.on(CreateDistributionTenantCommand).resolves({ DistributionTenant: tenant(), ETag: 'E1' });
    cloudfront.on(GetManagedCertificateDetailsCommand).resolves(certificate('pending-validation', undefined));

    expect(await hosting().serve(CLAIM)).toEqual({
      state: 'served',
      tenantId: TENANT_ID,
      routingEndpoint: DISTRIBUTION.routingEndpoint,
      certificate: 'pending',
      live: false,
    });
    expect(inputs(GetDistributionTenantCommand)).toEqual([{ Identifier: NAME }]);
    expect(inputs(CreateDistributionTenantCommand)).toEqual([
      {
        DistributionId: DISTRIBUTION.distributionId,
        Name: NAME,
        Domains: [{ Domain: CLAIM.hostname }],
        ConnectionGroupId: DISTRIBUTION.connectionGroupId,
        Enabled: true,
        ManagedCertificateRequest: {
          ValidationTokenHost: 'cloudfront',
          PrimaryDomainName: CLAIM.hostname,
          CertificateTransparencyLoggingPreference: 'enabled',
        },
      },
    ]);
    expect(inputs(GetManagedCertificateDetailsCommand)).toEqual([{ Identifier: TENANT_ID }]);
    expect(inputs(UpdateDistributionTenantCommand)).toEqual([]);
  });

  it('waits for the customer’s CNAME when CloudFront cannot see the hostname pointing at it yet', async () => {
    cloudfront.on(GetDistributionTenantCommand).rejects(notFound());
    cloudfront.on(CreateDistributionTenantCommand).rejects(
      new InvalidArgument({
        message:
          'The provided Domain Name is not valid. Could not verify Domain Name ownership. It may not be pointing to a valid CloudFront resource.',
        $metadata: { httpStatusCode: 400 },
      }),
    );
    expect(await hosting().serve(CLAIM)).toEqual({ state: 'awaiting_cname', routingEndpoint: DISTRIBUTION.routingEndpoint });
    expect(cloudfront.commandCalls(GetManagedCertificateDetailsCommand)).toHaveLength(0);
  });

  it('lets any other InvalidArgument reach the caller: it is a fault of ours, not a wait', async () => {
    cloudfront.on(GetDistributionTenantCommand).rejects(notFound());
    cloudfront
      .on(CreateDistributionTenantCommand)
      .rejects(new InvalidArgument({ message: 'Invalid tenant name.', $metadata: { httpStatusCode: 400 } }));
    await expect(hosting().serve(CLAIM)).rejects.toThrow('Invalid tenant name.');
  });

  it('reuses the tenant another serve of the same claim made meanwhile (EntityAlreadyExists)', async () => {
    cloudfront.on(GetDistributionTenantCommand).rejectsOnce(notFound()).resolves({ DistributionTenant: tenant(), ETag: 'E1' });
    cloudfront
      .on(CreateDistributionTenantCommand)
      .rejects(new EntityAlreadyExists({ message: 'The entity already exists.', $metadata: { httpStatusCode: 409 } }));
    cloudfront.on(GetManagedCertificateDetailsCommand).resolves(certificate('pending-validation', undefined));

    expect(await hosting().serve(CLAIM)).toMatchObject({ state: 'served', tenantId: TENANT_ID, certificate: 'pending', live: false });
    expect(inputs(GetDistributionTenantCommand)).toEqual([{ Identifier: NAME }, { Identifier: NAME }]);
    expect(cloudfront.commandCalls(CreateDistributionTenantCommand)).toHaveLength(1);
  });

  it('says the hostname is taken when another tenant or distribution holds it (CNAMEAlreadyExists)', async () => {
    cloudfront.on(GetDistributionTenantCommand).rejects(notFound());
    cloudfront
      .on(CreateDistributionTenantCommand)
      .rejects(
        new CNAMEAlreadyExists({ message: 'The CNAME specified is already defined for CloudFront.', $metadata: { httpStatusCode: 409 } }),
      );
    expect(await hosting().serve(CLAIM)).toEqual({ state: 'hostname_taken', routingEndpoint: DISTRIBUTION.routingEndpoint });
    expect(inputs(GetDistributionTenantCommand)).toEqual([{ Identifier: NAME }, { Identifier: NAME }]);
  });

  it('attaches the certificate once issued, naming the ETag it read and sending the tenant’s settings back', async () => {
    cloudfront.on(GetDistributionTenantCommand).resolves({
      DistributionTenant: tenant({ Status: 'Deployed', Customizations: { GeoRestrictions: { RestrictionType: 'none' } } }),
      ETag: 'E2',
    });
    cloudfront.on(GetManagedCertificateDetailsCommand).resolves(certificate('issued'));
    cloudfront.on(UpdateDistributionTenantCommand).resolves({ DistributionTenant: liveTenant({ Status: 'InProgress' }), ETag: 'E3' });

    // Attached but not deployed yet: the next serve finds it live.
    expect(await hosting().serve(CLAIM)).toEqual({
      state: 'served',
      tenantId: TENANT_ID,
      routingEndpoint: DISTRIBUTION.routingEndpoint,
      certificate: 'issued',
      live: false,
    });
    expect(inputs(UpdateDistributionTenantCommand)).toEqual([
      {
        Id: TENANT_ID,
        IfMatch: 'E2',
        DistributionId: DISTRIBUTION.distributionId,
        Domains: [{ Domain: CLAIM.hostname }],
        ConnectionGroupId: DISTRIBUTION.connectionGroupId,
        Enabled: true,
        Customizations: { GeoRestrictions: { RestrictionType: 'none' }, Certificate: { Arn: CERTIFICATE } },
      },
    ]);
    expect(cloudfront.commandCalls(CreateDistributionTenantCommand)).toHaveLength(0);
  });

  it('is live once deployed with its certificate and an active domain, and then changes nothing', async () => {
    cloudfront.on(GetDistributionTenantCommand).resolves({ DistributionTenant: liveTenant(), ETag: 'E4' });
    cloudfront.on(GetManagedCertificateDetailsCommand).resolves(certificate('issued'));

    expect(await hosting().serve(CLAIM)).toEqual({
      state: 'served',
      tenantId: TENANT_ID,
      routingEndpoint: DISTRIBUTION.routingEndpoint,
      certificate: 'issued',
      live: true,
    });
    expect(cloudfront.commandCalls(UpdateDistributionTenantCommand)).toHaveLength(0);
    expect(cloudfront.commandCalls(CreateDistributionTenantCommand)).toHaveLength(0);
  });

  it('reads the tenant again and retries once when the ETag went stale (CloudFront wrote the certificate’s news)', async () => {
    cloudfront
      .on(GetDistributionTenantCommand)
      .resolvesOnce({ DistributionTenant: tenant({ Status: 'Deployed' }), ETag: 'E2' })
      .resolves({ DistributionTenant: tenant({ Status: 'Deployed' }), ETag: 'E5' });
    cloudfront.on(GetManagedCertificateDetailsCommand).resolves(certificate('issued'));
    cloudfront
      .on(UpdateDistributionTenantCommand)
      .rejectsOnce(stale())
      .resolves({ DistributionTenant: liveTenant({ Status: 'InProgress' }), ETag: 'E6' });

    expect(await hosting().serve(CLAIM)).toMatchObject({ state: 'served', certificate: 'issued', live: false });
    expect(inputs(GetDistributionTenantCommand)).toEqual([{ Identifier: NAME }, { Identifier: TENANT_ID }]);
    expect(inputs(UpdateDistributionTenantCommand).map((input) => input.IfMatch)).toEqual(['E2', 'E5']);
  });

  it('lets a second stale ETag reach the caller rather than loop', async () => {
    cloudfront.on(GetDistributionTenantCommand).resolves({ DistributionTenant: tenant({ Status: 'Deployed' }), ETag: 'E2' });
    cloudfront.on(GetManagedCertificateDetailsCommand).resolves(certificate('issued'));
    cloudfront.on(UpdateDistributionTenantCommand).rejects(stale());

    await expect(hosting().serve(CLAIM)).rejects.toBeInstanceOf(PreconditionFailed);
    expect(cloudfront.commandCalls(UpdateDistributionTenantCommand)).toHaveLength(2);
  });

  it('reports a certificate that can no longer be issued as failed, and attaches nothing', async () => {
    for (const status of ['validation-timed-out', 'failed', 'revoked', 'expired', 'inactive']) {
      cloudfront.reset();
      cloudfront.on(GetDistributionTenantCommand).resolves({ DistributionTenant: tenant({ Status: 'Deployed' }), ETag: 'E2' });
      cloudfront.on(GetManagedCertificateDetailsCommand).resolves(certificate(status));
      expect(await hosting().serve(CLAIM)).toMatchObject({ state: 'served', certificate: 'failed', live: false });
      expect(cloudfront.commandCalls(UpdateDistributionTenantCommand)).toHaveLength(0);
    }
  });

  it('counts a tenant whose certificate CloudFront has not requested yet as pending', async () => {
    cloudfront.on(GetDistributionTenantCommand).resolves({ DistributionTenant: tenant(), ETag: 'E1' });
    cloudfront
      .on(GetManagedCertificateDetailsCommand)
      .rejects(new EntityNotFound({ message: 'No managed certificate.', $metadata: { httpStatusCode: 404 } }));
    expect(await hosting().serve(CLAIM)).toMatchObject({ state: 'served', certificate: 'pending', live: false });
  });

  it('leaves a disabled tenant stopping: serving never undoes a stop', async () => {
    cloudfront.on(GetDistributionTenantCommand).resolves({ DistributionTenant: liveTenant({ Enabled: false }), ETag: 'E7' });
    expect(await hosting().serve(CLAIM)).toEqual({ state: 'stopping', tenantId: TENANT_ID, routingEndpoint: DISTRIBUTION.routingEndpoint });
    expect(cloudfront.commandCalls(UpdateDistributionTenantCommand)).toHaveLength(0);
    expect(cloudfront.commandCalls(GetManagedCertificateDetailsCommand)).toHaveLength(0);
  });

  it('refuses a tenant of the name that belongs to another distribution', async () => {
    cloudfront.on(GetDistributionTenantCommand).resolves({ DistributionTenant: tenant({ DistributionId: 'E9OTHERSTAGE' }), ETag: 'E1' });
    await expect(hosting().serve(CLAIM)).rejects.toThrow('belongs to distribution E9OTHERSTAGE');
    expect(cloudfront.commandCalls(CreateDistributionTenantCommand)).toHaveLength(0);
  });

  it('lets throttling reach the caller with nothing half done, and the next serve finishes the step', async () => {
    cloudfront.on(GetDistributionTenantCommand).resolves({ DistributionTenant: tenant({ Status: 'Deployed' }), ETag: 'E2' });
    cloudfront.on(GetManagedCertificateDetailsCommand).resolves(certificate('issued'));
    cloudfront
      .on(UpdateDistributionTenantCommand)
      .rejectsOnce(throttled())
      .resolves({ DistributionTenant: liveTenant({ Status: 'InProgress' }), ETag: 'E3' });

    await expect(hosting().serve(CLAIM)).rejects.toMatchObject({ name: 'Throttling' });
    expect(await hosting().serve(CLAIM)).toMatchObject({ state: 'served', certificate: 'issued' });
    expect(inputs(UpdateDistributionTenantCommand).map((input) => input.IfMatch)).toEqual(['E2', 'E2']);
  });
});

describe('status', () => {
  it('reads the tenant and its certificate and changes nothing, not even attaching an issued certificate', async () => {
    cloudfront.on(GetDistributionTenantCommand).resolves({ DistributionTenant: tenant({ Status: 'Deployed' }), ETag: 'E2' });
    cloudfront.on(GetManagedCertificateDetailsCommand).resolves(certificate('issued'));
    expect(await hosting().status(CLAIM)).toEqual({
      state: 'served',
      tenantId: TENANT_ID,
      routingEndpoint: DISTRIBUTION.routingEndpoint,
      certificate: 'issued',
      live: false,
    });
    expect(cloudfront.commandCalls(UpdateDistributionTenantCommand)).toHaveLength(0);
  });

  it('answers none for a claim without a tenant, creating none', async () => {
    cloudfront.on(GetDistributionTenantCommand).rejects(notFound());
    expect(await hosting().status(CLAIM)).toEqual({ state: 'none', routingEndpoint: DISTRIBUTION.routingEndpoint });
    expect(cloudfront.commandCalls(CreateDistributionTenantCommand)).toHaveLength(0);
  });
});

describe('stop', () => {
  it('disables an enabled tenant with the ETag it read, keeping its settings, and deletes nothing yet', async () => {
    cloudfront.on(GetDistributionTenantCommand).resolves({ DistributionTenant: liveTenant(), ETag: 'E4' });
    cloudfront
      .on(UpdateDistributionTenantCommand)
      .resolves({ DistributionTenant: liveTenant({ Enabled: false, Status: 'InProgress' }), ETag: 'E8' });

    expect(await hosting().stop(CLAIM)).toBe('stopping');
    expect(inputs(UpdateDistributionTenantCommand)).toEqual([
      {
        Id: TENANT_ID,
        IfMatch: 'E4',
        DistributionId: DISTRIBUTION.distributionId,
        Domains: [{ Domain: CLAIM.hostname }],
        ConnectionGroupId: DISTRIBUTION.connectionGroupId,
        Enabled: false,
        Customizations: { Certificate: { Arn: CERTIFICATE } },
      },
    ]);
    expect(cloudfront.commandCalls(DeleteDistributionTenantCommand)).toHaveLength(0);
  });

  it('waits while the disable is deploying', async () => {
    cloudfront
      .on(GetDistributionTenantCommand)
      .resolves({ DistributionTenant: liveTenant({ Enabled: false, Status: 'InProgress' }), ETag: 'E8' });
    expect(await hosting().stop(CLAIM)).toBe('stopping');
    expect(cloudfront.commandCalls(UpdateDistributionTenantCommand)).toHaveLength(0);
    expect(cloudfront.commandCalls(DeleteDistributionTenantCommand)).toHaveLength(0);
  });

  it('deletes a disabled, deployed tenant with the ETag it read', async () => {
    cloudfront.on(GetDistributionTenantCommand).resolves({ DistributionTenant: liveTenant({ Enabled: false }), ETag: 'E9' });
    cloudfront.on(DeleteDistributionTenantCommand).resolves({});
    expect(await hosting().stop(CLAIM)).toBe('stopped');
    expect(inputs(DeleteDistributionTenantCommand)).toEqual([{ Id: TENANT_ID, IfMatch: 'E9' }]);
  });

  it('is stopped when there is no tenant, or it went between the read and the delete', async () => {
    cloudfront.on(GetDistributionTenantCommand).rejects(notFound());
    expect(await hosting().stop(CLAIM)).toBe('stopped');
    expect(cloudfront.commandCalls(DeleteDistributionTenantCommand)).toHaveLength(0);

    cloudfront.reset();
    cloudfront.on(GetDistributionTenantCommand).resolves({ DistributionTenant: liveTenant({ Enabled: false }), ETag: 'E9' });
    cloudfront.on(DeleteDistributionTenantCommand).rejects(notFound());
    expect(await hosting().stop(CLAIM)).toBe('stopped');
  });

  it('stays stopping when the ETag went stale or CloudFront still counts the tenant enabled', async () => {
    cloudfront.on(GetDistributionTenantCommand).resolves({ DistributionTenant: liveTenant({ Enabled: false }), ETag: 'E9' });
    cloudfront
      .on(DeleteDistributionTenantCommand)
      .rejectsOnce(stale())
      .rejects(new ResourceNotDisabled({ message: 'The resource is not disabled.', $metadata: { httpStatusCode: 409 } }));
    expect(await hosting().stop(CLAIM)).toBe('stopping');
    expect(await hosting().stop(CLAIM)).toBe('stopping');

    cloudfront.reset();
    cloudfront.on(GetDistributionTenantCommand).resolves({ DistributionTenant: liveTenant(), ETag: 'E4' });
    cloudfront.on(UpdateDistributionTenantCommand).rejects(stale());
    expect(await hosting().stop(CLAIM)).toBe('stopping');
  });

  it('lets throttling reach the caller', async () => {
    cloudfront.on(GetDistributionTenantCommand).resolves({ DistributionTenant: liveTenant({ Enabled: false }), ETag: 'E9' });
    cloudfront.on(DeleteDistributionTenantCommand).rejects(throttled());
    await expect(hosting().stop(CLAIM)).rejects.toMatchObject({ name: 'Throttling' });
  });
});

describe('cloudFrontHostnames', () => {
  it('refuses to start without the distribution, connection group and routing endpoint', () => {
    expect(() => cloudFrontHostnames({ ...DISTRIBUTION, connectionGroupId: undefined })).toThrow('cannot serve custom hostnames');
    expect(() => cloudFrontHostnames({ ...DISTRIBUTION, routingEndpoint: '' })).toThrow('cannot serve custom hostnames');
    expect(cloudFrontHostnames(DISTRIBUTION)).toBeInstanceOf(CloudFrontHostnames);
  });
});

/**
 * The SDK itself, answered by a stub HTTP handler with CloudFront's XML error documents: the
 * error names the adapter compares are the ones the SDK's deserializer gives, and throttling is
 * retried by the SDK before it ever reaches the adapter.
 */
describe('against CloudFront’s wire format', () => {
  const errorDocument = (code: string, message: string) =>
    `<?xml version="1.0"?>\n<ErrorResponse xmlns="http://cloudfront.amazonaws.com/doc/2020-05-31/"><Error><Type>Sender</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>req-1</RequestId></ErrorResponse>`;
  const tenantDocument = `<?xml version="1.0"?>\n<DistributionTenant xmlns="http://cloudfront.amazonaws.com/doc/2020-05-31/"><Id>${TENANT_ID}</Id><DistributionId>${DISTRIBUTION.distributionId}</DistributionId><Name>${NAME}</Name><Domains><member><Domain>${CLAIM.hostname}</Domain><Status>inactive</Status></member></Domains><ConnectionGroupId>${DISTRIBUTION.connectionGroupId}</ConnectionGroupId><Enabled>true</Enabled><Status>InProgress</Status></DistributionTenant>`;

  /** A client whose requests are answered, in order, by `answers`; what it was asked is kept. */
  function scripted(answers: Array<{ status: number; body: string; etag?: string }>) {
    const asked: Array<{ method: string; path: string }> = [];
    const client = new CloudFrontClient({
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'secret-example' },
      requestHandler: {
        handle: async (request: { method: string; path: string }) => {
          asked.push({ method: request.method, path: request.path });
          const answer = answers.shift();
          if (!answer) throw new Error(`unexpected request ${request.method} ${request.path}`);
          return {
            response: {
              statusCode: answer.status,
              headers: { 'content-type': 'text/xml', ...(answer.etag ? { etag: answer.etag } : {}) },
              body: Readable.from([Buffer.from(answer.body)]),
            },
          };
        },
      },
    });
    return { client, asked };
  }

  it('reads EntityNotFound and the not-pointing InvalidArgument as the SDK delivers them', async () => {
    const { client, asked } = scripted([
      { status: 404, body: errorDocument('EntityNotFound', 'The specified distribution tenant does not exist.') },
      {
        status: 400,
        body: errorDocument(
          'InvalidArgument',
          'The provided Domain Name is not valid. Could not verify Domain Name ownership. It may not be pointing to a valid CloudFront resource.',
        ),
      },
    ]);
    expect(await new CloudFrontHostnames(client, DISTRIBUTION).serve(CLAIM)).toEqual({
      state: 'awaiting_cname',
      routingEndpoint: DISTRIBUTION.routingEndpoint,
    });
    expect(asked).toEqual([
      { method: 'GET', path: `/2020-05-31/distribution-tenant/${NAME}` },
      { method: 'POST', path: '/2020-05-31/distribution-tenant' },
    ]);
  });

  it('has throttling retried by the SDK, so one throttled read does not fail a serve', async () => {
    const { client, asked } = scripted([
      { status: 400, body: errorDocument('Throttling', 'Rate exceeded') },
      { status: 200, body: tenantDocument, etag: 'E1' },
      { status: 404, body: errorDocument('EntityNotFound', 'No managed certificate.') },
    ]);
    expect(await new CloudFrontHostnames(client, DISTRIBUTION).serve(CLAIM)).toMatchObject({
      state: 'served',
      certificate: 'pending',
      live: false,
    });
    expect(asked.map(({ path }) => path)).toEqual([
      `/2020-05-31/distribution-tenant/${NAME}`,
      `/2020-05-31/distribution-tenant/${NAME}`,
      `/2020-05-31/managed-certificate/${TENANT_ID}`,
    ]);
  });
});
