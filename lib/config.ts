import type { Node } from 'constructs';
import { rateLimitOverrides, type RateLimitOverrides } from '../shared/config.ts';

/**
 * Deployment settings, read from CDK context (`cdk synth -c stage=prod -c webOrigin=…`, or the
 * `context` of `cdk.json`) so one app can produce several isolated stages without code changes.
 * Every value is checked here, at synth time, so a typo fails before anything is deployed.
 */
export interface HushlinkSettings {
  /** Names the stack and decides whether data outlives it (`prod` keeps it, with deletion protection). */
  readonly stage: string;
  /** Origin of the web client: CORS on the API and the files bucket, and `url_base` of secrets. */
  readonly webOrigin: string;
  /** Pins the stack to a region; unset keeps the stack environment-agnostic. */
  readonly region: string | undefined;
  /**
   * Every deployment of the service (`GET /v1/regions`), passed to the functions as `REGIONS`;
   * unset, the functions answer with this region alone at `webOrigin`.
   */
  readonly regions: readonly RegionEntry[] | undefined;
  readonly logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT';
  /** Days the function, API access and S3 access logs are kept (a CloudWatch retention value). */
  readonly logRetentionDays: number;
  /** Sender of sign-in codes: an address of the SES identity (domain or address) verified in the account. */
  readonly mailFrom: string;
  /** The SES identity the functions may send from (a domain or an address). */
  readonly sesIdentity: string;
  /** Subscribed by email to the alarm topic; unset, the topic has no subscriber (wire one by hand). */
  readonly alarmEmail: string | undefined;
  /** One KMS key of the stack (yearly rotation) encrypts the table, the files bucket, the queues and the alarm topic. */
  readonly customerManagedKey: boolean;
  /** Active X-Ray tracing on every function. */
  readonly xray: boolean;
  /** ACM certificate (us-east-1) for `webOrigin`'s host on CloudFront; unset serves *.cloudfront.net. */
  readonly webCertificateArn: string | undefined;
  /** A WAF web ACL to attach to the distribution. */
  readonly webAclId: string | undefined;
  /**
   * Changes to the default rate limits (shared/limits.ts), handed to every function as
   * `HUSHLINK_RATE_LIMITS`; unset, the defaults hold.
   */
  readonly rateLimits: RateLimitOverrides | undefined;
  /** The payment provider's prices: Pro a month, and a Team seat a month (Stripe price ids). */
  readonly prices: { readonly pro: string; readonly teamSeat: string };
  /** Where enterprise enquiries are mailed. */
  readonly salesEmail: string;
  /** The Slack app's client id (`-c slackClientId=…`); unset, the chat routes answer 403 chat_not_configured. Its secrets go in Secrets Manager. */
  readonly slackClientId: string | undefined;
}

export interface RegionEntry {
  readonly id: string;
  readonly api_url: string;
}

export const DEFAULT_WEB_ORIGIN = 'https://hushlink.example.com';
const LOG_LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT'] as const;
/** The values CloudWatch Logs accepts as a retention (AWS::Logs::LogGroup RetentionInDays). */
export const LOG_RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653,
] as const;
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

