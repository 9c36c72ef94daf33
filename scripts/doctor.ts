/**
 * A deployment's preflight (issue 28): what it needs outside its stack, checked with read-only
 * calls, one line each (ok, warn or fail) and what to do. The last step of a deploy:
 *
 *   npm run doctor -- --stage prod -c pricePro=price_… -c priceTeamSeat=price_… [--region eu-west-1]
 *   npm run doctor -- --help
 *
 * The command line is scripts/doctor/cli.ts's, the deployment's settings lib/config.ts's (as the
 * CDK app reads them), each provider's checks a file of scripts/doctor/. Credentials come from the
 * SDK's default chain. Exit status: 0 nothing failed, 1 a check failed, 2 a wrong command line.
 */
import { fileURLToPath } from 'node:url';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { CloudFrontClient } from '@aws-sdk/client-cloudfront';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import { SESClient } from '@aws-sdk/client-ses';
import { SNSClient } from '@aws-sdk/client-sns';
import { stripeClient } from '../shared/adapters/stripe.ts';
import { parseDoctorArgs, usage } from './doctor/cli.ts';
import { renderReport } from './doctor/report.ts';
import { runDoctor } from './doctor/run.ts';
import { doctorTarget, projectContext } from './doctor/settings.ts';

const command = parseDoctorArgs(process.argv.slice(2));
if (command.kind === 'help') {
  console.log(usage);
} else if (command.kind === 'usage_error') {
  console.error(`doctor: ${command.message}\nRun with --help for the options.`);
  process.exitCode = 2;
} else {
  const projectDir = fileURLToPath(new URL('..', import.meta.url));
  const { target, check } = doctorTarget(command, projectContext(projectDir), process.env);
  if (!target) {
    process.stdout.write(renderReport([check]).text);
    process.exitCode = 1;
  } else {
    const { region } = target;
    // CloudFront and Service Quotas' CloudFront quotas are global, answered in us-east-1.
    const clients = {
      cloudformation: new CloudFormationClient({ region }),
      ses: new SESClient({ region }),
      sns: new SNSClient({ region }),
      secrets: new SecretsManagerClient({ region }),
      cloudfront: new CloudFrontClient({ region: 'us-east-1' }),
      quotas: new ServiceQuotasClient({ region: 'us-east-1' }),
      stripe: ({ secretKey }: { secretKey: string }) => stripeClient({ secretKey, apiUrl: command.stripeApiUrl }),
    };
    try {
      const { checks, secrets } = await runDoctor(target, clients, { tenantQuota: command.tenantQuota });
      const report = renderReport([check, ...checks], secrets);
      process.stdout.write(report.text);
      process.exitCode = report.status;
    } finally {
      for (const client of Object.values(clients)) if (typeof client !== 'function') client.destroy();
    }
  }
}
