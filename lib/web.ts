import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, extname, join, relative, sep } from 'node:path';
import { Annotations, CfnOutput, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { originVerifyHeader } from '../shared/http/clientAddress.ts';
import { viewerHostHeader } from '../shared/http/viewerHost.ts';
import { webHeaders } from '../shared/http/webHeaders.ts';
import { assetPathFor, buildWeb, notFoundPage, requestPagePath, secretPagePath } from '../web/build.ts';

/**
 * Web hosting: the web client from a private S3 bucket behind CloudFront, with `/v1/*` and
 * `/scim/v2/*` sent to the HTTP API so that one origin serves both (the CSP's `'self'`).
 *
 * What the local runtime does in `local/web.ts` is done here by CloudFront: `assetPathFor` by a
 * viewer-request function generated from it, `webHeaders` by a response headers policy built
 * from them.
 */

/** Paths CloudFront sends to the API instead of the bucket. */
export const apiPathPatterns = ['/v1/*', '/scim/v2/*'] as const;

/**
 * Builds the web client (`web/build.ts`) and writes it to a fresh folder under the OS temp
 * folder, for `WebHosting`'s `assetsDir`. Async because esbuild is, while constructs are not:
 * the app entry awaits it before creating the stack. Nothing is written into the repository;
 * the folder is removed when the process exits (CDK has copied it into `cdk.out` by then).
 */
export async function prepareWebAssets(): Promise<string> {
  const assets = await buildWeb();
  const dir = mkdtempSync(join(tmpdir(), 'hushlink-web-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  for (const [path, asset] of assets) {
    const file = join(dir, ...path.split('/').filter(Boolean));
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, asset.body);
  }
  // buildWeb's content type of each extension, for WebHosting's one deployment per extension.
  writeFileSync(join(dir, CONTENT_TYPES_FILE), JSON.stringify(contentTypesByExtension(assets)));
  return dir;
}

/** Not served: excluded from every deployment. Carries buildWeb's content types to the construct. */
const CONTENT_TYPES_FILE = '.content-types.json';

function contentTypesByExtension(assets: Map<string, { contentType: string }>): Record<string, string> {
  const types: Record<string, string> = {};
  for (const [path, { contentType }] of assets) {
    const extension = extname(path);
    if (!extension) throw new Error(`web asset ${path} has no extension: S3 deployments are grouped by extension`);
    if (types[extension] !== undefined && types[extension] !== contentType) {
      throw new Error(`web assets with extension ${extension} have two content types (${types[extension]}, ${contentType})`);
    }
    types[extension] = contentType;
  }
  return types;
}

/** Every file under `dir`, as a served path (`/assets/compose.js`). */
function servedPaths(dir: string): string[] {
  const paths: string[] = [];
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const full = join(folder, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name !== CONTENT_TYPES_FILE) paths.push(`/${relative(dir, full).split(sep).join('/')}`);
    }
  };
  walk(dir);
  return paths.sort();
}

export interface PageRewrites {
  /** Exact paths rewritten to a page: `/` → `/index.html`, `/signin` → `/signin.html`, … */
  readonly exact: Readonly<Record<string, string>>;
  /** The page of `/s/<id>` and `/s/<id>/r/<recipientId>` (each a non-empty segment). */
  readonly secretPage: string;
  /** The page of `/q/<id>` (a request link; one non-empty segment). */
  readonly requestPage: string;
  /** Every file the build serves as it is (`/styles.css`, `/assets/compose.js`, …): any other path is not found. */
  readonly files: readonly string[];
  /** The page every other path gets, with status 404 (`notFoundPage`). */
  readonly notFoundPage: string;
}

/**
 * The rewrites of `assetPathFor`, found by asking it rather than listing the pages again: `/`,
 * and for every served `x.html` the path `/x`, kept when `assetPathFor` maps it somewhere else.
 * The `/s/<id>` and `/s/<id>/r/<recipientId>` rule and the `/q/<id>` rule are patterns
 * (`secretPagePath`, `requestPagePath`, which the function carries), so they are probed; if
 * `web/build.ts` changes their shape, synth fails here instead of the function silently
 * disagreeing with the local runtime.
 */
