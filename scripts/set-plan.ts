/**
 * Sales' admin command for contract plans (issue 16: Enterprise is by enquiry only, set by a
 * documented command run with AWS credentials, never an API route):
 *
 *   npm run admin:set-plan -- --email cto@example.com --plan enterprise --note "Contract 2025-014" --by ana --table <TableName> --region eu-west-1
 *   npm run admin:set-plan -- --help
 *
 * The command line is scripts/setPlanCli.ts's, the rules shared/domain/contractPlans.ts's, the
 * writes shared/store/contractPlans.ts's. Credentials come from the SDK's default chain (the
 * environment, a profile, SSO); the IAM it needs is in docs/operations.md, "Enterprise by contract".
 */
import { systemClock } from '../shared/clock.ts';
import { setContractPlan } from '../shared/domain/contractPlans.ts';
import { DynamoBillingStore } from '../shared/store/billing.ts';
import { createDocumentClient } from '../shared/store/client.ts';
import { DynamoContractPlans } from '../shared/store/contractPlans.ts';
import { parseSetPlanArgs, renderResult, usage } from './setPlanCli.ts';

const command = parseSetPlanArgs(process.argv.slice(2), process.env);
if (command.kind === 'help') {
  console.log(usage);
} else if (command.kind === 'usage_error') {
  console.error(`set-plan: ${command.message}\nRun with --help for the options.`);
  process.exitCode = 2;
} else {
  const db = createDocumentClient({ region: command.region, endpoint: command.endpoint });
  try {
    const result = await setContractPlan(command.request, {
      contracts: new DynamoContractPlans(db, command.table),
      billing: new DynamoBillingStore(db, command.table),
      clock: systemClock,
    });
    const { stdout, stderr, status } = renderResult(result, command.request);
    process.stdout.write(stdout);
    if (stderr) console.error(`set-plan: ${stderr}`);
    process.exitCode = status;
  } catch (error) {
    // Credentials, permissions, a wrong table or region: the SDK's own words say which.
    console.error(`set-plan: ${(error as Error).name}: ${(error as Error).message}`);
    process.exitCode = 1;
  } finally {
    db.destroy();
  }
}
