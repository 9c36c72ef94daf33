import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  apiPathPatterns,
  filesBucketOrigin,
  pageRewrites,
  prepareWebAssets,
  viewerHostCode,
  viewerRequestCode,
  viewerResponseCode,
  WebHosting,
  type WebHostingProps,
} from '../../lib/web.ts';
import { viewerHostHeader } from '../../shared/http/viewerHost.ts';
import { contentSecurityPolicy, webHeaders } from '../../shared/http/webHeaders.ts';
import { assetPathFor, buildWeb } from '../../web/build.ts';
import { cdkContext } from './context.ts';

type Resource = { Type: string; Properties?: Record<string, any>; DeletionPolicy?: string; DependsOn?: string[] };

const FILES_ORIGIN = 'https://hushlink-files.s3.eu-west-1.amazonaws.com';
const CERTIFICATE_ARN = 'arn:aws:acm:us-east-1:123456789012:certificate/11111111-2222-3333-4444-555555555555';
const assetsDir = await prepareWebAssets();
// prepareWebAssets removes it at process exit, which a test worker may never reach.
afterAll(() => rmSync(assetsDir, { recursive: true, force: true }));
const built = await buildWeb();

type Options = Partial<Omit<WebHostingProps, 'api' | 'assetsDir' | 'accessLogsBucket'>> & { accessLogs?: boolean; envAgnostic?: boolean };

/** A throwaway stack with a bare HTTP API, so only WebHosting is under test. */
function build({ accessLogs, envAgnostic, ...props }: Options = {}): { app: App; stack: Stack; web: WebHosting } {
  const app = new App({ context: cdkContext });
  const stack = new Stack(app, 'WebTest', envAgnostic ? {} : { env: { account: '123456789012', region: 'eu-west-1' } });
  const api = new apigw.HttpApi(stack, 'Api');
  const accessLogsBucket = accessLogs ? new s3.Bucket(stack, 'AccessLogs', { enforceSSL: true }) : undefined;
  const web = new WebHosting(stack, 'Web', {
    api,
    assetsDir,
    webOrigin: 'https://secrets.example.org',
    filesOrigin: FILES_ORIGIN,
    retain: false,
    originVerifyValue: 'origin-verify-value',
    ...(accessLogsBucket ? { accessLogsBucket } : {}),
    ...props,
  });
  return { app, stack, web };
}

function synth(options: Options = {}): { stack: Stack; template: Template; web: WebHosting } {
  const { stack, web } = build(options);
  return { stack, template: Template.fromStack(stack), web };
}

const { stack, template } = synth({ certificateArn: CERTIFICATE_ARN, accessLogs: true });
const resources = template.toJSON().Resources as Record<string, Resource>;
const ofType = (type: string): [string, Resource][] => Object.entries(resources).filter(([, r]) => r.Type === type);
const only = (type: string): [string, Resource] => {
  const found = ofType(type);
  expect(found, type).toHaveLength(1);
  return found[0]!;
};

const distributions = ofType('AWS::CloudFront::Distribution');
expect(distributions).toHaveLength(2);
const [distributionId, distribution] = distributions.find(([, d]) => d.Properties!.DistributionConfig.ConnectionMode === undefined)!;
const config = distribution.Properties!.DistributionConfig;
const [tenantDistributionId, tenantDistribution] = distributions.find(
  ([, d]) => d.Properties!.DistributionConfig.ConnectionMode === 'tenant-only',
)!;
const tenantConfig = tenantDistribution.Properties!.DistributionConfig;
const [bucketId, bucket] = ofType('AWS::S3::Bucket').find(([id]) => id.startsWith('WebAssets'))!;
const [apiId] = only('AWS::ApiGatewayV2::Api');
const cfFunctions = ofType('AWS::CloudFront::Function');
expect(cfFunctions).toHaveLength(3);
const [functionId, cfFunction] = cfFunctions.find(([id]) => id.startsWith('WebViewerRequest'))!;
const [responseFunctionId, responseFunction] = cfFunctions.find(([id]) => id.startsWith('WebViewerResponse'))!;
const [viewerHostId, viewerHostFunction] = cfFunctions.find(([id]) => id.startsWith('WebViewerHost'))!;
const [headersPolicyId, headersPolicy] = only('AWS::CloudFront::ResponseHeadersPolicy');

const originOf = (behavior: { TargetOriginId: string }, of = config) =>
  (of.Origins as any[]).find((origin) => origin.Id === behavior.TargetOriginId);
const behaviorFor = (pattern: string, of = config) => (of.CacheBehaviors as any[]).find((behavior) => behavior.PathPattern === pattern);

