import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { Api } from './api.ts';
import type { HushlinkSettings } from './config.ts';
import { Data } from './data.ts';
import { Jobs } from './jobs.ts';

export interface HushlinkStackProps extends StackProps {
  readonly settings: HushlinkSettings;
}

export class HushlinkStack extends Stack {
  readonly data: Data;
  readonly api: Api;
  readonly jobs: Jobs;

  constructor(scope: Construct, id: string, props: HushlinkStackProps) {
    super(scope, id, props);
    const { settings } = props;
    const retain = settings.stage === 'prod';

    this.data = new Data(this, 'Data', { retain, webOrigin: settings.webOrigin });

    // The names shared/config.ts validates at cold start; every function gets the same set.
    const environment: Record<string, string> = {
      HUSHLINK_MODE: 'aws',
      TABLE_NAME: this.data.table.tableName,
      WEB_ORIGIN: settings.webOrigin,
      REGION: this.region,
      LOG_LEVEL: settings.logLevel,
      MAIL_FROM: settings.mailFrom,
    };

    this.api = new Api(this, 'Api', { webOrigin: settings.webOrigin, environment, retainLogs: retain });
    this.jobs = new Jobs(this, 'Jobs', { environment, retainLogs: retain });

    for (const fn of [...Object.values(this.api.functions), this.jobs.scheduleFunction]) {
      this.data.table.grantReadWriteData(fn);
    }
    // Only the account function sends mail (sign-in codes), and only from the configured identity.
    this.api.functions.account.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['ses:SendEmail'],
        resources: [this.formatArn({ service: 'ses', resource: 'identity', resourceName: settings.sesIdentity })],
        conditions: { StringEquals: { 'ses:FromAddress': settings.mailFrom } },
      }),
    );

    new CfnOutput(this, 'ApiUrl', { value: this.api.stage.url });
    new CfnOutput(this, 'TableName', { value: this.data.table.tableName });
    new CfnOutput(this, 'FilesBucketName', { value: this.data.filesBucket.bucketName });
  }
}
