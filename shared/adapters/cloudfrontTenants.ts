// Verified custom hostnames served in AWS (issue 17): each claim is a distribution tenant of the
// stack's multi-tenant distribution, reached through its connection group, with a certificate
// CloudFront requests and validates over HTTP itself.
// docs/adr/0064-verified-hostnames-are-served-by-cloudfront-distribution.md says why tenants and
// not alternate domain names; this file holds every CloudFront call of it.
import {
  CloudFrontClient,
  CreateDistributionTenantCommand,
  DeleteDistributionTenantCommand,
  GetDistributionTenantCommand,
  GetManagedCertificateDetailsCommand,
  UpdateDistributionTenantCommand,
  type DistributionTenant,
  type ManagedCertificateDetails,
} from '@aws-sdk/client-cloudfront';
import type { CertificateState, HostedClaim, Hosting, HostnameHosting } from '../domain/domains/ports.ts';
import { sha256 } from '../ids.ts';

/** The stack's multi-tenant distribution and the connection group its tenants answer through. */
export interface TenantDistribution {
  distributionId: string;
  connectionGroupId: string;
  /** The connection group's routing endpoint (`d111111abcdef8.cloudfront.net`): every claim's CNAME target. */
  routingEndpoint: string;
}

/** A tenant as last read, with the ETag an update or delete of it must name. */
interface TenantVersion {
  id: string;
  tenant: DistributionTenant;
  etag: string;
}

const errorName = (error: unknown): string | undefined => (error as { name?: string }).name;

/**
 * CloudFront's refusal of a tenant whose hostname does not resolve to it yet (a
 * `ValidationTokenHost: cloudfront` certificate needs the CNAME first). It has no error code of
 * its own, only InvalidArgument and this message; any other InvalidArgument is a fault of ours.
 */
const notPointingYet = /could not verify domain name ownership|not be pointing to a valid cloudfront resource/i;

/** Where a certificate ends up; only `pending-validation` (or no certificate yet) may still become issued. */
const certificateStates: Record<string, CertificateState> = {
  'pending-validation': 'pending',
  issued: 'issued',
  'validation-timed-out': 'failed',
  failed: 'failed',
  revoked: 'failed',
  expired: 'failed',
  inactive: 'failed',
};

/**
 * The tenant name of a claim: its hostname, to be read in the console, and a digest of the
 * distribution and the domain's id, which makes it this claim's (and this deployment's, when
 * stages share an account). The API only says a name is unique in the account and never
 * changes; this keeps to lower-case letters, digits and hyphens, 64 characters at most.
 */
export function tenantNameOf(distributionId: string, claim: HostedClaim): string {
  const label = claim.hostname
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 47)
    .replace(/^-+|-+$/g, '');
  const digest = sha256(`${distributionId}\n${claim.domainId}`).toString('hex').slice(0, 16);
  return `${label}-${digest}`;
}

/**
 * Claims served as distribution tenants. Nothing here waits for CloudFront to deploy: each call
 * reads the tenant, takes the one step its state allows, and says where it stands.
 */
export class CloudFrontHostnames implements HostnameHosting {
  constructor(
    private readonly client: CloudFrontClient,
    private readonly distribution: TenantDistribution,
  ) {}

  async serve(claim: HostedClaim): Promise<Hosting> {
    const name = tenantNameOf(this.distribution.distributionId, claim);
    const found = (await this.read(name)) ?? (await this.create(claim, name));
    if ('state' in found) return found;
    return this.hostingOf(claim, found, true);
  }

  async status(claim: HostedClaim): Promise<Hosting | { state: 'none'; routingEndpoint: string }> {
    const found = await this.read(tenantNameOf(this.distribution.distributionId, claim));
    if (!found) return { state: 'none', routingEndpoint: this.distribution.routingEndpoint };
    return this.hostingOf(claim, found, false);
  }