export function pageRewrites(assetPaths: Iterable<string>): PageRewrites {
  // Sorted: one order of the rewrites, so the function's code is the same however the paths were listed.
  const served = new Set([...assetPaths].sort());
  const exact: Record<string, string> = {};
  const candidates = ['/', ...[...served].filter((path) => path.endsWith('.html')).map((path) => path.slice(0, -'.html'.length))];
  for (const candidate of candidates) {
    const target = assetPathFor(candidate);
    if (target === candidate) continue;
    if (!served.has(target)) throw new Error(`assetPathFor(${candidate}) is ${target}, which the web build does not contain`);
    exact[candidate] = target;
  }
  if (exact['/'] === undefined) throw new Error('assetPathFor("/") names no page of the web build');

  const secretPage = assetPathFor('/s/probe');
  if (!served.has(secretPage)) throw new Error(`assetPathFor("/s/<id>") is ${secretPage}, which the web build does not contain`);
  for (const [probe, expected] of [
    ['/s/sec_Abc-123_x', secretPage],
    ['/s/sec_Abc-123_x/r/rcp_Abc-123_y', secretPage],
    ['/s/', '/s/'],
    ['/s/a/b', '/s/a/b'],
    ['/s/a/', '/s/a/'],
    ['/s', '/s'],
    ['/s/a/r', '/s/a/r'],
    ['/s/a/r/', '/s/a/r/'],
    ['/s/a/x/b', '/s/a/x/b'],
    ['/s/a/r/b/c', '/s/a/r/b/c'],
  ] as const) {
    if (assetPathFor(probe) !== expected) {
      throw new Error(
        `assetPathFor(${probe}) is ${assetPathFor(probe)}, not ${expected}: update viewerRequestCode in lib/web.ts to the new /s/ rule`,
      );
    }
  }

  const requestPage = assetPathFor('/q/probe');
  if (!served.has(requestPage)) throw new Error(`assetPathFor("/q/<id>") is ${requestPage}, which the web build does not contain`);
  for (const [probe, expected] of [
    ['/q/rql_Abc-123_x', requestPage],
    ['/q/', '/q/'],
    ['/q', '/q'],
    ['/q/a/', '/q/a/'],
    ['/q/a/b', '/q/a/b'],
  ] as const) {
    if (assetPathFor(probe) !== expected) {
      throw new Error(
        `assetPathFor(${probe}) is ${assetPathFor(probe)}, not ${expected}: update viewerRequestCode in lib/web.ts to the new /q/ rule`,
      );
    }
  }
  if (!served.has(notFoundPage)) throw new Error(`the web build has no ${notFoundPage}, which unknown paths are answered with`);
  return { exact, secretPage, requestPage, files: [...served], notFoundPage };
}

/**
 * The lookups both web functions share, ES5: the rewrites, the served files, and `known(uri)`,
 * whether the web client has a page or file at a path (before or after its rewrite).
 */
function knownPathsCode(rewrites: PageRewrites): string[] {
  const files: Record<string, 1> = Object.fromEntries(rewrites.files.map((path) => [path, 1]));
  return [
    `var PAGES = ${JSON.stringify(rewrites.exact)};`,
    `var SECRET_PAGE = ${JSON.stringify(rewrites.secretPage)};`,
    // The pattern of web/build.ts itself: `/s/<id>` and `/s/<id>/r/<recipientId>`.
    `var SECRET_PATH = new RegExp(${JSON.stringify(secretPagePath.source)});`,
    `var REQUEST_PAGE = ${JSON.stringify(rewrites.requestPage)};`,
    // And `/q/<id>`, a request link's page.
    `var REQUEST_PATH = new RegExp(${JSON.stringify(requestPagePath.source)});`,
    `var FILES = ${JSON.stringify(files)};`,
    `var NOT_FOUND = ${JSON.stringify(rewrites.notFoundPage)};`,
    'function has(map, key) { return Object.prototype.hasOwnProperty.call(map, key); }',
    'function known(uri) { return has(PAGES, uri) || SECRET_PATH.test(uri) || REQUEST_PATH.test(uri) || has(FILES, uri); }',
  ];
}

/**
 * Source of the viewer-request CloudFront Function: a rewrite of the request URI, never a
 * redirect (a redirect of `/s/<id>` or `/q/<id>` would carry the fragment along); a path with no
 * page or file (`/nope`, `/s/`) is rewritten to the 404 page, whose status `viewerResponseCode` sets. ES5 only (`var`,
 * no arrows or template literals) so it runs on either CloudFront JavaScript runtime.
 */