export function readSettings(node: Node): HushlinkSettings {
  const stage = text(node, 'stage') ?? 'dev';
  if (!/^[a-z][a-z0-9-]{0,19}$/.test(stage)) {
    throw new Error(`context stage must be lower-case letters, digits and dashes (got ${JSON.stringify(stage)})`);
  }
  const prod = stage === 'prod';

  const webOrigin = origin(text(node, 'webOrigin') ?? DEFAULT_WEB_ORIGIN, 'webOrigin');
  const region = text(node, 'region');
  if (region !== undefined && !/^[a-z]{2}(-[a-z]+)+-\d$/.test(region)) {
    throw new Error(`context region must be an AWS region name such as eu-west-1 (got ${JSON.stringify(region)})`);
  }
  const regions = regionList(node, region);

  const logLevel = (text(node, 'logLevel') ?? 'INFO').toUpperCase();
  if (!isLogLevel(logLevel)) {
    throw new Error(`context logLevel must be one of ${LOG_LEVELS.join(', ')} (got ${JSON.stringify(logLevel)})`);
  }
  const logRetentionDays = integer(node, 'logRetentionDays') ?? (prod ? 90 : 14);
  if (!(LOG_RETENTION_DAYS as readonly number[]).includes(logRetentionDays)) {
    throw new Error(`context logRetentionDays must be one of ${LOG_RETENTION_DAYS.join(', ')} (got ${logRetentionDays})`);
  }

  const mailFrom = text(node, 'mailFrom') ?? `no-reply@${new URL(webOrigin).hostname}`;
  if (!EMAIL.test(mailFrom)) throw new Error(`context mailFrom must be an email address (got ${JSON.stringify(mailFrom)})`);
  const sesIdentity = text(node, 'sesIdentity') ?? mailFrom.split('@')[1]!;
  const mailDomain = mailFrom.split('@')[1]!.toLowerCase();
  const identity = sesIdentity.toLowerCase();
  // SES sends from an address only under an identity covering it: the address, its domain, or a parent domain.
  if (identity !== mailFrom.toLowerCase() && identity !== mailDomain && !mailDomain.endsWith(`.${identity}`)) {
    throw new Error(
      `context sesIdentity must be mailFrom or its (parent) domain, or SES refuses the sender (got ${JSON.stringify(sesIdentity)})`,
    );
  }
  const alarmEmail = text(node, 'alarmEmail');
  if (alarmEmail !== undefined && !EMAIL.test(alarmEmail)) {
    throw new Error(`context alarmEmail must be an email address (got ${JSON.stringify(alarmEmail)})`);
  }

  const salesEmail = text(node, 'salesEmail') ?? `sales@${new URL(webOrigin).hostname}`;
  if (!EMAIL.test(salesEmail)) throw new Error(`context salesEmail must be an email address (got ${JSON.stringify(salesEmail)})`);

  const slackClientId = text(node, 'slackClientId');
  if (slackClientId !== undefined && !/^[0-9]+\.[0-9]+$/.test(slackClientId)) {
    throw new Error(`context slackClientId must be a Slack app's client id, digits.digits (got ${JSON.stringify(slackClientId)})`);
  }

  return {
    stage,
    webOrigin,
    region,
    regions,
    logLevel,
    logRetentionDays,
    mailFrom,
    sesIdentity,
    alarmEmail,
    customerManagedKey: flag(node, 'customerManagedKey') ?? false,
    xray: flag(node, 'xray') ?? false,
    webCertificateArn: text(node, 'webCertificateArn'),
    webAclId: text(node, 'webAclId'),
    rateLimits: rateLimitSettings(node),
    prices: stripePrices(node),
    salesEmail,
    slackClientId,
  };
}

/** The local emulator's price ids (`npm start`): no Stripe account has them. */
const emulatorPrices = ['price_pro_monthly', 'price_team_seat_monthly'];

/**
 * The Stripe prices of Pro and of a Team seat, from context (`-c pricePro=price_… -c
 * priceTeamSeat=price_…`). Required: a deploy without them synthesized, and then every checkout
 * was Stripe's "no such price" and a 500. The emulator's ids are refused for the same reason.
 */
function stripePrices(node: Node): { pro: string; teamSeat: string } {
  const missing = ['pricePro', 'priceTeamSeat'].filter((name) => text(node, name) === undefined);
  if (missing.length > 0)
    throw new Error(
      `context ${missing.join(' and ')} must name your Stripe price ids (Pro a month, a Team seat a month): -c pricePro=price_… -c priceTeamSeat=price_…`,
    );
  const price = (name: string): string => {
    const value = text(node, name)!;
    if (!/^price_[A-Za-z0-9_]+$/.test(value))
      throw new Error(`context ${name} must be a Stripe price id, price_… (got ${JSON.stringify(value)})`);
    if (emulatorPrices.includes(value))
      throw new Error(`context ${name} is the local emulator's price id (${value}), which no Stripe account has: name your own price`);
    return value;
  };
  return { pro: price('pricePro'), teamSeat: price('priceTeamSeat') };
}