// Managed policy ids (aws-cdk-lib's CachePolicy / OriginRequestPolicy constants).
const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
const CACHING_OPTIMIZED = '658327ea-f89d-4fab-a63d-7e88639e58f6';
const ALL_VIEWER_EXCEPT_HOST_HEADER = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

/** Runs the generated CloudFront Function source the way CloudFront does: `handler(event)`. */
function runFunction(
  source: string,
  uri: string,
  headers: Record<string, { value: string }> = {},
): { uri: string; headers: Record<string, { value: string }> } {
  const handler = new Function('event', `${source}\nreturn handler(event);`) as (event: unknown) => {
    uri: string;
    headers: Record<string, { value: string }>;
  };
  return handler({
    version: '1.0',
    context: { eventType: 'viewer-request' },
    viewer: { ip: '192.0.2.1' },
    request: { method: 'GET', uri, querystring: {}, headers, cookies: {} },
  });
}
const deployedCode = cfFunction.Properties!.FunctionCode as string;

/** Runs the generated viewer-response source on a response of `status` to a request for `uri`. */
function runResponseFunction(source: string, uri: string, status = 200): { statusCode: number; statusDescription?: string } {
  const handler = new Function('event', `${source}\nreturn handler(event);`) as (event: unknown) => {
    statusCode: number;
    statusDescription?: string;
  };
  return handler({
    version: '1.0',
    context: { eventType: 'viewer-response' },
    viewer: { ip: '192.0.2.1' },
    request: { method: 'GET', uri, querystring: {}, headers: {}, cookies: {} },
    response: { statusCode: status, statusDescription: 'OK', headers: {}, cookies: {} },
  });
}
const deployedResponseCode = responseFunction.Properties!.FunctionCode as string;

describe('WebHosting: bucket', () => {
  it('is private, SSL only and S3-encrypted, with no website hosting', () => {
    expect(bucket.Properties!.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(bucket.Properties!.BucketEncryption).toEqual({
      ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
    });
    expect(bucket.Properties!.WebsiteConfiguration).toBeUndefined();
    expect(bucket.Properties!.LoggingConfiguration).toEqual({
      DestinationBucketName: { Ref: expect.stringMatching(/^AccessLogs/) },
      LogFilePrefix: 'web-assets/',
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: bucketId },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Principal: { AWS: '*' },
            Action: 's3:*',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      },
    });
  });

  it('is read only by this distribution, through origin access control', () => {
    const [oacId] = only('AWS::CloudFront::OriginAccessControl');
    expect(resources[oacId]!.Properties!.OriginAccessControlConfig).toMatchObject({
      OriginAccessControlOriginType: 's3',
      SigningBehavior: 'always',
      SigningProtocol: 'sigv4',
    });
    const s3Origin = originOf(config.DefaultCacheBehavior);
    expect(s3Origin.DomainName).toEqual({ 'Fn::GetAtt': [bucketId, 'RegionalDomainName'] });
    expect(s3Origin.OriginAccessControlId).toEqual({ 'Fn::GetAtt': [oacId, 'Id'] });
    expect(s3Origin.S3OriginConfig).toEqual({ OriginAccessIdentity: '' });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: bucketId },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'cloudfront.amazonaws.com' },
            Action: 's3:GetObject',
            Condition: {
              StringEquals: {
                'AWS:SourceArn': Match.objectLike({ 'Fn::Join': Match.arrayWith([Match.arrayWith([{ Ref: distributionId }])]) }),
              },
            },
          }),
        ]),
      },
    });
  });

  it('is emptied and deleted with a deletable stage, kept with a retained one', () => {
    expect(bucket.DeletionPolicy).toBe('Delete');
    template.resourceCountIs('Custom::S3AutoDeleteObjects', 1);
    const retained = synth({ retain: true, certificateArn: CERTIFICATE_ARN }).template;
    const [, kept] = Object.entries(retained.toJSON().Resources as Record<string, Resource>).find(
      ([id, r]) => r.Type === 'AWS::S3::Bucket' && id.startsWith('WebAssets'),
    )!;
    expect(kept.DeletionPolicy).toBe('Retain');
    retained.resourceCountIs('Custom::S3AutoDeleteObjects', 0);
  });
});