export function viewerRequestCode(rewrites: PageRewrites): string {
  return [
    '// Generated by lib/web.ts from assetPathFor (web/build.ts). Rewrites, never redirects.',
    ...knownPathsCode(rewrites),
    'function handler(event) {',
    '  var request = event.request;',
    '  var uri = request.uri;',
    '  if (has(PAGES, uri)) {',
    '    request.uri = PAGES[uri];',
    '  } else if (SECRET_PATH.test(uri)) {',
    '    request.uri = SECRET_PAGE;',
    '  } else if (REQUEST_PATH.test(uri)) {',
    '    request.uri = REQUEST_PAGE;',
    '  } else if (!has(FILES, uri)) {',
    // Only the web behaviours run this function: an unknown path here is no page, never the API's.
    '    request.uri = NOT_FOUND;',
    '  }',
    '  return request;',
    '}',
    '',
  ].join('\n');
}

/**
 * Source of the viewer-response CloudFront Function of the web behaviours: the 404 page (which
 * the request function put in place of an unknown path) answers with status 404. It decides
 * from the request's URI whether CloudFront hands it the viewer's or the rewritten one: either
 * is `NOT_FOUND` or unknown exactly when the page is the 404's. Not a distribution-wide error
 * response, which would turn the API's 404s into a page too. ES5, as the other functions.
 */
export function viewerResponseCode(rewrites: PageRewrites): string {
  return [
    '// Generated by lib/web.ts: the 404 page (web/public/404.html) answers with status 404.',
    ...knownPathsCode(rewrites),
    'function handler(event) {',
    '  var uri = event.request.uri;',
    '  var response = event.response;',
    '  if (uri === NOT_FOUND || !known(uri)) {',
    '    response.statusCode = 404;',
    "    response.statusDescription = 'Not Found';",
    '  }',
    '  return response;',
    '}',
    '',
  ].join('\n');
}

/**
 * Source of the viewer-request CloudFront Function on the API behaviours of both distributions:
 * API Gateway is reached on its own name, so the host the viewer asked for (a workspace's
 * hostname, checked by every API function: shared/http/viewerHost.ts) travels in
 * `viewerHostHeader`, replacing any the viewer sent. A distribution's own `*.cloudfront.net`
 * name is this deployment's, as a direct call is: it gets no header, so the API serves the
 * distribution's address before `webOrigin` names it (docs/deploy.md, "Custom domain for the
 * service"). ES5, as the other function.
 */
export function viewerHostCode(): string {
  return [
    '// Generated by lib/web.ts: the host the viewer asked for, for the API (shared/http/viewerHost.ts).',
    `var HEADER = ${JSON.stringify(viewerHostHeader)};`,
    'var OWN = /\\.cloudfront\\.net$/i;',
    'function handler(event) {',
    '  var request = event.request;',
    '  var host = request.headers.host ? request.headers.host.value : "";',
    '  if (host && !OWN.test(host)) {',
    '    request.headers[HEADER] = { value: host };',
    '  } else {',
    '    delete request.headers[HEADER];',
    '  }',
    '  return request;',
    '}',
    '',
  ].join('\n');
}

/**
 * `webHeaders` as a CloudFront response headers policy: the headers CloudFront models go in
 * `securityHeadersBehavior`, every other one (COOP, permissions policy, cache-control, and any
 * added later) in `customHeadersBehavior`. All override what the origin sent. `filesOrigin` may
 * be a token (`filesBucketOrigin`): CloudFormation joins it into the policy at deploy.
 */
