/**
 * AWS as `npm run doctor` meets it, for a test that runs the whole command in a process of its
 * own (test/integration/doctor-stripe.test.ts): loaded first with `node --import tsx --import
 * ./test/support/doctorAws.ts scripts/doctor.ts …`, it mocks every AWS client the doctor makes
 * (aws-sdk-client-mock replaces `send` on the client classes, so no request leaves and no
 * credential is looked up) with the account described by the JSON in `HUSHLINK_DOCTOR_AWS`.
 */
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { CloudFrontClient, ListDistributionTenantsCommand } from '@aws-sdk/client-cloudfront';
import { DescribeSecretCommand, GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { ListAWSDefaultServiceQuotasCommand, ListServiceQuotasCommand, ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import {
  GetAccountSendingEnabledCommand,
  GetIdentityVerificationAttributesCommand,
  GetSendQuotaCommand,
  SESClient,
} from '@aws-sdk/client-ses';
import { ListSubscriptionsByTopicCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';

export interface DoctorAwsAccount {
  stackName: string;
  stackStatus: string;
  outputs: Record<string, string>;
  /** SecretString by secret ARN. */
  secrets: Record<string, string>;
  sesIdentity: string;
  identityStatus: 'Success' | 'Pending' | 'Failed' | 'NotStarted';
  max24HourSend: number;
  /** The alarm topic's subscriptions: the address and its SubscriptionArn (`PendingConfirmation` until confirmed). */
  subscriptions: Array<{ email: string; arn: string }>;
  tenants: number;
}

const account = JSON.parse(process.env.HUSHLINK_DOCTOR_AWS ?? 'null') as DoctorAwsAccount | null;
if (!account) throw new Error('HUSHLINK_DOCTOR_AWS must describe the account (test/support/doctorAws.ts)');

mockClient(CloudFormationClient)
  .on(DescribeStacksCommand, { StackName: account.stackName })
  .resolves({
    Stacks: [
      {
        StackName: account.stackName,
        StackStatus: account.stackStatus as 'UPDATE_COMPLETE',
        CreationTime: new Date('2026-11-01T10:00:00Z'),
        Outputs: Object.entries(account.outputs).map(([OutputKey, OutputValue]) => ({ OutputKey, OutputValue })),
      },
    ],
  });

const ses = mockClient(SESClient);
ses.on(GetIdentityVerificationAttributesCommand).resolves({
  VerificationAttributes:
    account.identityStatus === 'NotStarted' ? {} : { [account.sesIdentity]: { VerificationStatus: account.identityStatus } },
});
ses.on(GetAccountSendingEnabledCommand).resolves({ Enabled: true });
ses.on(GetSendQuotaCommand).resolves({ Max24HourSend: account.max24HourSend, MaxSendRate: 14, SentLast24Hours: 3 });

const secrets = mockClient(SecretsManagerClient);
secrets.on(DescribeSecretCommand).resolves({ LastChangedDate: new Date('2026-11-21T08:00:00Z') });
for (const [arn, value] of Object.entries(account.secrets))
  secrets.on(GetSecretValueCommand, { SecretId: arn }).resolves({ SecretString: value });

const topicArn = account.outputs.AlarmTopicArn;
mockClient(SNSClient)
  .on(ListSubscriptionsByTopicCommand)
  .resolves({
    Subscriptions: account.subscriptions.map(({ email, arn }) => ({
      Protocol: 'email',
      Endpoint: email,
      SubscriptionArn: arn,
      TopicArn: topicArn,
    })),
  });

mockClient(CloudFrontClient)
  .on(ListDistributionTenantsCommand)
  .resolves({ DistributionTenantList: Array.from({ length: account.tenants }, (_, index) => ({ Id: `dt_${index}` })) as never });
const quotas = mockClient(ServiceQuotasClient);
quotas.on(ListServiceQuotasCommand).resolves({ Quotas: [] });
quotas.on(ListAWSDefaultServiceQuotasCommand).resolves({ Quotas: [] });
