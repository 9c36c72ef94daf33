import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { corsPolicy } from '../shared/http/cors.ts';
import { groups, routeKey, routes, scimFallbackPath, type Group } from '../shared/routes.ts';
import { HushlinkFunction, type FunctionDefaults } from './lambda.ts';

export interface ApiProps extends FunctionDefaults {
  readonly webOrigin: string;
  /**
   * Routes served by a function of their own instead of their group's, by route key
   * (`'POST /v1/billing/webhook'`) → entry name under `functions/` (`'billing-webhook'`). For the
   * payment provider's webhook, which must not share a function (and its permissions and
   * concurrency) with the signed-in routes. The route table has no such route yet, so the stack
   * passes none; a key that is not a route of the table fails the synth.
   */
  readonly dedicated?: Readonly<Record<string, string>>;
  /** Settings only one group's function gets (the webhooks group's KMS key). */
  readonly groupEnvironment?: Partial<Readonly<Record<Group, Readonly<Record<string, string>>>>>;
}

/**
 * What the access log records per request. Deliberately no path, query string, headers (so no
 * authorization), body, or user agent: `routeKey` names the route's template
 * (`POST /v1/secrets/{id}/claim`), not the id or the token the request carried.
 */
export const accessLogFields = {
  requestId: '$context.requestId',
  routeKey: '$context.routeKey',
  status: '$context.status',
  responseLatency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  sourceIp: '$context.identity.sourceIp',
  requestTime: '$context.requestTime',
} as const;

/** The HTTP API: one Lambda per group of `shared/routes.ts`, one API route per row. */
export class Api extends Construct {
  readonly httpApi: apigw.HttpApi;
  readonly stage: apigw.HttpStage;
  readonly accessLogs: logs.LogGroup;
  /** The function of each group (entry `functions/<group>.ts`). */
  readonly functions: Readonly<Record<Group, nodejs.NodejsFunction>>;
  /** The dedicated functions, by entry name (see `ApiProps.dedicated`). */
  readonly dedicatedFunctions: Readonly<Record<string, nodejs.NodejsFunction>>;

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);
    const { webOrigin, dedicated = {}, groupEnvironment = {}, ...functionDefaults } = props;

    const keys = new Set(routes.map(routeKey));
    for (const key of Object.keys(dedicated)) {
      if (!keys.has(key)) throw new Error(`dedicated function for ${key}, which is not a route of shared/routes.ts`);
    }

    this.httpApi = new apigw.HttpApi(this, 'HttpApi', {
      apiName: Stack.of(this).stackName,
      // The default stage is added below, because only an explicit stage takes throttling.
      createDefaultStage: false,
      corsPreflight: {
        allowOrigins: [webOrigin],
        allowMethods: [...new Set(routes.map((route) => apigw.CorsHttpMethod[route.method]))],
        // The same policy the local gateway and the response middleware apply.
        allowHeaders: [...corsPolicy.allowHeaders],
        exposeHeaders: [...corsPolicy.exposeHeaders],
        maxAge: Duration.seconds(corsPolicy.maxAgeSeconds),
      },
    });
    Validations.of(this.httpApi).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'Authorization is done in the function, per the route table (shared/routes.ts): each row names its credential ' +
        '(public, optional, user, session) and scope, and the shared middleware enforces it before any operation runs. ' +
        'Many routes are public by design (create, metadata, claim), and sessions are revocable JWTs checked against the ' +
        'table, which an API Gateway JWT authorizer could not do.',
    });

    this.accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: functionDefaults.logRetentionDays as logs.RetentionDays,
      removalPolicy: functionDefaults.retainLogs ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    this.stage = this.httpApi.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      // A ceiling for the whole API; per-caller limits live in the handlers (shared/limits.ts).
      throttle: { burstLimit: 200, rateLimit: 100 },
      accessLogSettings: {
        destination: new apigw.LogGroupLogDestination(this.accessLogs),
        format: apigateway.AccessLogFormat.custom(JSON.stringify(accessLogFields)),
      },
    });

    const functions = {} as Record<Group, nodejs.NodejsFunction>;
    const integrations = {} as Record<Group, HttpLambdaIntegration>;
    for (const group of groups) {
      const { fn } = new HushlinkFunction(this, `Group-${group}`, {
        name: group,
        ...functionDefaults,
        environment: { ...functionDefaults.environment, ...groupEnvironment[group] },
      });
      functions[group] = fn;
      // Shared by all the group's routes: one integration resource per group, while CDK still
      // adds one invoke permission per route, scoped to that route's path.
      integrations[group] = new HttpLambdaIntegration(`Integration-${group}`, fn, {
        payloadFormatVersion: apigw.PayloadFormatVersion.VERSION_2_0,
      });
    }
    this.functions = functions;

    const dedicatedFunctions: Record<string, nodejs.NodejsFunction> = {};
    const dedicatedIntegrations: Record<string, HttpLambdaIntegration> = {};
    for (const name of new Set(Object.values(dedicated))) {
      const { fn } = new HushlinkFunction(this, `Dedicated-${name}`, { name, ...functionDefaults });
      dedicatedFunctions[name] = fn;
      dedicatedIntegrations[name] = new HttpLambdaIntegration(`Integration-dedicated-${name}`, fn, {
        payloadFormatVersion: apigw.PayloadFormatVersion.VERSION_2_0,
      });
    }
    this.dedicatedFunctions = dedicatedFunctions;

    for (const route of routes) {
      const own = dedicated[routeKey(route)];
      this.httpApi.addRoutes({
        path: route.path,
        methods: [apigw.HttpMethod[route.method]],
        integration: own === undefined ? integrations[route.group] : dedicatedIntegrations[own]!,
      });
    }
    // What no SCIM row matches (another method, /Groups) reaches the scim function, which answers
    // a SCIM 405 or 404: API Gateway's own `{"message":"Not Found"}` is nothing a SCIM client reads.
    // A greedy route ranks below every row's, so the rows keep their requests.
    this.httpApi.addRoutes({ path: scimFallbackPath, methods: [apigw.HttpMethod.ANY], integration: integrations.scim });
  }

  /** Every function behind the API: the groups', then the dedicated ones. */
  allFunctions(): nodejs.NodejsFunction[] {
    return [...Object.values(this.functions), ...Object.values(this.dedicatedFunctions)];
  }
}