export function webResponseHeaders(filesOrigin: string): cloudfront.ResponseHeadersPolicyProps {
  const {
    'content-security-policy': csp,
    'referrer-policy': referrer,
    'x-content-type-options': contentTypeOptions,
    'x-frame-options': frameOptions,
    'strict-transport-security': hsts,
    ...custom
  } = webHeaders(filesOrigin);

  if (contentTypeOptions !== 'nosniff') throw new Error(`x-content-type-options ${contentTypeOptions} cannot be expressed in CloudFront`);
  const referrerPolicy = Object.values(cloudfront.HeadersReferrerPolicy).find((value) => value === referrer);
  if (!referrerPolicy) throw new Error(`referrer-policy ${referrer} is not one CloudFront knows`);
  const frameOption = Object.values(cloudfront.HeadersFrameOption).find((value) => value === frameOptions.toUpperCase());
  if (!frameOption) throw new Error(`x-frame-options ${frameOptions} is not one CloudFront knows`);

  const hstsParts = hsts.split(';').map((part) => part.trim().toLowerCase());
  const maxAge = /^max-age=(\d+)$/.exec(hstsParts[0] ?? '')?.[1];
  const unknown = hstsParts.slice(1).filter((part) => part !== 'includesubdomains' && part !== 'preload');
  if (maxAge === undefined || unknown.length > 0) throw new Error(`strict-transport-security ${hsts} cannot be expressed in CloudFront`);

  return {
    comment: 'Hushlink web client: shared/http/webHeaders.ts',
    securityHeadersBehavior: {
      contentSecurityPolicy: { contentSecurityPolicy: csp, override: true },
      strictTransportSecurity: {
        accessControlMaxAge: Duration.seconds(Number(maxAge)),
        includeSubdomains: hstsParts.includes('includesubdomains'),
        preload: hstsParts.includes('preload'),
        override: true,
      },
      referrerPolicy: { referrerPolicy, override: true },
      contentTypeOptions: { override: true },
      frameOptions: { frameOption, override: true },
    },
    customHeadersBehavior: {
      customHeaders: Object.entries(custom).map(([header, value]) => ({ header, value, override: true })),
    },
  };
}

/**
 * The origin of a bucket's presigned URLs as the SDK makes them in AWS (virtual-hosted style:
 * `https://<bucket>.s3.<region>.<suffix>`, shared/adapters), for the pages' `connect-src`.
 */
export function filesBucketOrigin(bucket: s3.IBucket): string {
  const stack = Stack.of(bucket);
  return `https://${bucket.bucketName}.s3.${stack.region}.${stack.urlSuffix}`;
}

export interface WebHostingProps {
  /** The API behind `/v1/*` and `/scim/v2/*` (its `$default` stage, so paths need no prefix). */
  readonly api: apigw.IHttpApi;
  /** The origin secrets' links point to (`url_base`): the custom domain, or this distribution's address. */
  readonly webOrigin: string;
  /**
   * The files bucket's origin (`filesBucketOrigin`), which the pages' CSP lets them reach: file
   * parts go up and down by presigned URLs straight to it.
   */
  readonly filesOrigin: string;
  /** The built web client, from `prepareWebAssets()`. */
  readonly assetsDir: string;
  /** ACM certificate for the custom domain; CloudFront requires it in us-east-1. */
  readonly certificateArn?: string;
  /** The custom domain; defaults to `webOrigin`'s host when `certificateArn` is given. */
  readonly domainName?: string;
  /** Keeps the assets bucket when the stack is deleted (otherwise it is emptied and deleted). */
  readonly retain: boolean;
  /** Where the assets bucket's S3 server access logs go (prefix `web-assets/`). */
  readonly accessLogsBucket?: s3.IBucket;
  /** ARN of a WAF web ACL (scope CLOUDFRONT, so in us-east-1) to attach to the distribution. */
  readonly webAclId?: string;
  /**
   * Value CloudFront sends to the API in `originVerifyHeader`, proving to the functions that a
   * request came through the distribution so they may trust its viewer-address header.
   */
  readonly originVerifyValue: string;
}

