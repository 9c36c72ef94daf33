import { App } from 'aws-cdk-lib';
import { readSettings } from '../lib/config.ts';
import { HushlinkStack } from '../lib/stack.ts';

const app = new App();
const settings = readSettings(app.node);

new HushlinkStack(app, `Hushlink-${settings.stage}`, {
  settings,
  // Both unset (no AWS credentials, no region context) keeps synth offline and account-agnostic.
  env: {
    account: process.env.CDK_DEFAULT_ACCOUNT,
    region: settings.region ?? process.env.CDK_DEFAULT_REGION,
  },
  description: `Hushlink zero-knowledge secret sharing (${settings.stage})`,
});
