import { App } from 'aws-cdk-lib';
import { readSettings } from '../lib/config.ts';
import { HushlinkStack } from '../lib/stack.ts';
import { prepareWebAssets } from '../lib/web.ts';

const app = new App();
const settings = readSettings(app.node);

// The web client is built (esbuild, in memory) into a temporary folder the stack deploys to S3.
const webAssetsDir = await prepareWebAssets();

new HushlinkStack(app, `Hushlink-${settings.stage}`, {
  settings,
  webAssetsDir,
  // Both unset (no AWS credentials, no region context) keeps synth offline and account-agnostic.
  env: {
    account: process.env.CDK_DEFAULT_ACCOUNT,
    region: settings.region ?? process.env.CDK_DEFAULT_REGION,
  },
  description: `Hushlink zero-knowledge secret sharing (${settings.stage})`,
});