export class WebHosting extends Construct {
  readonly bucket: s3.Bucket;
  readonly distribution: cloudfront.Distribution;
  /**
   * Verified custom hostnames (issue 17): a multi-tenant distribution with the same behaviours,
   * reached only through its tenants, one per verified claim, made at run time by the schedule
   * (shared/adapters/cloudfrontTenants.ts).
   */
  readonly tenantDistribution: cloudfront.Distribution;
  /** The tenants' connection group: its routing endpoint is every custom hostname's CNAME target. */
  readonly connectionGroup: cloudfront.CfnConnectionGroup;
  readonly viewerRequest: cloudfront.Function;
  /** Gives the 404 page its status (`viewerResponseCode`), on both distributions' web behaviours. */
  readonly viewerResponse: cloudfront.Function;
  /** Tells the API the host the viewer asked for (`viewerHostCode`), on both distributions' API behaviours. */
  readonly viewerHost: cloudfront.Function;
  readonly responseHeaders: cloudfront.ResponseHeadersPolicy;
  /** `https://` + the custom domain, or the distribution's own domain. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: WebHostingProps) {
    super(scope, id);
    const stack = Stack.of(this);

    const originHost = new URL(props.webOrigin).hostname;
    const domainName = props.domainName ?? (props.certificateArn ? originHost : undefined);
    if (domainName !== undefined && props.certificateArn === undefined) {
      throw new Error(`WebHosting: domain ${domainName} needs a certificateArn (an ACM certificate in us-east-1)`);
    }
    if (domainName !== undefined && domainName !== originHost) {
      throw new Error(`WebHosting: domain ${domainName} differs from webOrigin ${props.webOrigin}; secrets' links would point elsewhere`);
    }
    if (domainName === undefined && !originHost.endsWith('.cloudfront.net')) {
      Annotations.of(this).addWarningV2(
        'hushlink:webOriginNotServed',
        `webOrigin ${props.webOrigin} is not served by this distribution (no custom domain): deploy, then set webOrigin to the WebUrl output, or give a certificate for ${originHost}`,
      );
    }

    const served = servedPaths(props.assetsDir);
    const rewrites = pageRewrites(served);

    this.bucket = new s3.Bucket(this, 'Assets', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: s3.BucketEncryption.S3_MANAGED,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      ...(props.accessLogsBucket ? { serverAccessLogsBucket: props.accessLogsBucket, serverAccessLogsPrefix: 'web-assets/' } : {}),
      removalPolicy: props.retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
      // Only generated, public files live here; BucketDeployment never empties a bucket it
      // tags as its own, so a deletable stage needs the auto-delete custom resource.
      autoDeleteObjects: !props.retain,
    });

    this.viewerRequest = new cloudfront.Function(this, 'ViewerRequest', {
      comment: 'Rewrites page paths to their HTML file (assetPathFor), unknown ones to the 404 page; never redirects',
      code: cloudfront.FunctionCode.fromInline(viewerRequestCode(rewrites)),
      runtime: cloudfront.FunctionRuntime.JS_2_0,
    });

    this.viewerResponse = new cloudfront.Function(this, 'ViewerResponse', {
      comment: 'Answers the 404 page (unknown paths) with status 404',
      code: cloudfront.FunctionCode.fromInline(viewerResponseCode(rewrites)),
      runtime: cloudfront.FunctionRuntime.JS_2_0,
    });

    this.viewerHost = new cloudfront.Function(this, 'ViewerHost', {
      comment: 'Tells the API the host the viewer asked for (x-hushlink-viewer-host)',
      code: cloudfront.FunctionCode.fromInline(viewerHostCode()),
      runtime: cloudfront.FunctionRuntime.JS_2_0,
    });

    this.responseHeaders = new cloudfront.ResponseHeadersPolicy(this, 'Headers', webResponseHeaders(props.filesOrigin));

    const s3Origin = origins.S3BucketOrigin.withOriginAccessControl(this.bucket);
    const webBehavior = (viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy): cloudfront.BehaviorOptions => ({
      origin: s3Origin,
      viewerProtocolPolicy,
      allowedMethods: cloudfront.AllowedMethods.ALLOW_GET_HEAD,
      // The edge may cache the (public, identical for everyone) files until the next deploy
      // invalidates them; browsers may not: the policy's `cache-control: no-store` wins.
      cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
      responseHeadersPolicy: this.responseHeaders,
      functionAssociations: [
        { function: this.viewerRequest, eventType: cloudfront.FunctionEventType.VIEWER_REQUEST },
        { function: this.viewerResponse, eventType: cloudfront.FunctionEventType.VIEWER_RESPONSE },
      ],
      compress: true,
    });

    const apiOrigin = new origins.HttpOrigin(`${props.api.apiId}.execute-api.${stack.region}.${stack.urlSuffix}`, {
      protocolPolicy: cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
      originSslProtocols: [cloudfront.OriginSslPolicy.TLS_V1_2],
      // Replaces a viewer's header of the same name, so viewers cannot forge it.
      customHeaders: { [originVerifyHeader]: props.originVerifyValue },
    });
    const apiBehavior: cloudfront.BehaviorOptions = {
      origin: apiOrigin,
      viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
      allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
      cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
      // Everything but Host (API Gateway routes on its own host name): Authorization, the
      // query, cookies, and CloudFront's headers, among them CloudFront-Viewer-Address, which
      // the per-IP rate limits count (shared/http/clientAddress.ts).
      originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      // No response headers policy: the API sends its own headers, not the web client's CSP.
      // No compression of token-bearing responses (nothing is cached to gain from it anyway).
      compress: false,
      // The origin request policy forwards the header the function sets (a viewer's is replaced).
      functionAssociations: [{ function: this.viewerHost, eventType: cloudfront.FunctionEventType.VIEWER_REQUEST }],
    };

    const certificate = props.certificateArn ? acm.Certificate.fromCertificateArn(this, 'Certificate', props.certificateArn) : undefined;

    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: `Hushlink web client and API (${stack.stackName})`,
      // Typing the bare host name works; every other path refuses plain HTTP instead.
      defaultBehavior: webBehavior(cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS),
      additionalBehaviors: {
        // Links to secrets and request links: not even an http→https redirect (the fragment
        // holds the key, or the request's fingerprint and link secret).
        '/s/*': webBehavior(cloudfront.ViewerProtocolPolicy.HTTPS_ONLY),
        '/q/*': webBehavior(cloudfront.ViewerProtocolPolicy.HTTPS_ONLY),
        ...Object.fromEntries(apiPathPatterns.map((pattern) => [pattern, apiBehavior])),
      },
      // No errorResponses: they would apply to the API's 4xx/5xx too.
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
      enableIpv6: true,
      ...(props.webAclId ? { webAclId: props.webAclId } : {}),
      ...(certificate && domainName
        ? {
            certificate,
            domainNames: [domainName],
            minimumProtocolVersion: cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021,
            sslSupportMethod: cloudfront.SSLMethod.SNI,
          }
        : {}),
    });

    this.url = `https://${domainName ?? this.distribution.distributionDomainName}`;

    // Verified custom hostnames (issue 17;
    // docs/adr/0064-verified-hostnames-are-served-by-cloudfront-distribution.md): the same behaviours
    // on a multi-tenant distribution, reached only through its tenants and the connection group whose
    // routing endpoint every customer's CNAME names. A tenant-only distribution cannot be
    // invalidated with the deployment's one call (each tenant would need its own), so its web
    // behaviours cache nothing at the edge: a deploy is seen at once on every custom hostname.
    const tenantWebBehavior = (viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy): cloudfront.BehaviorOptions => ({
      ...webBehavior(viewerProtocolPolicy),
      cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
    });
    this.tenantDistribution = new cloudfront.Distribution(this, 'TenantDistribution', {
      comment: `Hushlink custom hostnames (${stack.stackName})`,
      defaultBehavior: tenantWebBehavior(cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS),
      additionalBehaviors: {
        '/s/*': tenantWebBehavior(cloudfront.ViewerProtocolPolicy.HTTPS_ONLY),
        '/q/*': tenantWebBehavior(cloudfront.ViewerProtocolPolicy.HTTPS_ONLY),
        ...Object.fromEntries(apiPathPatterns.map((pattern) => [pattern, apiBehavior])),
      },
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
      // Multi-tenant distributions take WAF v2 web ACLs only, which webAclId is.
      ...(props.webAclId ? { webAclId: props.webAclId } : {}),
    });
    const cfnTenantDistribution = this.tenantDistribution.node.defaultChild as cloudfront.CfnDistribution;
    cfnTenantDistribution.addPropertyOverride('DistributionConfig.ConnectionMode', 'tenant-only');
    // IPv6 is the connection group's setting in SaaS Manager; the L2 always writes IPV6Enabled.
    cfnTenantDistribution.addPropertyDeletionOverride('DistributionConfig.IPV6Enabled');
    this.connectionGroup = new cloudfront.CfnConnectionGroup(this, 'ConnectionGroup', {
      name: `${stack.stackName}-custom-hostnames`,
      enabled: true,
      ipv6Enabled: true,
    });

    // One deployment per extension, so each file gets buildWeb's content type (a single sync
    // would guess types from extensions). Each syncs and prunes only its own extension; pages
    // go last, after the scripts and styles they reference, and then invalidate the edge cache.
    const types = contentTypesFromDir(props.assetsDir);
    const others = [...new Set(served.map((path) => extname(path)))].filter((extension) => extension !== '.html').sort();
    const extensions = [...others, '.html'];
    const source = s3deploy.Source.asset(props.assetsDir, { exclude: [CONTENT_TYPES_FILE] });
    let previous: s3deploy.BucketDeployment | undefined;
    extensions.forEach((extension, index) => {
      const contentType = types[extension];
      if (contentType === undefined) throw new Error(`no content type for ${extension} assets in ${props.assetsDir}`);
      const last = index === extensions.length - 1;
      const deployment = new s3deploy.BucketDeployment(this, `Deploy${extension.slice(1).replace(/[^A-Za-z0-9]/g, '')}`, {
        sources: [source],
        destinationBucket: this.bucket,
        exclude: ['*'],
        include: [`*${extension}`],
        contentType,
        prune: true,
        ...(last ? { distribution: this.distribution, distributionPaths: ['/*'] } : {}),
      });
      if (previous) deployment.node.addDependency(previous);
      previous = deployment;
    });

    if (previous) this.acknowledgeFindings(props, previous.handlerRole);

    new CfnOutput(this, 'DistributionDomainName', { value: this.distribution.distributionDomainName });
    new CfnOutput(this, 'WebUrl', { value: this.url });
    // Not the tenant distribution's domain name: it has no address of its own.
    new CfnOutput(this, 'CustomHostnameTarget', {
      description: "The CNAME target of every workspace hostname (docs/deploy.md, Workspaces' own hostnames)",
      value: this.connectionGroup.attrRoutingEndpoint,
    });
  }

  /**
   * cdk-nag (AwsSolutions) findings there is no fix for here, acknowledged with CDK's own
   * `Validations` (no cdk-nag dependency) on the resource each concerns, and only when it applies.
   */
  private acknowledgeFindings(props: WebHostingProps, deploymentRole: iam.IRole): void {
    this.acknowledgeDistributionFindings(props);
    this.acknowledgeTenantDistributionFindings(props);
    if (!props.accessLogsBucket) {
      Validations.of(this.bucket).acknowledge({
        id: 'AwsSolutions-S1',
        reason:
          'No accessLogsBucket given: the bucket holds only the public build of web/, written by the deployment and read ' +
          'only by this distribution through origin access control.',
      });
    }
    this.acknowledgeDeploymentFindings(deploymentRole);
  }

