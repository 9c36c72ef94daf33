import { type CloudFormationClient, DescribeStacksCommand, type Stack } from '@aws-sdk/client-cloudformation';
import { fail, ok, warn, type Check } from './report.ts';

/**
 * What the doctor reads of the deployed stack: the outputs lib/stack.ts and lib/web.ts declare.
 * Outputs of the stack itself keep their id as key; those of a construct get its path and a
 * hash (`WebWebUrl8A1B…`), so they are found by prefix.
 */
export interface StackOutputs {
  /** `PaymentProviderSecretsArn`: Stripe's {secret_key, webhook_secret}. */
  paymentSecretsArn: string | undefined;
  /** `ChatAppSecretsArn`: Slack's {client_secret, signing_secret}. */
  chatSecretsArn: string | undefined;
  /** `AlarmTopicArn`: the topic alarmEmail is subscribed to. */
  alarmTopicArn: string | undefined;
  /** `WebWebUrl…`: the distribution's URL (webOrigin's host, or *.cloudfront.net without a certificate). */
  webUrl: string | undefined;
}

const outputKeys = {
  paymentSecretsArn: 'PaymentProviderSecretsArn',
  chatSecretsArn: 'ChatAppSecretsArn',
  alarmTopicArn: 'AlarmTopicArn',
} as const;
const webUrlPrefix = 'WebWebUrl';

export function outputsOf(stack: Stack): StackOutputs {
  const outputs = stack.Outputs ?? [];
  const exact = (key: string) => outputs.find((output) => output.OutputKey === key)?.OutputValue;
  return {
    paymentSecretsArn: exact(outputKeys.paymentSecretsArn),
    chatSecretsArn: exact(outputKeys.chatSecretsArn),
    alarmTopicArn: exact(outputKeys.alarmTopicArn),
    webUrl: outputs.find((output) => output.OutputKey?.startsWith(webUrlPrefix))?.OutputValue,
  };
}

/**
 * `cloudformation:DescribeStacks` of the stage's stack: its state, and its outputs for the
 * checks that need them (null when there is no stack to read them from).
 */
export async function checkStack(
  cloudformation: CloudFormationClient,
  stackName: string,
  region: string,
): Promise<{ check: Check; outputs: StackOutputs | null }> {
  let stack: Stack | undefined;
  try {
    stack = (await cloudformation.send(new DescribeStacksCommand({ StackName: stackName }))).Stacks?.[0];
  } catch (error) {
    // CloudFormation answers a stack that does not exist with a ValidationError naming it.
    if (!(error as Error).message?.includes('does not exist')) throw error;
  }
  const deploy = `deploy it: npx cdk deploy -c stage=${stackName.replace(/^Hushlink-/, '')} … (README, "First deploy")`;
  if (!stack) return { check: fail('stack', `no stack ${stackName} in ${region}`, deploy), outputs: null };
  const status = stack.StackStatus ?? 'UNKNOWN';
  const when = (stack.LastUpdatedTime ?? stack.CreationTime)?.toISOString().slice(0, 16).replace('T', ' ');
  const detail = `${stackName} ${status}${when ? ` (${when} UTC)` : ''}`;
  const outputs = outputsOf(stack);
  if (status === 'CREATE_COMPLETE' || status === 'UPDATE_COMPLETE' || status === 'IMPORT_COMPLETE')
    return { check: ok('stack', detail), outputs };
  if (status.endsWith('_IN_PROGRESS'))
    return { check: warn('stack', `${detail}: a change is under way`, 'run the doctor again when the stack is *_COMPLETE'), outputs };
  if (status === 'UPDATE_ROLLBACK_COMPLETE' || status === 'IMPORT_ROLLBACK_COMPLETE')
    return {
      check: warn(
        'stack',
        `${detail}: the last update was rolled back; the stack runs the version before it`,
        `read the stack's events for the first failed resource (aws cloudformation describe-stack-events --stack-name ${stackName}), fix it and deploy again`,
      ),
      outputs,
    };
  // ROLLBACK_COMPLETE (a first deploy that failed), *_FAILED, DELETE_COMPLETE.
  return {
    check: fail(
      'stack',
      `${detail}: not a working deployment`,
      `read the stack's events (aws cloudformation describe-stack-events --stack-name ${stackName}); a stack in ROLLBACK_COMPLETE must be deleted before it is deployed again`,
    ),
    outputs: status === 'ROLLBACK_COMPLETE' || status.startsWith('DELETE') ? null : outputs,
  };
}