  async stop(claim: HostedClaim): Promise<'stopping' | 'stopped'> {
    const found = await this.read(tenantNameOf(this.distribution.distributionId, claim));
    if (!found) return 'stopped';
    const { id, tenant, etag } = found;
    try {
      if (tenant.Enabled) {
        await this.update(claim, found, { Enabled: false });
        // Deleting now would be refused (ResourceNotDisabled) until the disable is deployed.
        return 'stopping';
      }
      if (tenant.Status !== 'Deployed') return 'stopping';
      await this.client.send(new DeleteDistributionTenantCommand({ Id: id, IfMatch: etag }));
      return 'stopped';
    } catch (error) {
      const name = errorName(error);
      if (name === 'EntityNotFound') return 'stopped';
      // Changed since it was read (CloudFront writes certificate news onto the tenant), or not
      // disabled after all: the next call reads it again.
      if (name === 'PreconditionFailed' || name === 'InvalidIfMatchVersion' || name === 'ResourceNotDisabled') return 'stopping';
      throw error;
    }
  }

  /** The tenant of this name (or id) with its ETag, or null when there is none. */
  private async read(identifier: string): Promise<TenantVersion | null> {
    try {
      const { DistributionTenant: tenant, ETag } = await this.client.send(new GetDistributionTenantCommand({ Identifier: identifier }));
      if (!tenant?.Id || !ETag) throw new Error(`CloudFront answered tenant ${identifier} without its id or ETag`);
      if (tenant.DistributionId !== this.distribution.distributionId) {
        throw new Error(`tenant ${identifier} belongs to distribution ${tenant.DistributionId}, not ${this.distribution.distributionId}`);
      }
      return { id: tenant.Id, tenant, etag: ETag };
    } catch (error) {
      if (errorName(error) === 'EntityNotFound') return null;
      throw error;
    }
  }

  /** Creates the claim's tenant, or says why CloudFront will not have it yet. */
  private async create(claim: HostedClaim, name: string): Promise<TenantVersion | Hosting> {
    const { distributionId, connectionGroupId, routingEndpoint } = this.distribution;
    try {
      const { DistributionTenant: tenant, ETag } = await this.client.send(
        new CreateDistributionTenantCommand({
          DistributionId: distributionId,
          Name: name,
          Domains: [{ Domain: claim.hostname }],
          ConnectionGroupId: connectionGroupId,
          Enabled: true,
          ManagedCertificateRequest: {
            // CloudFront answers ACM's HTTP challenge itself, as the hostname already points at it.
            ValidationTokenHost: 'cloudfront',
            PrimaryDomainName: claim.hostname,
            // Browsers refuse a certificate that is not in the Certificate Transparency logs.
            CertificateTransparencyLoggingPreference: 'enabled',
          },
        }),
      );
      if (!tenant?.Id || !ETag) throw new Error(`CloudFront answered the new tenant ${name} without its id or ETag`);
      return { id: tenant.Id, tenant, etag: ETag };
    } catch (error) {
      const code = errorName(error);
      if (code === 'InvalidArgument' && notPointingYet.test((error as Error).message)) return { state: 'awaiting_cname', routingEndpoint };
      if (code === 'EntityAlreadyExists' || code === 'CNAMEAlreadyExists') {
        // Another serve of this claim may have made it meanwhile; otherwise the hostname is held elsewhere.
        const made = await this.read(name);
        if (made) return made;
        if (code === 'CNAMEAlreadyExists') return { state: 'hostname_taken', routingEndpoint };
      }
      throw error;
    }
  }