  private acknowledgeDistributionFindings(props: WebHostingProps): void {
    const distribution = Validations.of(this.distribution);
    distribution.acknowledge({
      id: 'AwsSolutions-CFR1',
      reason:
        'No geo restriction: a team deploys Hushlink for its own users wherever they are, so no country list fits every ' +
        'deployment; one that needs it can add a restriction to the distribution.',
    });
    if (!props.webAclId) {
      distribution.acknowledge({
        id: 'AwsSolutions-CFR2',
        reason:
          'No WAF web ACL by default (a monthly and per-request cost in every stage): the API throttles at its stage and per ' +
          'IP and credential (shared/limits.ts), and the web behaviours serve static public files. webAclId attaches one.',
      });
    }
    distribution.acknowledge({
      id: 'AwsSolutions-CFR3',
      reason:
        "No CloudFront access logs: API calls are logged by the API's own logs, the web behaviours serve static public files, " +
        'and logging them would keep a per-viewer record (IP, user agent, path) of every secret link opened. Standard logging ' +
        'also needs an ACL-enabled bucket, which every bucket of this stack disables.',
    });
    if (!props.certificateArn) {
      distribution.acknowledge({
        id: 'AwsSolutions-CFR4',
        reason:
          'Without a custom domain the distribution answers on *.cloudfront.net, whose certificate CloudFront pins to the ' +
          'TLSv1 security policy; with certificateArn the minimum is TLSv1.2_2021 (browsers negotiate TLS 1.3 or 1.2 anyway).',
      });
    }
  }

