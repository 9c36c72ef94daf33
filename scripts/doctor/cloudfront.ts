import { ListDistributionTenantsCommand, type CloudFrontClient } from '@aws-sdk/client-cloudfront';
import {
  ListAWSDefaultServiceQuotasCommand,
  ListServiceQuotasCommand,
  type ServiceQuota,
  type ServiceQuotasClient,
} from '@aws-sdk/client-service-quotas';
import { errorText, fail, ok, warn, type Check } from './report.ts';

/** CloudFront's documented default: 10,000 distribution tenants per account (docs/deploy.md). */
export const defaultTenantQuota = 10_000;
/** This share of the quota used is a warning: raising a quota takes AWS Support days. */
const warnShare = 0.8;
/** How Service Quotas names it, when it lists it ("Distribution tenants per AWS account" or the like). */
const quotaName = /distribution tenants/i;

/** Every distribution tenant of the account (`cloudfront:ListDistributionTenants`, all distributions). */
async function countTenants(cloudfront: CloudFrontClient): Promise<number> {
  let count = 0;
  let marker: string | undefined;
  do {
    const page = await cloudfront.send(new ListDistributionTenantsCommand({ MaxItems: 100, Marker: marker }));
    count += page.DistributionTenantList?.length ?? 0;
    marker = page.NextMarker || undefined;
  } while (marker);
  return count;
}

/** The quota's value as Service Quotas lists it (applied, else AWS's default), or null when it lists none. */
async function listedQuota(quotas: ServiceQuotasClient): Promise<{ value: number; source: string } | null> {
  const find = async (list: (token: string | undefined) => Promise<{ Quotas?: ServiceQuota[]; NextToken?: string }>) => {
    let token: string | undefined;
    do {
      const page = await list(token);
      const found = page.Quotas?.find((quota) => quotaName.test(quota.QuotaName ?? '') && typeof quota.Value === 'number');
      if (found) return found;
      token = page.NextToken;
    } while (token);
    return undefined;
  };
  const applied = await find((token) =>
    quotas.send(new ListServiceQuotasCommand({ ServiceCode: 'cloudfront', NextToken: token, MaxResults: 100 })),
  );
  if (applied) return { value: applied.Value!, source: `Service Quotas, ${applied.QuotaCode}` };
  const standard = await find((token) =>
    quotas.send(new ListAWSDefaultServiceQuotasCommand({ ServiceCode: 'cloudfront', NextToken: token, MaxResults: 100 })),
  );
  return standard ? { value: standard.Value!, source: `Service Quotas default, ${standard.QuotaCode}` } : null;
}

/**
 * Room for more custom hostnames: each verified workspace hostname is a distribution tenant
 * (docs/adr/0064), and the account's quota counts every tenant of every distribution in it.
 * The quota comes from `--tenant-quota`, else Service Quotas, else CloudFront's documented default.
 */
export async function checkTenantQuota(
  cloudfront: CloudFrontClient,
  quotas: ServiceQuotasClient,
  givenQuota: number | undefined,
): Promise<Check> {
  const name = 'cloudfront tenants';
  const used = await countTenants(cloudfront);
  let quota: { value: number; source: string };
  if (givenQuota !== undefined) quota = { value: givenQuota, source: '--tenant-quota' };
  else {
    try {
      quota = (await listedQuota(quotas)) ?? { value: defaultTenantQuota, source: 'the documented default; Service Quotas lists none' };
    } catch (error) {
      quota = { value: defaultTenantQuota, source: `the documented default; Service Quotas: ${errorText(error)}` };
    }
  }
  const detail = `${used.toLocaleString('en')} of ${quota.value.toLocaleString('en')} distribution tenants in the account (quota: ${quota.source})`;
  const raise =
    'ask AWS for more distribution tenants (Service Quotas → CloudFront, or AWS Support → Service limit increase); once raised, give --tenant-quota <n> if Service Quotas does not list it';
  if (used >= quota.value) return fail(name, `${detail}: no new workspace hostname can be served`, raise);
  if (used >= quota.value * warnShare) return warn(name, `${detail}: ${Math.round((used / quota.value) * 100)}% used`, raise);
  return ok(name, detail);
}
