import { parseArgs } from 'node:util';

/**
 * The command line of scripts/doctor.ts (parsed here, so it is tested without a process): which
 * deployment, with which CDK context, and where.
 */

export const usage = `Checks what a deployment of Hushlink needs outside its stack, reading only: SES (identity
verified, out of the sandbox), the Stripe account (key, prices, customer portal, webhook endpoint),
the secrets in Secrets Manager, the alarm email's subscription and the CloudFront tenant quota.
One line per check, ok, warn or fail, and what to do. Secrets are never printed.

  npm run doctor -- --stage <name> [-c key=value …] [--region <region>]

  --stage <name>          the deployment: the stack Hushlink-<name>
  -c, --context <k=v>     CDK context, as given to cdk deploy (pricePro, priceTeamSeat, webOrigin,
                          mailFrom, alarmEmail, slackClientId, …); cdk.json's and cdk.context.json's
                          context is read first, as the CDK app reads it
  --region <region>       the stack's region (default: context region, then AWS_REGION, then
                          AWS_DEFAULT_REGION)
  --tenant-quota <n>      the account's distribution tenant quota, when AWS Support raised it
                          (Service Quotas may not list it; default: what it lists, else 10,000)
  --stripe-api-url <url>  the local Stripe emulator instead of Stripe (local runs and tests)
  --help                  this text

Credentials come from the SDK's default chain (the environment, a profile, SSO), allowed to read:
cloudformation:DescribeStacks; ses:GetIdentityVerificationAttributes, ses:GetSendQuota,
ses:GetAccountSendingEnabled; secretsmanager:DescribeSecret and secretsmanager:GetSecretValue on the
stack's two secrets (and kms:Decrypt with customerManagedKey); sns:ListSubscriptionsByTopic;
cloudfront:ListDistributionTenants; servicequotas:ListServiceQuotas, ListAWSDefaultServiceQuotas.

Exit status: 0 nothing failed (warnings allowed), 1 a check failed, 2 a wrong command line.`;

export type DoctorCommand =
  | { kind: 'help' }
  | { kind: 'usage_error'; message: string }
  | {
      kind: 'run';
      stage: string;
      /** `-c` values, as the CDK CLI passes them: strings. */
      context: Record<string, string>;
      region: string | undefined;
      tenantQuota: number | undefined;
      stripeApiUrl: string | undefined;
    };

const options = {
  stage: { type: 'string' },
  context: { type: 'string', short: 'c', multiple: true },
  region: { type: 'string' },
  'tenant-quota': { type: 'string' },
  'stripe-api-url': { type: 'string' },
  help: { type: 'boolean' },
} as const;

/** The command `argv` (without node and the script) asks for. */
export function parseDoctorArgs(argv: readonly string[]): DoctorCommand {
  const parse = () => parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }).values;
  let values: ReturnType<typeof parse>;
  try {
    values = parse();
  } catch (error) {
    return { kind: 'usage_error', message: (error as Error).message };
  }
  if (values.help) return { kind: 'help' };
  const fail = (message: string): DoctorCommand => ({ kind: 'usage_error', message });

  if (values.stage === undefined || values.stage === '')
    return fail('--stage is required: the deployment to check (the stack Hushlink-<stage>).');
  const context: Record<string, string> = {};
  for (const pair of values.context ?? []) {
    const at = pair.indexOf('=');
    if (at <= 0) return fail(`-c: "${pair}" is not key=value.`);
    context[pair.slice(0, at)] = pair.slice(at + 1);
  }
  if (context.stage !== undefined && context.stage !== values.stage)
    return fail(`-c stage=${context.stage} and --stage ${values.stage} name two deployments: give one.`);
  let tenantQuota: number | undefined;
  if (values['tenant-quota'] !== undefined) {
    if (!/^[1-9]\d{0,8}$/.test(values['tenant-quota'])) return fail('--tenant-quota: a whole number of tenants, 1 or more.');
    tenantQuota = Number(values['tenant-quota']);
  }
  const stripeApiUrl = values['stripe-api-url'];
  if (stripeApiUrl !== undefined && !URL.canParse(stripeApiUrl)) return fail(`--stripe-api-url: "${stripeApiUrl}" is not a URL.`);
  return { kind: 'run', stage: values.stage, context, region: values.region || undefined, tenantQuota, stripeApiUrl };
}
