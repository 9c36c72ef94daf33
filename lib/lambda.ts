import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy, Tags } from 'aws-cdk-lib';
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

export interface HushlinkFunctionProps {
  /** Base name of the entry file under `functions/`. */
  readonly name: string;
  readonly environment: Record<string, string>;
  /** Keeps the log group when the stack is deleted. */
  readonly retainLogs: boolean;
}

/** Every Lambda of the service is built the same way; only the entry and environment differ. */
export class HushlinkFunction extends Construct {
  readonly fn: nodejs.NodejsFunction;

  constructor(scope: Construct, id: string, props: HushlinkFunctionProps) {
    super(scope, id);

    const logGroup = new logs.LogGroup(this, 'Logs', {
      retention: props.retainLogs ? logs.RetentionDays.THREE_MONTHS : logs.RetentionDays.TWO_WEEKS,
      removalPolicy: props.retainLogs ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });

    this.fn = new nodejs.NodejsFunction(this, 'Function', {
      entry: path.join(root, 'functions', `${props.name}.ts`),
      handler: 'handler',
      projectRoot: root,
      depsLockFilePath: path.join(root, 'package-lock.json'),
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: 512,
      timeout: Duration.seconds(10),
      logGroup,
      environment: {
        ...props.environment,
        // The bundle ships a source map; without this flag stack traces point into minified code.
        NODE_OPTIONS: '--enable-source-maps',
      },
      bundling: {
        // No Docker on build machines: esbuild from node_modules does the bundling.
        forceDockerBundling: false,
        format: nodejs.OutputFormat.ESM,
        target: 'node22',
        // Prefer ESM builds of dependencies, and give CommonJS dependencies a `require`.
        mainFields: ['module', 'main'],
        banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
        minify: true,
        sourceMap: true,
        sourcesContent: false,
        // Bundle the AWS SDK instead of using the runtime's copy: pinned versions, same code as tests.
        externalModules: [],
      },
    });
    Tags.of(this.fn).add(FUNCTION_TAG, props.name);
  }
}