describe('WebHosting: distribution', () => {
  it('serves HTTP/2 and HTTP/3 over TLS 1.2 or later, on the custom domain', () => {
    expect(config.HttpVersion).toBe('http2and3');
    expect(config.Aliases).toEqual(['secrets.example.org']);
    expect(config.ViewerCertificate).toEqual({
      AcmCertificateArn: CERTIFICATE_ARN,
      MinimumProtocolVersion: 'TLSv1.2_2021',
      SslSupportMethod: 'sni-only',
    });
    expect(config.DefaultRootObject).toBeUndefined();
    // Error responses would rewrite the API's own 4xx/5xx.
    expect(config.CustomErrorResponses).toBeUndefined();
  });

  it('answers plain HTTP with a redirect only at the bare pages; secret links, request links and the API refuse it', () => {
    expect(config.DefaultCacheBehavior.ViewerProtocolPolicy).toBe('redirect-to-https');
    for (const pattern of ['/s/*', '/q/*', ...apiPathPatterns])
      expect(behaviorFor(pattern).ViewerProtocolPolicy, pattern).toBe('https-only');
    expect((config.CacheBehaviors as any[]).map((behavior) => behavior.PathPattern).sort()).toEqual(
      ['/s/*', '/q/*', ...apiPathPatterns].sort(),
    );
  });

  it('serves pages from the bucket with the rewrite function and the web headers', () => {
    for (const behavior of [config.DefaultCacheBehavior, behaviorFor('/s/*'), behaviorFor('/q/*')]) {
      expect(originOf(behavior).S3OriginConfig).toBeDefined();
      expect(behavior.FunctionAssociations).toEqual([
        { EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [functionId, 'FunctionARN'] } },
        { EventType: 'viewer-response', FunctionARN: { 'Fn::GetAtt': [responseFunctionId, 'FunctionARN'] } },
      ]);
      expect(behavior.ResponseHeadersPolicyId).toEqual({ Ref: headersPolicyId });
      expect(behavior.CachePolicyId).toBe(CACHING_OPTIMIZED);
      expect(behavior.AllowedMethods).toEqual(['GET', 'HEAD']);
    }
  });

  it('sends /v1/* and /scim/v2/* to the API, uncached, with every method and without the web headers', () => {
    for (const pattern of apiPathPatterns) {
      const behavior = behaviorFor(pattern);
      expect(behavior.CachePolicyId, pattern).toBe(CACHING_DISABLED);
      expect(behavior.OriginRequestPolicyId, pattern).toBe(ALL_VIEWER_EXCEPT_HOST_HEADER);
      expect(behavior.AllowedMethods, pattern).toEqual(['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE']);
      expect(behavior.ResponseHeadersPolicyId, pattern).toBeUndefined();
      // The host the viewer asked for, which every API function checks (shared/http/viewerHost.ts).
      expect(behavior.FunctionAssociations, pattern).toEqual([
        { EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [viewerHostId, 'FunctionARN'] } },
      ]);
      const origin = originOf(behavior);
      expect(origin.DomainName).toEqual({ 'Fn::Join': ['', [{ Ref: apiId }, '.execute-api.eu-west-1.', { Ref: 'AWS::URLSuffix' }]] });
      expect(origin.CustomOriginConfig).toMatchObject({ OriginProtocolPolicy: 'https-only', OriginSSLProtocols: ['TLSv1.2'] });
      expect(origin.OriginPath).toBeUndefined();
      // The proof that lets the functions trust CloudFront-Viewer-Address (clientAddress.ts).
      expect(origin.OriginCustomHeaders).toEqual([{ HeaderName: 'x-hushlink-origin-verify', HeaderValue: 'origin-verify-value' }]);
    }
    expect(behaviorFor('/v1/*').TargetOriginId).toBe(behaviorFor('/scim/v2/*').TargetOriginId);
  });

  it('puts shared/http/webHeaders.ts in the response headers policy', () => {
    const policy = headersPolicy.Properties!.ResponseHeadersPolicyConfig;
    expect(policy.SecurityHeadersConfig).toEqual({
      ContentSecurityPolicy: { ContentSecurityPolicy: contentSecurityPolicy(FILES_ORIGIN), Override: true },
      StrictTransportSecurity: { AccessControlMaxAgeSec: 63072000, IncludeSubdomains: true, Preload: false, Override: true },
      ReferrerPolicy: { ReferrerPolicy: 'no-referrer', Override: true },
      ContentTypeOptions: { Override: true },
      FrameOptions: { FrameOption: 'DENY', Override: true },
    });
    expect(policy.SecurityHeadersConfig.ContentSecurityPolicy.ContentSecurityPolicy).toContain("frame-ancestors 'none'");
    // The pages reach their own origin and the files bucket (presigned part uploads and downloads), nothing else.
    expect(policy.SecurityHeadersConfig.ContentSecurityPolicy.ContentSecurityPolicy).toContain(`connect-src 'self' ${FILES_ORIGIN};`);
    expect(policy.CustomHeadersConfig.Items).toEqual([
      { Header: 'cross-origin-opener-policy', Value: webHeaders(FILES_ORIGIN)['cross-origin-opener-policy'], Override: true },
      { Header: 'permissions-policy', Value: webHeaders(FILES_ORIGIN)['permissions-policy'], Override: true },
      { Header: 'cache-control', Value: 'no-store', Override: true },
    ]);
  });

  it('lets the pages reach the files bucket by the origin its presigned URLs have, resolved at deploy', () => {
    const app = new App({ context: cdkContext });
    const bucketStack = new Stack(app, 'FilesOriginTest');
    const bucket = new s3.Bucket(bucketStack, 'Files');
    const web = new WebHosting(bucketStack, 'Web', {
      api: new apigw.HttpApi(bucketStack, 'Api'),
      assetsDir,
      webOrigin: 'https://secrets.example.org',
      filesOrigin: filesBucketOrigin(bucket),
      retain: false,
      originVerifyValue: 'origin-verify-value',
    });
    const policy =
      Template.fromStack(bucketStack).toJSON().Resources[bucketStack.getLogicalId(web.responseHeaders.node.defaultChild as CfnElement)];
    const csp = policy.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig.ContentSecurityPolicy.ContentSecurityPolicy;
    const [separator, parts] = csp['Fn::Join'] as [string, unknown[]];
    expect(separator).toBe('');
    // The SDK's virtual-hosted URL (shared/adapters): https://<bucket>.s3.<region>.amazonaws.com
    expect(parts).toEqual([
      expect.stringMatching(/connect-src 'self' https:\/\/$/),
      { Ref: bucketStack.getLogicalId(bucket.node.defaultChild as s3.CfnBucket) },
      '.s3.',
      { Ref: 'AWS::Region' },
      '.',
      { Ref: 'AWS::URLSuffix' },
      expect.stringMatching(/^; manifest-src 'self'/),
    ]);
  });

  it('outputs the domain, the URL and the custom hostnames’ CNAME target', () => {
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    const byPrefix = (prefix: string) => Object.entries(outputs).find(([id]) => id.startsWith(prefix))?.[1].Value;
    expect(byPrefix('WebDistributionDomainName')).toEqual({ 'Fn::GetAtt': [distributionId, 'DomainName'] });
    expect(byPrefix('WebWebUrl')).toBe('https://secrets.example.org');
    const [[connectionGroupId] = []] = ofType('AWS::CloudFront::ConnectionGroup');
    expect(byPrefix('WebCustomHostnameTarget')).toEqual({ 'Fn::GetAtt': [connectionGroupId, 'RoutingEndpoint'] });
    // The tenant distribution has no address of its own to publish.
    expect(JSON.stringify(outputs)).not.toContain(tenantDistributionId);
  });

  it('without a custom domain uses the CloudFront address and warns when webOrigin is elsewhere', () => {
    const { stack: bare, template: bareTemplate, web } = synth();
    const bareConfig = bareTemplate.findResources('AWS::CloudFront::Distribution');
    const distConfig = Object.values(bareConfig).find((d) => d.Properties.DistributionConfig.ConnectionMode === undefined)!.Properties
      .DistributionConfig;
    expect(distConfig.Aliases).toBeUndefined();
    expect(distConfig.ViewerCertificate).toBeUndefined();
    expect(bare.resolve(web.url)).toEqual({
      'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [expect.stringMatching(/^WebDistribution/), 'DomainName'] }]],
    });
    Annotations.fromStack(bare).hasWarning('/WebTest/Web', Match.stringLikeRegexp('webOrigin https://secrets.example.org is not served'));
    Annotations.fromStack(stack).hasNoWarning('*', Match.anyValue());
    const served = synth({ webOrigin: 'https://d111111abcdef8.cloudfront.net' }).stack;
    Annotations.fromStack(served).hasNoWarning('*', Match.anyValue());
  });

  it('refuses a custom domain that is not webOrigin, and a certificate outside us-east-1', () => {
    expect(() => synth({ certificateArn: CERTIFICATE_ARN, domainName: 'other.example.org' })).toThrow(/differs from webOrigin/);
    expect(() => synth({ domainName: 'secrets.example.org' })).toThrow(/needs a certificateArn/);
    expect(() => synth({ certificateArn: CERTIFICATE_ARN.replace('us-east-1', 'eu-west-1') })).toThrow(/us-east-1/);
  });
});

