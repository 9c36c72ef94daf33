// One webhook POST to an address that resolveDestination already checked.
// The URL keeps its hostname so that the Host header, SNI and certificate
// verification are all for the name the customer registered, while the socket
// goes to the checked address only: `lookup` is pinned, so no DNS answer given
// between the check and the connect (a rebinding attack) can redirect it.
import { request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupAddress, LookupOptions } from 'node:dns';

export const DEFAULT_TIMEOUT_MS = 10_000;
/** What we read of a receiver's answer; the rest is never downloaded. */
export const MAX_RESPONSE_BYTES = 4 * 1024;

export interface WebhookRequest {
  url: URL;
  address: string;
  family: 4 | 6;
  headers: Record<string, string>;
  body: string;
  timeoutMs?: number;
}

export interface WebhookResult {
  ok: boolean;
  status?: number;
  durationMs: number;
  error?: string;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` that answers every question with the one checked address. */
export function pinnedLookup(address: string, family: 4 | 6) {
  // Node's happy-eyeballs connect (autoSelectFamily, on by default since 20)
  // asks with `all: true` and wants a list; the plain form wants a pair.
  return (_hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/;

const NETWORK_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection_refused',
  ECONNRESET: 'connection_reset',
  EPIPE: 'connection_reset',
  ETIMEDOUT: 'timeout',
  EHOSTUNREACH: 'host_unreachable',
  ENETUNREACH: 'network_unreachable',
  EADDRNOTAVAIL: 'address_unavailable',
  ERR_INVALID_HTTP_TOKEN: 'invalid_header',
  ERR_INVALID_CHAR: 'invalid_header',
  ERR_HTTP_INVALID_HEADER_VALUE: 'invalid_header',
};

/** A short, stable description of a failure, fit for a delivery log. */
export function describeError(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') {
    if (NETWORK_ERRORS[code]) return NETWORK_ERRORS[code];
    if (TLS_CODE.test(code)) return `tls: ${code.toLowerCase()}`;
    // llhttp's codes: the receiver answered with something that is not HTTP.
    if (code.startsWith('HPE_')) return 'bad_response';
    return `error: ${code.toLowerCase()}`.slice(0, 100);
  }
  const message = error instanceof Error ? error.message : String(error);
  return `error: ${message}`.slice(0, 100);
}

class DeadlineExceeded extends Error {
  readonly code = 'ETIMEDOUT';
}

/**
 * POSTs `body` once. Never throws: network and protocol failures come back as
 * `error`. Redirects are not followed (a 3xx is just not ok): following one
 * would be a request to a URL nobody checked. The deadline covers connecting,
 * sending and receiving the status; once a status has arrived it decides the
 * outcome, and a body still trickling in at the deadline is simply cut off.
 */
export function postWebhook(input: WebhookRequest): Promise<WebhookResult> {
  const { url, address, family, headers, body, timeoutMs = DEFAULT_TIMEOUT_MS } = input;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);

  return new Promise<WebhookResult>((resolve) => {
    let settled = false;
    let status: number | undefined;
    let response: IncomingMessage | undefined;
    let req: ClientRequest | undefined;
    let timer: NodeJS.Timeout | undefined;
    const finish = (error?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const durationMs = elapsed();
      if (status !== undefined) resolve({ ok: status >= 200 && status < 300, status, durationMs });
      else resolve({ ok: false, durationMs, error: describeError(error) });
      // agent: false means the socket is ours alone; drop it and whatever the
      // receiver still had to say.
      response?.destroy();
      req?.destroy();
    };
    timer = setTimeout(() => {
      // Destroying emits 'error' asynchronously; settle first so the result is
      // 'timeout' whatever that error turns out to be.
      finish(new DeadlineExceeded('timeout'));
    }, timeoutMs);

    const options: RequestOptions = {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      agent: false,
      lookup: pinnedLookup(address, family) as RequestOptions['lookup'],
      // Response headers beyond this are a misbehaving receiver, not a reason
      // to buffer more.
      maxHeaderSize: 16 * 1024,
    };

    try {
      const send = url.protocol === 'https:' ? httpsRequest : url.protocol === 'http:' ? httpRequest : undefined;
      if (!send) throw Object.assign(new Error('unsupported protocol'), { code: 'unsupported_protocol' });
      req = send(url, options, (res) => {
        response = res;
        status = res.statusCode;
        let received = 0;
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received >= MAX_RESPONSE_BYTES) finish();
        });
        res.on('end', () => finish());
        res.on('error', () => finish());
        res.on('close', () => finish());
      });
    } catch (error) {
      // Invalid header names or values are rejected synchronously.
      finish(error);
      return;
    }
    req.on('error', (error) => finish(error));
    req.end(body);
  });
}