  /** Where the claim's tenant stands; with `attach`, first puts an issued certificate on it. */
  private async hostingOf(claim: HostedClaim, found: TenantVersion, attach: boolean): Promise<Hosting> {
    const { routingEndpoint } = this.distribution;
    const tenantId = found.id;
    if (!found.tenant.Enabled) return { state: 'stopping', tenantId, routingEndpoint };

    const details = await this.certificateOf(tenantId);
    const certificate: CertificateState = details?.CertificateStatus
      ? (certificateStates[details.CertificateStatus] ?? 'pending')
      : 'pending';
    const issuedArn = certificate === 'issued' ? details?.CertificateArn : undefined;
    let { tenant } = found;
    if (attach && issuedArn && tenant.Customizations?.Certificate?.Arn !== issuedArn) {
      tenant = await this.attachCertificate(claim, found, issuedArn);
    }
    const live =
      tenant.Status === 'Deployed' &&
      issuedArn !== undefined &&
      tenant.Customizations?.Certificate?.Arn === issuedArn &&
      (tenant.Domains ?? []).some((domain) => domain.Domain === claim.hostname && domain.Status === 'active');
    return { state: 'served', tenantId, routingEndpoint, certificate, live };
  }

  /** The tenant's managed certificate; null before CloudFront has requested one. */
  private async certificateOf(tenantId: string): Promise<ManagedCertificateDetails | null> {
    try {
      const { ManagedCertificateDetails: details } = await this.client.send(
        new GetManagedCertificateDetailsCommand({ Identifier: tenantId }),
      );
      return details ?? null;
    } catch (error) {
      if (errorName(error) === 'EntityNotFound') return null;
      throw error;
    }
  }

  /**
   * An issued certificate serves the hostname only once it is the tenant's own (the console does
   * this step on its own; the API leaves it to the caller). CloudFront writes the certificate's
   * news onto the tenant, so the ETag read a moment ago may be stale: read again once and retry.
   */
  private async attachCertificate(claim: HostedClaim, found: TenantVersion, certificateArn: string): Promise<DistributionTenant> {
    const withCertificate = (tenant: DistributionTenant) => ({
      Customizations: { ...tenant.Customizations, Certificate: { Arn: certificateArn } },
    });
    try {
      return await this.update(claim, found, withCertificate(found.tenant));
    } catch (error) {
      if (errorName(error) !== 'PreconditionFailed') throw error;
      const fresh = await this.read(found.id);
      if (!fresh) throw error;
      if (fresh.tenant.Customizations?.Certificate?.Arn === certificateArn) return fresh.tenant;
      return this.update(claim, fresh, withCertificate(fresh.tenant));
    }
  }

  /**
   * UpdateDistributionTenant with the tenant's settings as read and `changes` over them: the
   * update replaces what it names, so everything else is sent back as it was.
   */
  private async update(
    claim: HostedClaim,
    { id, tenant, etag }: TenantVersion,
    changes: Pick<DistributionTenant, 'Enabled' | 'Customizations'>,
  ): Promise<DistributionTenant> {
    const { DistributionTenant: updated } = await this.client.send(
      new UpdateDistributionTenantCommand({
        Id: id,
        IfMatch: etag,
        DistributionId: this.distribution.distributionId,
        Domains: [{ Domain: claim.hostname }],
        ConnectionGroupId: tenant.ConnectionGroupId ?? this.distribution.connectionGroupId,
        Enabled: tenant.Enabled,
        ...(tenant.Customizations ? { Customizations: tenant.Customizations } : {}),
        ...(tenant.Parameters?.length ? { Parameters: tenant.Parameters } : {}),
        ...changes,
      }),
    );
    if (!updated) throw new Error(`CloudFront answered the update of tenant ${id} without the tenant`);
    return updated;
  }
}

/** The claims' hosting, for the function the stack lets manage tenants. */
export function cloudFrontHostnames(distribution: Partial<TenantDistribution>): CloudFrontHostnames {
  const { distributionId, connectionGroupId, routingEndpoint } = distribution;
  if (!distributionId || !connectionGroupId || !routingEndpoint) {
    throw new Error(
      'the tenant distribution, its connection group and routing endpoint are not all set: this function cannot serve custom hostnames',
    );
  }
  // CloudFront's API is global: requests are signed for us-east-1 whatever the function's region.
  return new CloudFrontHostnames(new CloudFrontClient({ region: 'us-east-1' }), { distributionId, connectionGroupId, routingEndpoint });
}