  /** The custom hostnames' distribution: the main one's reasons, and no viewer certificate of its own. */
  private acknowledgeTenantDistributionFindings(props: WebHostingProps): void {
    const distribution = Validations.of(this.tenantDistribution);
    distribution.acknowledge({
      id: 'AwsSolutions-CFR1',
      reason: 'No geo restriction, as on the main distribution: the custom hostnames serve the same people as the deployment’s own host.',
    });
    if (!props.webAclId) {
      distribution.acknowledge({
        id: 'AwsSolutions-CFR2',
        reason:
          'No WAF web ACL by default, as on the main distribution: the API throttles per IP and credential (shared/limits.ts) ' +
          'and the web behaviours serve static public files. webAclId attaches one to both distributions.',
      });
    }
    distribution.acknowledge({
      id: 'AwsSolutions-CFR3',
      reason:
        'No CloudFront access logs, as on the main distribution: they would keep a per-viewer record of every secret link opened ' +
        'on a custom hostname; multi-tenant distributions do not support legacy logging either.',
    });
    distribution.acknowledge({
      id: 'AwsSolutions-CFR4',
      reason:
        'A multi-tenant distribution has no viewer certificate of its own: each tenant serves its hostname with the certificate ' +
        'CloudFront requests and renews for it (shared/adapters/cloudfrontTenants.ts).',
    });
  }

