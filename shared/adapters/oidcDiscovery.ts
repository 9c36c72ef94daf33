// An identity provider's discovery document, read when a workspace's SSO settings are saved. The
// issuer is chosen by a workspace's admin and fetched by us from inside AWS, so the request obeys
// the webhook destination rules (shared/webhooks/destination.ts): https, a public address, every
// DNS answer checked and the socket pinned to the checked one (no rebinding between check and
// connect); in a local run, http to loopback too. Node's fetch cannot pin the address without
// undici's own Agent, so this is node:http(s), as webhook deliveries are.
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { discoveryUrl, type IssuerCheck, type IssuerDiscovery } from '../domain/sso/issuer.ts';
import { DestinationRefused, resolveDestination, systemResolver, type Destination, type HostResolver } from '../webhooks/destination.ts';
import { describeError, pinnedLookup } from '../webhooks/send.ts';

export const discoveryLimits = {
  /** The whole check: DNS, connecting, every redirect, the document. A form is waiting on it. */
  timeoutMs: 3_000,
  /** Large providers' documents are a few KiB (Okta's and Keycloak's about 6); beyond this is not one. */
  maxBytes: 64 * 1024,
  /** Redirects followed, each within the issuer's own origin. */
  maxRedirects: 3,
  /** What of the document's `issuer` a mismatch reports. */
  maxFoundChars: 512,
} as const;

export interface OidcDiscoveryOptions {
  /** Local mode: http to loopback is allowed (the local identity provider). */
  local: boolean;
  resolver?: HostResolver;
  timeoutMs?: number;
  maxBytes?: number;
}

type Answer = { status: number; location: string | undefined; body: Buffer | 'too_large' | null };

class TimedOut extends Error {}

/** Reads `<issuer>/.well-known/openid-configuration` and compares its `issuer` with the issuer, exactly. */
export function oidcDiscovery(options: OidcDiscoveryOptions): IssuerDiscovery {
  const resolver = options.resolver ?? systemResolver();
  const timeoutMs = options.timeoutMs ?? discoveryLimits.timeoutMs;
  const maxBytes = options.maxBytes ?? discoveryLimits.maxBytes;
  return {
    async check(issuer: string): Promise<IssuerCheck> {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(new TimedOut('timeout')), timeoutMs);
      try {
        return await read(issuer, { local: options.local, resolver, maxBytes, signal: controller.signal });
      } catch (error) {
        if (controller.signal.aborted) return { outcome: 'unreachable', found: 'timeout' };
        if (error instanceof DestinationRefused) return { outcome: 'unreachable', found: error.reason };
        return { outcome: 'unreachable', found: describeError(error) };
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

interface ReadOptions {
  local: boolean;
  resolver: HostResolver;
  maxBytes: number;
  signal: AbortSignal;
}

async function read(issuer: string, options: ReadOptions): Promise<IssuerCheck> {
  let url = new URL(discoveryUrl(issuer));
  const { origin } = url;
  for (let redirects = 0; ; redirects++) {
    // DNS cannot be cancelled; the deadline stops the wait for it.
    const destination = await untilAborted(resolveDestination(url, options), options.signal);
    const answer = await get(url, destination, options);
    if (answer.status >= 300 && answer.status < 400 && answer.location !== undefined) {
      const next = URL.canParse(answer.location, url) ? new URL(answer.location, url) : null;
      if (next === null || next.origin !== origin || redirects >= discoveryLimits.maxRedirects) {
        return { outcome: 'unreachable', found: 'redirect' };
      }
      url = next;
      continue;
    }
    if (answer.status < 200 || answer.status >= 300) return { outcome: 'unreachable', found: `http_${answer.status}` };
    if (answer.body === 'too_large') return { outcome: 'unreachable', found: 'too_large' };
    return judge(issuer, answer.body ?? Buffer.alloc(0));
  }
}

/** The document's `issuer` against the issuer saved: the same string, or what it names instead. */
function judge(issuer: string, body: Buffer): IssuerCheck {
  let document: unknown;
  try {
    document = JSON.parse(body.toString('utf8').replace(/^\uFEFF/, ''));
  } catch {
    return { outcome: 'unreachable', found: 'not_json' };
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) return { outcome: 'unreachable', found: 'not_json' };
  const found = (document as { issuer?: unknown }).issuer;
  if (found === issuer) return { outcome: 'matches' };
  return { outcome: 'mismatch', found: typeof found === 'string' ? found.slice(0, discoveryLimits.maxFoundChars) : null };
}

function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(signal.reason);
    if (signal.aborted) return stop();
    signal.addEventListener('abort', stop, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
  });
}

/** One GET to the checked address; a body is read only from a 2xx, and only up to `maxBytes`. */
function get(url: URL, destination: Destination, options: ReadOptions): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const request = send(
      url,
      {
        method: 'GET',
        headers: { accept: 'application/json' },
        agent: false,
        lookup: pinnedLookup(destination.address, destination.family) as RequestOptions['lookup'],
        maxHeaderSize: 16 * 1024,
        signal: options.signal,
      },
      (response: IncomingMessage) => {
        const status = response.statusCode ?? 0;
        const location = response.headers.location;
        const done = (body: Answer['body']) => {
          resolve({ status, location, body });
          response.destroy();
        };
        if (status < 200 || status >= 300) return done(null);
        if (Number(response.headers['content-length'] ?? 0) > options.maxBytes) return done('too_large');
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBytes) return done('too_large');
          chunks.push(chunk);
        });
        response.on('end', () => done(Buffer.concat(chunks)));
        response.on('error', reject);
        response.on('close', () => {
          if (!response.complete) reject(Object.assign(new Error('the answer was cut off'), { code: 'ECONNRESET' }));
        });
      },
    );
    request.on('error', reject);
    request.end();
  });
}