describe('WebHosting: custom hostnames’ distribution', () => {
  it('is multi-tenant, reached only through its tenants, on HTTP/2 and 3, with no address, certificate or IPv6 setting of its own', () => {
    expect(tenantConfig.ConnectionMode).toBe('tenant-only');
    expect(tenantConfig.HttpVersion).toBe('http2and3');
    for (const absent of ['Aliases', 'ViewerCertificate', 'IPV6Enabled', 'PriceClass', 'Logging', 'CustomErrorResponses'])
      expect(tenantConfig[absent], absent).toBeUndefined();
    const [[, group] = []] = ofType('AWS::CloudFront::ConnectionGroup');
    expect(group!.Properties).toEqual({ Name: 'WebTest-custom-hostnames', Enabled: true, Ipv6Enabled: true });
  });

  it('has the main distribution’s behaviours, its web behaviours caching nothing at the edge (a tenant-only distribution cannot be invalidated as a whole)', () => {
    const comparable = (behavior: Record<string, unknown>, of: Record<string, any>) => {
      const { TargetOriginId: _origin, CachePolicyId: _cache, ...rest } = behavior;
      const { Id: _id, ...origin } = originOf(behavior as { TargetOriginId: string }, of);
      return { ...rest, origin };
    };
    expect(comparable(tenantConfig.DefaultCacheBehavior, tenantConfig)).toEqual(comparable(config.DefaultCacheBehavior, config));
    expect((tenantConfig.CacheBehaviors as any[]).map((behavior) => behavior.PathPattern).sort()).toEqual(
      (config.CacheBehaviors as any[]).map((behavior) => behavior.PathPattern).sort(),
    );
    for (const pattern of ['/s/*', '/q/*', ...apiPathPatterns]) {
      expect(comparable(behaviorFor(pattern, tenantConfig), tenantConfig), pattern).toEqual(
        comparable(behaviorFor(pattern, config), config),
      );
      expect(behaviorFor(pattern, tenantConfig).CachePolicyId, pattern).toBe(CACHING_DISABLED);
    }
    expect(tenantConfig.DefaultCacheBehavior.CachePolicyId).toBe(CACHING_DISABLED);
  });

  it('reads the bucket through origin access control, as the main one does, and is given to no deployment to invalidate', () => {
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: bucketId },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Principal: { Service: 'cloudfront.amazonaws.com' },
            Action: 's3:GetObject',
            Condition: {
              StringEquals: {
                'AWS:SourceArn': Match.objectLike({ 'Fn::Join': Match.arrayWith([Match.arrayWith([{ Ref: tenantDistributionId }])]) }),
              },
            },
          }),
        ]),
      },
    });
    for (const [id, deployment] of ofType('Custom::CDKBucketDeployment'))
      expect(JSON.stringify(deployment.Properties), id).not.toContain(tenantDistributionId);
  });
});

