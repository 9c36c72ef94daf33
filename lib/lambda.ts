import { defaultRequestBudget } from '../shared/deadline.ts';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy, Tags, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Tag naming the `functions/<name>.ts` entry a Lambda runs. Tests and operators find a
 * function by it, since logical ids and physical names carry generated suffixes.
 */
export const FUNCTION_TAG = 'hushlink:function';

/** The module the Lambda bundles take their AWS credentials from (relative to the project root). */
export const lambdaCredentialsModule = 'shared/adapters/lambdaCredentials.ts';

/** What every function of the stack shares; only the entry differs. */
export interface FunctionDefaults {
  readonly environment: Record<string, string>;
  /** Days the function's log group keeps its logs. */
  readonly logRetentionDays: number;
  /** Keeps the log group when the stack is deleted. */
  readonly retainLogs: boolean;
  /** Active X-Ray tracing. */
  readonly xray: boolean;
}

/**
 * How every function is bundled: the `bundling` HushlinkFunction gives NodejsFunction, and the
 * one definition of it (bench/bundles.ts builds with these same options to measure the bundles).
 */
export const lambdaBundling: nodejs.BundlingOptions = {
  // No Docker on build machines: esbuild from node_modules does the bundling.
  forceDockerBundling: false,
  format: nodejs.OutputFormat.ESM,
  target: 'node22',
  // Prefer ESM builds of dependencies, and give CommonJS dependencies a `require`.
  mainFields: ['module', 'main'],
  banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
  // One small file to load at cold start: minified, tree-shaken, the SDK clients included.
  minify: true,
  sourceMap: true,
  sourcesContent: false,
  // Bundle the AWS SDK instead of using the runtime's copy: pinned versions, same code as tests.
  externalModules: [],
  // In Lambda the credentials are the role's, in the environment: the SDK's whole provider chain
  // (SSO, profiles, metadata services and their clients) gives way to that one step.
  esbuildArgs: { '--alias': `@aws-sdk/credential-provider-node=./${lambdaCredentialsModule}` },
};

export interface HushlinkFunctionProps extends FunctionDefaults {
  /** Base name of the entry file under `functions/`. */
  readonly name: string;
  /** Seconds one invocation may run; 10 unless the function waits on others (deliveries). */
  readonly timeoutSeconds?: number;
}

/**
 * Every Lambda of the service is built the same way: Node 22 on arm64, one esbuild bundle with
 * the AWS SDK inside (no Docker), its own log group, and its own role that starts with nothing
 * but writing to that log group. Whatever else a function may do is granted explicitly by the
 * stack (lib/stack.ts), so the role lists exactly what the function's code uses.
 */
export class HushlinkFunction extends Construct {
  readonly fn: nodejs.NodejsFunction;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: HushlinkFunctionProps) {
    super(scope, id);

    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: props.logRetentionDays as logs.RetentionDays,
      removalPolicy: props.retainLogs ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });

    // Instead of the AWSLambdaBasicExecutionRole managed policy (logs on every log group of the
    // account): the two log actions, on this function's log group only. The group exists before
    // the function, so logs:CreateLogGroup is not needed.
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Hushlink function ${props.name}`,
    });
    this.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [this.logGroup.logGroupArn],
      }),
    );

    this.fn = new nodejs.NodejsFunction(this, 'Function', {
      entry: path.join(root, 'functions', `${props.name}.ts`),
      handler: 'handler',
      projectRoot: root,
      depsLockFilePath: path.join(root, 'package-lock.json'),
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: 512,
      // The API functions' timeout is the request budget's (shared/deadline.ts), so their provider calls fit inside it.
      timeout: Duration.seconds(props.timeoutSeconds ?? defaultRequestBudget.functionTimeoutMs / 1000),
      role: this.role,
      logGroup: this.logGroup,
      tracing: props.xray ? lambda.Tracing.ACTIVE : lambda.Tracing.DISABLED,
      environment: {
        ...props.environment,
        // The bundle ships a source map; without this flag stack traces point into minified code.
        NODE_OPTIONS: '--enable-source-maps',
      },
      bundling: lambdaBundling,
    });
    Tags.of(this.fn).add(FUNCTION_TAG, props.name);

    Validations.of(this.fn).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'Node.js 22 is the runtime the design pins (esbuild target node22, the Node the local runtime and tests run on); ' +
        'moving to a newer runtime is a deliberate upgrade of target, runtime and CI together, not a drift.',
    });
    if (props.xray) {
      Validations.of(this.role).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'Only with xray on: xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions, ' +
          'so AWS requires Resource "*" for them (the statement CDK adds for Tracing.ACTIVE). Every other statement names its resources.',
      });
    }
  }
}
