import type { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import type { CloudFrontClient } from '@aws-sdk/client-cloudfront';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import type { SESClient } from '@aws-sdk/client-ses';
import type { SNSClient } from '@aws-sdk/client-sns';
import type Stripe from 'stripe';
import type { StripeSettings } from '../../shared/adapters/stripe.ts';
import { billingWebhookRoutes } from '../../shared/routes.ts';
import { checkAlarmEmail } from './alarms.ts';
import { checkTenantQuota } from './cloudfront.ts';
import { fail, guarded, warn, type Check } from './report.ts';
import { checkChatSecret, checkPaymentSecret } from './secrets.ts';
import { checkSesIdentity, checkSesSending } from './ses.ts';
import type { DoctorTarget } from './settings.ts';
import { checkStack, type StackOutputs } from './stack.ts';
import { checkStripe } from './stripe.ts';

/** The clients the checks read with: AWS's in the stack's region (CloudFront and Service Quotas in us-east-1), and Stripe's for a key. */
export interface DoctorClients {
  cloudformation: CloudFormationClient;
  ses: SESClient;
  sns: SNSClient;
  secrets: SecretsManagerClient;
  cloudfront: CloudFrontClient;
  quotas: ServiceQuotasClient;
  stripe(settings: StripeSettings): Stripe;
}

export interface DoctorOptions {
  /** `--tenant-quota`: the account's tenant quota when Service Quotas does not list a raised one. */
  tenantQuota?: number | undefined;
}

/** The IAM each check needs, said when a call is refused. */
const needs = {
  stack: 'run with credentials allowed cloudformation:DescribeStacks on the stack, in its region',
  ses: 'run with credentials allowed ses:GetIdentityVerificationAttributes, ses:GetSendQuota and ses:GetAccountSendingEnabled',
  secrets:
    "run with credentials allowed secretsmanager:DescribeSecret and secretsmanager:GetSecretValue on the stack's secrets (and kms:Decrypt with customerManagedKey)",
  sns: 'run with credentials allowed sns:ListSubscriptionsByTopic on the alarm topic',
  cloudfront: 'run with credentials allowed cloudfront:ListDistributionTenants (and servicequotas:ListServiceQuotas)',
};

/**
 * Every check of the deployment, in the order printed: the stack, SES, the payment secrets and
 * the Stripe account they open, Slack's secrets, the alarm email, the CloudFront tenant quota.
 * Read-only calls only. Also answers the secret values read, for the report to blank out.
 */
export async function runDoctor(
  target: DoctorTarget,
  clients: DoctorClients,
  options: DoctorOptions = {},
): Promise<{ checks: Check[]; secrets: string[] }> {
  const { settings, stackName, region } = target;
  const secrets: string[] = [];

  let outputs: StackOutputs | null = null;
  const stack = await guarded('stack', needs.stack, async () => {
    const read = await checkStack(clients.cloudformation, stackName, region);
    outputs = read.outputs;
    return read.check;
  });

  const missingOutput = (name: string, key: string) =>
    fail(name, `${stackName} has no output ${key}`, 'deploy the current version of the stack (npx cdk deploy …), which outputs it');

  const stackChecks = async (found: StackOutputs): Promise<Check[]> => {
    const payment = async (): Promise<Check[]> => {
      if (!found.paymentSecretsArn) return [missingOutput('payment secrets', 'PaymentProviderSecretsArn')];
      let stripe: StripeSettings | null = null;
      const read = await guarded('payment secrets', needs.secrets, async () => {
        const result = await checkPaymentSecret(clients.secrets, found.paymentSecretsArn!, region);
        stripe = result.stripe;
        return result.check;
      });
      if (!stripe)
        return [
          ...read,
          warn(
            'stripe',
            'not checked: no usable key in PaymentProviderSecretsArn',
            'set the payment secrets (above), then run the doctor again',
          ),
        ];
      const { secretKey, webhookSecret } = stripe as StripeSettings;
      secrets.push(secretKey, webhookSecret);
      const path = billingWebhookRoutes[0].path;
      const webhookUrls = [...new Set([settings.webOrigin, ...(found.webUrl ? [new URL(found.webUrl).origin] : [])])].map(
        (origin) => `${origin}${path}`,
      );
      const checks = await checkStripe(clients.stripe(stripe), {
        prices: settings.prices,
        webhookUrls,
        stage: settings.stage,
        mode: /^(sk|rk)_live_/.test(secretKey) ? 'live' : 'test',
      });
      return [...read, ...checks];
    };
    const chat = async (): Promise<Check[]> =>
      found.chatSecretsArn
        ? guarded('slack secrets', needs.secrets, () =>
            checkChatSecret(clients.secrets, found.chatSecretsArn!, region, settings.slackClientId),
          )
        : [missingOutput('slack secrets', 'ChatAppSecretsArn')];
    const alarm = async (): Promise<Check[]> =>
      found.alarmTopicArn
        ? guarded('alarm email', needs.sns, () => checkAlarmEmail(clients.sns, found.alarmTopicArn!, settings.alarmEmail))
        : [missingOutput('alarm email', 'AlarmTopicArn')];
    return (await Promise.all([payment(), chat(), alarm()])).flat();
  };

  const found = outputs as StackOutputs | null;
  const [identity, sending, fromStack, tenants] = await Promise.all([
    guarded('ses identity', needs.ses, () => checkSesIdentity(clients.ses, settings, region)),
    guarded('ses sending', needs.ses, () => checkSesSending(clients.ses, settings.stage, region)),
    found ? stackChecks(found) : Promise.resolve([]),
    guarded('cloudfront tenants', needs.cloudfront, () => checkTenantQuota(clients.cloudfront, clients.quotas, options.tenantQuota)),
  ]);
  return { checks: [...stack, ...identity, ...sending, ...fromStack, ...tenants], secrets };
}