describe('WebHosting: viewer-host function', () => {
  const code = viewerHostFunction.Properties!.FunctionCode as string;
  const run = (headers: Record<string, { value: string }>) => runFunction(code, '/v1/secrets/sec_abc', headers).headers;

  it('is the deployed code, on the JS 2.0 runtime, ES5', () => {
    expect(code).toBe(viewerHostCode());
    expect(viewerHostFunction.Properties!.FunctionConfig).toMatchObject({ Runtime: 'cloudfront-js-2.0' });
    expect(code).not.toMatch(/=>|`|\blet\b|\bconst\b|\bclass\b|\basync\b/);
  });

  it('tells the API the host the viewer asked for, replacing any the viewer sent', () => {
    expect(run({ host: { value: 'secrets.acme.example' } })).toEqual({
      host: { value: 'secrets.acme.example' },
      [viewerHostHeader]: { value: 'secrets.acme.example' },
    });
    expect(run({ host: { value: 'secrets.acme.example' }, [viewerHostHeader]: { value: 'forged.example' } })[viewerHostHeader]).toEqual({
      value: 'secrets.acme.example',
    });
  });

  it('sends no host for a distribution’s own *.cloudfront.net name (the deployment’s own, as a direct call is), nor one a viewer made up', () => {
    expect(run({ host: { value: 'd111111abcdef8.cloudfront.net' }, [viewerHostHeader]: { value: 'forged.example' } })).toEqual({
      host: { value: 'd111111abcdef8.cloudfront.net' },
    });
    expect(run({ host: { value: 'D111111ABCDEF8.CLOUDFRONT.NET' } })).toEqual({ host: { value: 'D111111ABCDEF8.CLOUDFRONT.NET' } });
    expect(run({ [viewerHostHeader]: { value: 'forged.example' } })).toEqual({});
    // A name that only ends like CloudFront's is a hostname like any other.
    expect(run({ host: { value: 'links.notcloudfront.net' } })[viewerHostHeader]).toEqual({ value: 'links.notcloudfront.net' });
  });

  it('is on the API behaviours of both distributions, and on no web behaviour', () => {
    for (const of of [config, tenantConfig]) {
      for (const behavior of [of.DefaultCacheBehavior, ...(of.CacheBehaviors as any[])]) {
        const api = (apiPathPatterns as readonly string[]).includes(behavior.PathPattern);
        const names = (behavior.FunctionAssociations ?? []).map((association: { FunctionARN: unknown }) =>
          JSON.stringify(association.FunctionARN),
        );
        expect(names.includes(JSON.stringify({ 'Fn::GetAtt': [viewerHostId, 'FunctionARN'] })), behavior.PathPattern ?? 'default').toBe(
          api,
        );
      }
    }
  });
});

describe('WebHosting: deployment of the web client', () => {
  const deployments = ofType('Custom::CDKBucketDeployment');
  const extensions = [...new Set([...built.keys()].map((path) => path.slice(path.lastIndexOf('.'))))];

  it('writes exactly the buildWeb output, outside the repository', () => {
    expect(assetsDir.startsWith(process.cwd())).toBe(false);
    const files = (readdirSync(assetsDir, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
      .filter((entry) => entry.isFile())
      .map((entry) => `/${join(entry.parentPath, entry.name).slice(assetsDir.length + 1)}`)
      .filter((path) => path !== '/.content-types.json');
    expect(files.sort()).toEqual([...built.keys()].sort());
    for (const [path, asset] of built) expect(readFileSync(join(assetsDir, path)).equals(asset.body), path).toBe(true);
  });

  it('syncs each extension with its buildWeb content type, pages last, then invalidates everything', () => {
    expect(deployments).toHaveLength(extensions.length);
    for (const extension of extensions) {
      const contentType = [...built.entries()].find(([path]) => path.endsWith(extension))![1].contentType;
      const found = deployments.filter(([, d]) => (d.Properties!.Include as string[]).includes(`*${extension}`));
      expect(found, extension).toHaveLength(1);
      expect(found[0]![1].Properties).toMatchObject({
        DestinationBucketName: { Ref: bucketId },
        Exclude: ['*'],
        Include: [`*${extension}`],
        Prune: true,
        SystemMetadata: { 'content-type': contentType },
      });
    }
    const invalidating = deployments.filter(([, d]) => d.Properties!.DistributionId !== undefined);
    expect(invalidating).toHaveLength(1);
    const [pagesId, pages] = invalidating[0]!;
    expect(pages.Properties).toMatchObject({ Include: ['*.html'], DistributionId: { Ref: distributionId }, DistributionPaths: ['/*'] });
    // Every other deployment finishes first: pages never reference a file not yet uploaded.
    const before = new Set<string>();
    const visit = (id: string): void => {
      for (const dep of resources[id]!.DependsOn ?? []) {
        if (resources[dep]?.Type === 'Custom::CDKBucketDeployment' && !before.has(dep)) {
          before.add(dep);
          visit(dep);
        }
      }
    };
    visit(pagesId);
    expect([...before].sort()).toEqual(
      deployments
        .map(([id]) => id)
        .filter((id) => id !== pagesId)
        .sort(),
    );
  });
});

describe('WebHosting: viewer-request function', () => {
  const rewrites = pageRewrites(built.keys());
  const source = viewerRequestCode(rewrites);

  it('is the deployed code, on the JS 2.0 runtime, small and ES5', () => {
    expect(deployedCode).toBe(source);
    expect(cfFunction.Properties!.FunctionConfig).toMatchObject({ Runtime: 'cloudfront-js-2.0' });
    expect(Buffer.byteLength(source)).toBeLessThan(10 * 1024);
    expect(source).not.toMatch(/=>|`|\blet\b|\bconst\b|\bclass\b|\basync\b/);
    expect(source).not.toMatch(/statusCode|location/i);
  });

  it('finds the page routes of assetPathFor, every file of the build and the 404 page', () => {
    expect(rewrites.files).toEqual([...built.keys()].sort());
    expect(rewrites).toEqual({
      files: rewrites.files,
      notFoundPage: '/404.html',
      exact: {
        '/': '/index.html',
        '/signin': '/signin.html',
        '/account': '/account.html',
        '/keys': '/keys.html',
        '/sessions': '/sessions.html',
        '/webhooks': '/webhooks.html',
        '/requests': '/requests.html',
        '/workspaces': '/workspaces.html',
        '/workspace': '/workspace.html',
        '/join': '/join.html',
        '/plans': '/plans.html',
        '/billing': '/billing.html',
        // Single sign-on's landing: the one-time code in the fragment (issue 29).
        '/signin/sso': '/signin/sso.html',
        // Where Slack's Allow lands after an install (ADR 0182).
        '/chat/installed': '/chat/installed.html',
      },
      secretPage: '/reveal.html',
      requestPage: '/respond.html',
    });
  });

  it.each([
    ['/', '/index.html'],
    ['/s/sec_abc', '/reveal.html'],
    ['/s/sec_Abc-123_xyz', '/reveal.html'],
    // A per-recipient link: the same page.
    ['/s/sec_abc/r/rcp_def', '/reveal.html'],
    ['/s/sec_Abc-123_xyz/r/rcp_Abc-123_xyz', '/reveal.html'],
    ['/signin', '/signin.html'],
    ['/signin/sso', '/signin/sso.html'],
    ['/account', '/account.html'],
    ['/keys', '/keys.html'],
    ['/sessions', '/sessions.html'],
    ['/webhooks', '/webhooks.html'],
    ['/requests', '/requests.html'],
    ['/workspaces', '/workspaces.html'],
    // A workspace's page (its id is in the query, which the function never sees) and an invitation's link (the token is in the fragment).
    ['/workspace', '/workspace.html'],
    ['/join', '/join.html'],
    ['/plans', '/plans.html'],
    ['/billing', '/billing.html'],
    // A request link: the responder's page.
    ['/q/rql_abc', '/respond.html'],
    ['/q/rql_Abc-123_xyz', '/respond.html'],
    ['/assets/compose.js', '/assets/compose.js'],
    ['/assets/reveal.js', '/assets/reveal.js'],
    ['/styles.css', '/styles.css'],
    ['/favicon.svg', '/favicon.svg'],
    ['/index.html', '/index.html'],
    ['/404.html', '/404.html'],
    ['/download/worker.js', '/download/worker.js'],
    // Only the web behaviours run this function: an API path never reaches it, so here it is no page.
    ['/v1/secrets', '/404.html'],
    ['/scim/v2/Users', '/404.html'],
    // No page or file: the 404 page (viewerResponseCode gives it its status).
    ['/nope', '/404.html'],
    ['/s/', '/404.html'],
    ['/s/a/b', '/404.html'],
    ['/s/a/r', '/404.html'],
    ['/s/a/r/', '/404.html'],
    ['/s/a/x/b', '/404.html'],
    ['/s/a/r/b/c', '/404.html'],
    ['/s//r/b', '/404.html'],
    ['/q', '/404.html'],
    ['/q/', '/404.html'],
    ['/q/a/', '/404.html'],
    ['/q/a/b', '/404.html'],
    ['/q/a/r/b', '/404.html'],
    ['/respond', '/404.html'],
    ['/requests/', '/404.html'],
    ['/workspaces/', '/404.html'],
    ['/workspace/wks_abc', '/404.html'],
    ['/join/', '/404.html'],
    ['/join/hli_abc', '/404.html'],
    ['/signin/', '/404.html'],
    ['/__proto__', '/404.html'],
    ['/constructor', '/404.html'],
    ['/toString', '/404.html'],
  ])('rewrites %s to %s (a rewrite of the URI, never a response)', (uri, expected) => {
    const result = runFunction(deployedCode, uri);
    expect(result).toMatchObject({ method: 'GET', uri: expected, headers: {} });
    expect(result).not.toHaveProperty('statusCode');
  });

  it('agrees with assetPathFor on any path, and sends what the build lacks to the 404 page', () => {
    const segment = fc.oneof(
      fc.constantFrom(
        '',
        's',
        'r',
        'q',
        'v1',
        'assets',
        'signin',
        'account',
        'keys',
        'sessions',
        'requests',
        'respond',
        'workspaces',
        'workspace',
        'join',
        'index.html',
        'reveal',
        '__proto__',
        'sec_abc',
        'rcp_abc',
        'rql_abc',
      ),
      fc.stringMatching(/^[A-Za-z0-9._~%-]{0,12}$/),
    );
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 5 }), (segments) => {
        const uri = `/${segments.join('/')}`;
        const page = assetPathFor(uri);
        expect(runFunction(deployedCode, uri).uri).toBe(built.has(page) ? page : '/404.html');
      }),
      { numRuns: 2000 },
    );
  });
});

