import { request as httpRequest } from 'node:http';
import type { Runtime } from '../../local/runtime.ts';
import type { Scope } from '../../shared/routes.ts';
import { checkApiResponse } from './contractCheck.ts';
import { apiClient, type Reply } from './runtime.ts';

export interface SignedIn {
  access_token: string;
  refresh_token: string;
  token_type: 'Bearer';
  expires_in: number;
  user: { id: string; email: string };
  /** `authorization: Bearer <access_token>` */
  auth: Record<string, string>;
}

export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

let addresses = 0;
/** A fresh, unique address for one test (local part made unique per call). */
export const newEmail = (label = 'user', domain = 'example.com') =>
  `${label}-${process.pid}-${++addresses}-${Date.now().toString(36)}@${domain}`;

/** The 8-digit code of the newest mail sent to `email`, or null when there is none. */
export function latestCode(runtime: Pick<Runtime, 'outbox'>, email: string): string | null {
  const mail = runtime.outbox.list().find((entry) => entry.to === email.trim().toLowerCase());
  return mail ? (/\b(\d{8})\b/.exec(mail.text)?.[1] ?? null) : null;
}

/** Mails sent to `email`, newest first. */
export const mailsTo = (runtime: Pick<Runtime, 'outbox'>, email: string) =>
  runtime.outbox.list().filter((entry) => entry.to === email.trim().toLowerCase());

/** Signs in over HTTP: otp/start, the code from the outbox, otp/verify. */
export async function signIn(
  runtime: Pick<Runtime, 'url' | 'outbox'>,
  email: string,
  deviceName?: string,
  headers?: Record<string, string>,
): Promise<SignedIn> {
  const api = apiClient(runtime);
  const started = await api.post('/v1/auth/otp/start', { email });
  if (started.status !== 200) throw new Error(`otp/start answered ${started.status}: ${JSON.stringify(started.body)}`);
  const code = latestCode(runtime, email);
  if (!code) throw new Error(`no sign-in code was mailed to ${email}`);
  const verified = await api.post<Omit<SignedIn, 'auth'>>(
    '/v1/auth/otp/verify',
    { email, code, ...(deviceName === undefined ? {} : { device_name: deviceName }) },
    headers,
  );
  if (verified.status !== 200) throw new Error(`otp/verify answered ${verified.status}: ${JSON.stringify(verified.body)}`);
  return { ...verified.body, auth: bearer(verified.body.access_token) };
}

export interface CreatedKey {
  id: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  key: string;
  created_at: string;
  /** `authorization: Bearer <key>` */
  auth: Record<string, string>;
}

/** Creates an API key with a session over HTTP. */
export async function createKey(
  runtime: Pick<Runtime, 'url'>,
  session: Pick<SignedIn, 'auth'>,
  scopes: Scope[],
  name = 'test key',
): Promise<CreatedKey> {
  const reply = await apiClient(runtime).post<Omit<CreatedKey, 'auth'>>('/v1/api-keys', { name, scopes }, session.auth);
  if (reply.status !== 201) throw new Error(`POST /v1/api-keys answered ${reply.status}: ${JSON.stringify(reply.body)}`);
  return { ...reply.body, auth: bearer(reply.body.key) };
}

/** The decoded protected header of a JWT. */
export const jwtHeader = (token: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8'));
export const jwtPayload = (token: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));

/**
 * One JSON request to the runtime from a chosen loopback address (127.0.0.x), so the gateway,
 * which takes the caller's address from the socket, sees distinct callers.
 */
export function callFrom<T = any>(
  runtime: Pick<Runtime, 'port'>,
  localAddress: string,
  method: string,
  path: string,
  json?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply<T>> {
  const body = json === undefined ? undefined : JSON.stringify(json);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: runtime.port,
        localAddress,
        method,
        path,
        headers: {
          ...(body === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const fetchHeaders = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (value !== undefined) fetchHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
          }
          const parsed: unknown = text && /json/.test(res.headers['content-type'] ?? '') ? JSON.parse(text) : text;
          try {
            checkApiResponse(method, new URL(path, `http://127.0.0.1:${runtime.port}`), {
              status: res.statusCode ?? 0,
              contentType: res.headers['content-type'] ?? '',
              text,
            });
          } catch (error) {
            reject(error);
            return;
          }
          resolve({ status: res.statusCode ?? 0, headers: fetchHeaders, body: parsed as T });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * One account whose session keeps up with the runtime's clock, for tests that move it by days:
 * `auth` is its current credential, and `ensure()` signs in again once the access token would
 * have expired (the same account: the same address).
 */
export function keptSignedIn(runtime: Pick<Runtime, 'url' | 'outbox' | 'clock'>, email: string) {
  let session: SignedIn | undefined;
  let signedInAt = 0;
  return {
    get session(): SignedIn {
      if (!session) throw new Error('call ensure() first');
      return session;
    },
    get auth() {
      return this.session.auth;
    },
    async ensure(): Promise<SignedIn> {
      if (!session || runtime.clock.now() - signedInAt > 10 * 60 * 1000) {
        session = await signIn(runtime, email);
        signedInAt = runtime.clock.now();
      }
      return session;
    },
  };
}

/**
 * An API key of a new account on `plan` (no route changes a plan without the payment provider:
 * set where the user store keeps it), for files past Free's 100 MiB.
 */
export async function paidKey(
  runtime: Pick<Runtime, 'url' | 'outbox' | 'dynamo' | 'config'>,
  label: string,
  plan: 'pro' | 'team',
  scopes: Scope[] = ['secrets:write', 'secrets:read'],
): Promise<CreatedKey> {
  const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
  const { createDocumentClient } = await import('../../shared/store/client.ts');
  const user = await signIn(runtime, newEmail(label));
  const db = createDocumentClient({ region: 'local', endpoint: runtime.dynamo.endpoint });
  try {
    await db.send(
      new UpdateCommand({
        TableName: runtime.config.TABLE_NAME,
        Key: { pk: `USER#${user.user.id}`, sk: 'PROFILE' },
        UpdateExpression: 'SET #plan = :plan',
        ExpressionAttributeNames: { '#plan': 'plan' },
        ExpressionAttributeValues: { ':plan': plan },
      }),
    );
  } finally {
    db.destroy();
  }
  return createKey(runtime, user, scopes, `${label} key`);
}
