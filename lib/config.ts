import type { Node } from 'constructs';

/**
 * Deployment settings, read from CDK context (`cdk synth -c stage=prod -c webOrigin=…`) so one
 * app can produce several isolated stages without code changes.
 */
export interface HushlinkSettings {
  /** Names the stack and decides whether data outlives it (`prod` keeps it). */
  readonly stage: string;
  /** Origin of the web client: CORS on the API and the files bucket, and `url_base` of secrets. */
  readonly webOrigin: string;
  /** Pins the stack to a region; unset keeps the stack environment-agnostic. */
  readonly region: string | undefined;
  readonly logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT';
  /** Sender of sign-in codes: an address of the SES identity (domain or address) verified in the account. */
  readonly mailFrom: string;
  /** The SES identity the functions may send from (a domain or an address). */
  readonly sesIdentity: string;
}

export const DEFAULT_WEB_ORIGIN = 'https://hushlink.example.com';
const LOG_LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT'] as const;

export function readSettings(node: Node): HushlinkSettings {
  const stage = text(node, 'stage') ?? 'dev';
  if (!/^[a-z][a-z0-9-]{0,19}$/.test(stage)) {
    throw new Error(`context stage must be lower-case letters, digits and dashes (got ${JSON.stringify(stage)})`);
  }

  const webOrigin = origin(text(node, 'webOrigin') ?? DEFAULT_WEB_ORIGIN);
  const region = text(node, 'region');

  const logLevel = (text(node, 'logLevel') ?? 'INFO').toUpperCase();
  if (!isLogLevel(logLevel)) {
    throw new Error(`context logLevel must be one of ${LOG_LEVELS.join(', ')} (got ${JSON.stringify(logLevel)})`);
  }

  const mailFrom = text(node, 'mailFrom') ?? `no-reply@${new URL(webOrigin).hostname}`;
  if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(mailFrom)) throw new Error(`context mailFrom must be an email address (got ${JSON.stringify(mailFrom)})`);
  const sesIdentity = text(node, 'sesIdentity') ?? mailFrom.split('@')[1]!;

  return { stage, webOrigin, region, logLevel, mailFrom, sesIdentity };
}

function text(node: Node, key: string): string | undefined {
  const value: unknown = node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new Error(`context ${key} must be a string`);
  return value;
}

/** CORS compares origins byte for byte, so a trailing slash or a path would silently break it. */
function origin(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`context webOrigin must be an absolute URL (got ${JSON.stringify(value)})`);
  }
  if (url.protocol !== 'https:' && url.hostname !== 'localhost') {
    throw new Error(`context webOrigin must use https (got ${JSON.stringify(value)})`);
  }
  return url.origin;
}

function isLogLevel(value: string): value is HushlinkSettings['logLevel'] {
  return (LOG_LEVELS as readonly string[]).includes(value);
}
