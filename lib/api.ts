import { Duration, Stack } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import { Construct } from 'constructs';
import { corsPolicy } from '../shared/http/cors.ts';
import { groups, routes, type Group } from '../shared/routes.ts';
import { HushlinkFunction } from './lambda.ts';

export interface ApiProps {
  readonly webOrigin: string;
  readonly environment: Record<string, string>;
  readonly retainLogs: boolean;
}

/** The HTTP API: one Lambda per group of `shared/routes.ts`, one API route per row. */
export class Api extends Construct {
  readonly httpApi: apigw.HttpApi;
  readonly stage: apigw.HttpStage;
  readonly functions: Readonly<Record<Group, nodejs.NodejsFunction>>;

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);

    this.httpApi = new apigw.HttpApi(this, 'HttpApi', {
      apiName: Stack.of(this).stackName,
      // The default stage is added below, because only an explicit stage takes throttling.
      createDefaultStage: false,
      corsPreflight: {
        allowOrigins: [props.webOrigin],
        allowMethods: [...new Set(routes.map((route) => apigw.CorsHttpMethod[route.method]))],
        // The same policy the local gateway and the response middleware apply.
        allowHeaders: [...corsPolicy.allowHeaders],
        exposeHeaders: [...corsPolicy.exposeHeaders],
        maxAge: Duration.seconds(corsPolicy.maxAgeSeconds),
      },
    });
    this.stage = this.httpApi.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      // A ceiling for the whole API; per-caller limits live in the handlers (shared/limits.ts).
      throttle: { burstLimit: 200, rateLimit: 100 },
    });

    const functions = {} as Record<Group, nodejs.NodejsFunction>;
    const integrations = {} as Record<Group, HttpLambdaIntegration>;
    for (const group of groups) {
      const { fn } = new HushlinkFunction(this, `Group-${group}`, {
        name: group,
        environment: props.environment,
        retainLogs: props.retainLogs,
      });
      functions[group] = fn;
      // Shared by all the group's routes: one integration resource per group, while CDK still
      // adds one invoke permission per route, scoped to that route's path.
      integrations[group] = new HttpLambdaIntegration(`Integration-${group}`, fn, {
        payloadFormatVersion: apigw.PayloadFormatVersion.VERSION_2_0,
      });
    }
    this.functions = functions;

    for (const route of routes) {
      this.httpApi.addRoutes({
        path: route.path,
        methods: [apigw.HttpMethod[route.method]],
        integration: integrations[route.group],
      });
    }
  }
}