  private acknowledgeDeploymentFindings(deploymentRole: iam.IRole): void {
    // The deployment's Lambda (one per stack, shared by every BucketDeployment) is CDK's own code.
    const handler = deploymentRole.node.scope;
    if (handler) {
      Validations.of(handler).acknowledge({
        id: 'AwsSolutions-L1',
        reason:
          "CDK's BucketDeployment handler: aws-cdk-lib chooses its Python runtime and bundles the AWS CLI layer for it; it " +
          'runs only during deployments and moves to a newer runtime with aws-cdk-lib upgrades.',
      });
    }
    const roleAcks = Validations.of(deploymentRole);
    roleAcks.acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason: "CDK's BucketDeployment handler role: the AWS managed basic execution policy only lets it write its own logs.",
    });
    const policy = deploymentRole.node.tryFindChild('DefaultPolicy') as iam.Policy | undefined;
    // `toJSON()`, not the document itself: resolving the document would freeze its statements.
    const statements = policy
      ? ((Stack.of(this).resolve(policy.document.toJSON()) as { Statement?: PolicyStatementJson[] }).Statement ?? [])
      : [];
    for (const finding of wildcardFindings(statements)) {
      roleAcks.acknowledge({
        id: `AwsSolutions-IAM5[${finding}]`,
        reason:
          "CDK's BucketDeployment handler policy: read of the CDK assets bucket's objects, grantReadWrite on this stack's " +
          'web assets bucket (sync and prune), and cloudfront:CreateInvalidation/GetInvalidation, which CDK grants on "*".',
      });
    }
  }
}

interface PolicyStatementJson {
  Effect?: string;
  Action?: string | string[];
  Resource?: unknown;
}

/** The wildcards of a policy as cdk-nag's IAM5 names them (`Action::s3:List*`, `Resource::<Bucket.Arn>/*`). */
function wildcardFindings(statements: PolicyStatementJson[]): string[] {
  const findings = new Set<string>();
  const list = <T>(value: T | T[] | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);
  for (const statement of statements) {
    if (statement.Effect !== 'Allow') continue;
    for (const action of list(statement.Action)) if (action.includes('*')) findings.add(`Action::${action}`);
    for (const resource of list(statement.Resource)) {
      const flat = flattenReference(resource);
      if (flat.includes('*')) findings.add(`Resource::${flat}`);
    }
  }
  return [...findings];
}

/** A CloudFormation value as one string, the way cdk-nag writes it in finding ids. */
function flattenReference(node: unknown): string {
  if (node === undefined) return '';
  if (typeof node === 'string') return node.replace(/\$\{/g, '<').replace(/\}/g, '>');
  const value = node as Record<string, unknown>;
  if (value['Fn::Join']) {
    const [delimiter, items] = value['Fn::Join'] as [string, unknown[]];
    return items.map(flattenReference).join(delimiter);
  }
  if (value['Fn::Sub']) return flattenReference(value['Fn::Sub']);
  if (value['Fn::GetAtt']) {
    const [resource, attribute] = value['Fn::GetAtt'] as [unknown, unknown];
    return `<${flattenReference(resource)}.${flattenReference(attribute)}>`;
  }
  if (value['Fn::ImportValue']) return flattenReference(value['Fn::ImportValue']);
  if (value.Ref) return `<${flattenReference(value.Ref)}>`;
  return JSON.stringify(node);
}

function contentTypesFromDir(dir: string): Record<string, string> {
  const file = join(dir, CONTENT_TYPES_FILE);
  if (!existsSync(file)) throw new Error(`WebHosting: ${dir} has no ${CONTENT_TYPES_FILE}; pass the folder prepareWebAssets() returns`);
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
}