/**
 * `rateLimits` as a JSON string (`-c rateLimits='{"secret_claim":{"perIp":{"limit":600}}}'`) or
 * an object in `cdk.json`, checked by the schema the functions read it with, so a bad value
 * fails the synth naming the field instead of every cold start.
 */
function rateLimitSettings(node: Node): RateLimitOverrides | undefined {
  let value: unknown = node.tryGetContext('rateLimits');
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      throw new Error('context rateLimits must be a JSON object of rate classes');
    }
  }
  const parsed = rateLimitOverrides.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.flatMap((issue) =>
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => `${['rateLimits', ...issue.path, key].join('.')} is not a known name here`)
        : [`${['rateLimits', ...issue.path].join('.')}: ${issue.message}`],
    );
    throw new Error(`context ${problems.join('; ')}`);
  }
  return parsed.data;
}

function text(node: Node, key: string): string | undefined {
  const value: unknown = node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new Error(`context ${key} must be a string`);
  return value;
}

/** `-c name=true` arrives as a string, `cdk.json` may hold a real boolean: both are accepted. */
function flag(node: Node, key: string): boolean | undefined {
  const value: unknown = node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new Error(`context ${key} must be true or false (got ${JSON.stringify(value)})`);
}

function integer(node: Node, key: string): number | undefined {
  const value: unknown = node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number))
    throw new Error(`context ${key} must be a whole number (got ${JSON.stringify(value)})`);
  return number;
}

/**
 * `regions` as a JSON string (`-c regions='[{"id":"eu-west-1","api_url":"https://…"}]'`) or a
 * JSON array in `cdk.json`; the same rules the functions apply at cold start (shared/config.ts),
 * checked here so a bad list fails the synth instead of every invocation.
 */
function regionList(node: Node, region: string | undefined): RegionEntry[] | undefined {
  let value: unknown = node.tryGetContext('regions');
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      throw new Error('context regions must be a JSON array of {id, api_url}');
    }
  }
  if (!Array.isArray(value) || value.length === 0) throw new Error('context regions must be a non-empty array of {id, api_url}');
  const entries = value.map((entry: unknown, i): RegionEntry => {
    const e = entry as Record<string, unknown> | null;
    const keys = e && typeof e === 'object' ? Object.keys(e).sort().join(',') : '';
    if (keys !== 'api_url,id' || typeof e!.id !== 'string' || typeof e!.api_url !== 'string' || e!.id.length === 0 || e!.id.length > 64) {
      throw new Error(`context regions[${i}] must be exactly {id, api_url} with string values`);
    }
    return { id: e!.id, api_url: apiUrl(e!.api_url, `regions[${i}].api_url`) };
  });
  if (new Set(entries.map((entry) => entry.id)).size !== entries.length) throw new Error('context regions must not repeat a region id');
  // With the region unpinned it is only known at deploy time; the functions check it at cold start.
  if (region !== undefined && !entries.some((entry) => entry.id === region)) {
    throw new Error(`context regions must include this deployment's region ${region}`);
  }
  return entries;
}

/** CORS compares origins byte for byte, so a trailing slash or a path would silently break it. */
function origin(value: string, key: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`context ${key} must be an absolute URL (got ${JSON.stringify(value)})`);
  }
  if (url.protocol !== 'https:' && url.hostname !== 'localhost') {
    throw new Error(`context ${key} must use https (got ${JSON.stringify(value)})`);
  }
  return url.origin;
}

/** As shared/config.ts reads it: an absolute http(s) URL, trailing slashes dropped. */
function apiUrl(value: string, key: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`context ${key} must be an absolute URL (got ${JSON.stringify(value)})`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new Error(`context ${key} must be an http(s) URL (got ${JSON.stringify(value)})`);
  return value.replace(/\/+$/, '');
}

function isLogLevel(value: string): value is HushlinkSettings['logLevel'] {
  return (LOG_LEVELS as readonly string[]).includes(value);
}