describe('WebHosting: viewer-response function (the 404 status)', () => {
  const rewrites = pageRewrites(built.keys());

  it('is the deployed code, on the JS 2.0 runtime, small and ES5', () => {
    expect(deployedResponseCode).toBe(viewerResponseCode(rewrites));
    expect(responseFunction.Properties!.FunctionConfig).toMatchObject({ Runtime: 'cloudfront-js-2.0' });
    expect(Buffer.byteLength(deployedResponseCode)).toBeLessThan(10 * 1024);
    expect(deployedResponseCode).not.toMatch(/=>|`|\blet\b|\bconst\b|\bclass\b|\basync\b/);
  });

  it.each(['/nope', '/s/', '/q/', '/s/a/b', '/join/hli_abc', '/__proto__', '/404.html'])(
    'answers %s with 404, whether it sees the viewer’s URI or the rewritten one',
    (uri) => {
      for (const seen of [uri, runFunction(deployedCode, uri).uri]) {
        expect(runResponseFunction(deployedResponseCode, seen), seen).toMatchObject({ statusCode: 404, statusDescription: 'Not Found' });
      }
    },
  );

  it.each(['/', '/s/sec_abc', '/s/sec_abc/r/rcp_def', '/q/rql_abc', '/signin/sso', '/workspace', '/styles.css', '/assets/compose.js'])(
    'keeps the status of %s, a page or file, either way',
    (uri) => {
      for (const seen of [uri, runFunction(deployedCode, uri).uri]) {
        expect(runResponseFunction(deployedResponseCode, seen, 200).statusCode, seen).toBe(200);
        expect(runResponseFunction(deployedResponseCode, seen, 304).statusCode, seen).toBe(304);
      }
    },
  );

  it('is on the web behaviours of both distributions, and on no API behaviour (their 4xx stay the API’s)', () => {
    for (const of of [config, tenantConfig]) {
      for (const behavior of [of.DefaultCacheBehavior, ...(of.CacheBehaviors as any[])]) {
        const api = (apiPathPatterns as readonly string[]).includes(behavior.PathPattern);
        const response = (behavior.FunctionAssociations ?? []).filter(
          (association: { EventType: string }) => association.EventType === 'viewer-response',
        );
        expect(response, behavior.PathPattern ?? 'default').toEqual(
          api ? [] : [{ EventType: 'viewer-response', FunctionARN: { 'Fn::GetAtt': [responseFunctionId, 'FunctionARN'] } }],
        );
      }
      expect(of.CustomErrorResponses).toBeUndefined();
    }
  });
});

describe('WebHosting: cdk-nag AwsSolutions', () => {
  type Violation = { ruleName: string; violatingResources: { constructPath?: string }[] };
  const violations = (options: Options): string[] => {
    const { app, stack: checked } = build(options);
    app.synth();
    return (new AwsSolutionsChecks().validateScope(checked).violations as Violation[])
      .flatMap((v) => v.violatingResources.map((r) => `${v.ruleName} at ${r.constructPath}`))
      .filter((finding) => !/ at WebTest\/(Api|AccessLogs)\//.test(finding)); // the throwaway API and log bucket
  };
  const acknowledged = (options: Options): string[] => {
    const { app, stack: checked } = build(options);
    app.synth();
    const ids = new Set<string>();
    for (const node of checked.node.findAll()) {
      for (const entry of node.node.metadata) {
        if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
        for (const [id, reason] of Object.entries(entry.data as Record<string, string>)) {
          expect(reason.length, id).toBeGreaterThanOrEqual(60);
          ids.add(id.replace(/^annotation::/i, '').replace(/\[.*$/, ''));
        }
      }
    }
    return [...ids].sort();
  };

  it.each<[string, Options]>([
    ['custom domain, access logs, pinned environment', { certificateArn: CERTIFICATE_ARN, accessLogs: true }],
    ['CloudFront domain, no access logs, environment-agnostic', { envAgnostic: true }],
    [
      'web ACL, retained bucket',
      { certificateArn: CERTIFICATE_ARN, webAclId: 'arn:aws:wafv2:us-east-1:123456789012:global/webacl/x/1', retain: true },
    ],
  ])('leaves nothing unacknowledged (%s)', (_name, options) => {
    expect(violations(options)).toEqual([]);
  });

  it('acknowledges only what applies', () => {
    // CFR4 always: the custom hostnames' distribution has no certificate of its own.
    const always = [
      'AwsSolutions-CFR1',
      'AwsSolutions-CFR3',
      'AwsSolutions-CFR4',
      'AwsSolutions-IAM4',
      'AwsSolutions-IAM5',
      'AwsSolutions-L1',
    ];
    expect(acknowledged({ certificateArn: CERTIFICATE_ARN, accessLogs: true })).toEqual([...always, 'AwsSolutions-CFR2'].sort());
    expect(acknowledged({})).toEqual([...always, 'AwsSolutions-CFR2', 'AwsSolutions-S1'].sort());
    expect(
      acknowledged({
        certificateArn: CERTIFICATE_ARN,
        accessLogs: true,
        webAclId: 'arn:aws:wafv2:us-east-1:123456789012:global/webacl/x/1',
      }),
    ).toEqual(always);
    // The main distribution's CFR4 only without a certificate.
    const mainCfr4 = (options: Options) => {
      const { web } = build(options);
      return web.distribution.node.metadata.some(
        (entry) =>
          entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY &&
          Object.keys(entry.data as object).some((id) => id.includes('AwsSolutions-CFR4')),
      );
    };
    expect(mainCfr4({ certificateArn: CERTIFICATE_ARN })).toBe(false);
    expect(mainCfr4({})).toBe(true);
  });
});
