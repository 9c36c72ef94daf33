import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { claimTokenFor, fromBase64, linkTokenFor, open, parseHeader } from '../../shared/envelope/index.ts';
import { curlLimits } from '../../shared/limits.ts';
import { createDocumentClient } from '../../shared/store/client.ts';
import { checkApiResponse } from '../support/contractCheck.ts';
import { apiClient, generousRateLimits, startTestRuntime, toFreshWindow } from '../support/runtime.ts';

// Curl mode driven by the real `curl` binary (.ci/run installs it where it is missing).

const run = promisify(execFile);
let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
let dir: string;
beforeAll(async () => {
  runtime = await startTestRuntime({ rateLimits: { ...generousRateLimits, curl: { perIp: { limit: 14, windowSeconds: 60 } } } });
  api = apiClient(runtime);
  dir = mkdtempSync(join(tmpdir(), 'hushlink-curl-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await runtime?.stop();
});

interface CurlAnswer {
  status: number;
  contentType: string;
  body: string;
}

/** Runs curl against the runtime; `-w` appends the status and type after a marker line. */
async function curl(path: string, args: string[], input?: string | Buffer): Promise<CurlAnswer> {
  const child = run('curl', ['-sS', '-X', 'POST', ...args, '-w', '\n@@%{http_code} %{content_type}', `${runtime.url}${path}`], {
    maxBuffer: 16 * 1024 * 1024,
    encoding: 'utf8',
  });
  if (input !== undefined) child.child.stdin!.end(input);
  const { stdout } = await child;
  const at = stdout.lastIndexOf('\n@@');
  const [status, contentType = ''] = stdout.slice(at + 3).split(' ');
  const answer = { status: Number(status), contentType, body: stdout.slice(0, at) };
  checkApiResponse('POST', new URL(`${runtime.url}${path}`), { status: answer.status, contentType, text: answer.body });
  return answer;
}

/** Opens a curl link the way the reveal page does: metadata, the proofs from the key, the claim, then the envelope. */
async function openLink(link: string): Promise<{ plaintext: Buffer; envelope: Uint8Array }> {
  const url = new URL(link);
  const id = url.pathname.split('/')[2]!;
  const key = url.hash.slice(1);
  const meta = (await api.get(`/v1/secrets/${id}`)).body;
  const [claimToken, linkToken] = await Promise.all([
    claimTokenFor({ key, salt: meta.salt, iterations: 0 }),
    linkTokenFor({ key, salt: meta.salt }),
  ]);
  const claimed = await api.post(`/v1/secrets/${id}/claim`, { claim_token: claimToken, link_token: linkToken });
  expect(claimed.status, JSON.stringify(claimed.body).slice(0, 300)).toBe(200);
  const envelope = fromBase64(claimed.body.envelope);
  const opened = await open(envelope, { key, salt: claimed.body.salt });
  return { plaintext: Buffer.from(opened.plaintext), envelope };
}

describe('POST /v1/curl', () => {
  it('turns a piped body into a link (text/plain, one line) that opens as any secret, sealed server-side (flag bit2)', async () => {
    const secret = `db-password-${randomBytes(8).toString('hex')}\n`;
    const answer = await curl('/v1/curl', ['--data-binary', '@-'], secret);
    expect(answer.status).toBe(200);
    expect(answer.contentType).toMatch(/^text\/plain/);
    expect(answer.body).toMatch(new RegExp(`^${runtime.url}/s/sec_[A-Za-z0-9_-]{22}#[A-Za-z0-9_-]{43}\\n$`));
    const { plaintext, envelope } = await openLink(answer.body.trim());
    expect(plaintext.toString('utf8')).toBe(secret);
    expect(parseHeader(envelope).serverEncrypted).toBe(true);
    // The key is nowhere on the server: not in the table, not in the logs' reach.
    const id = new URL(answer.body.trim()).pathname.split('/')[2]!;
    expect(JSON.stringify(await runtime.stores.secrets.get(id))).not.toContain(new URL(answer.body.trim()).hash.slice(1));
  });

  it('takes a file of any content type, byte for byte, up to 1 MiB (kept in parts beyond one item), and deletes the parts with the secret', async () => {
    const file = join(dir, 'exactly-1mib.bin');
    const bytes = randomBytes(curlLimits.maxBodyBytes);
    writeFileSync(file, bytes);
    const answer = await curl('/v1/curl', ['--data-binary', `@${file}`, '-H', 'content-type: application/octet-stream'], undefined);
    expect(answer.status).toBe(200);
    const link = answer.body.trim();
    const id = new URL(link).pathname.split('/')[2]!;
    const db = createDocumentClient({ region: 'local', endpoint: runtime.dynamo.endpoint });
    const parts = async () =>
      (
        await db.send(
          new QueryCommand({
            TableName: runtime.config.TABLE_NAME,
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
            ExpressionAttributeValues: { ':pk': `SECRET#${id}`, ':p': 'ENVELOPE#' },
          }),
        )
      ).Items ?? [];
    expect((await parts()).length).toBeGreaterThan(1);
    expect((await api.get(`/v1/secrets/${id}`)).body.size_bytes).toBeGreaterThan(curlLimits.maxBodyBytes);
    const { plaintext } = await openLink(link);
    expect(plaintext.equals(bytes)).toBe(true);
    // That was its one view: burned, its envelope and every part gone.
    expect((await api.get(`/v1/secrets/${id}`)).body.state).toBe('burned');
    expect(await parts()).toEqual([]);
    db.destroy();
  });

  it('answers 413 for a body over 1 MiB, declared or streamed, without reading it all', async () => {
    const file = join(dir, 'too-big.bin');
    writeFileSync(file, randomBytes(curlLimits.maxBodyBytes + 1));
    const declared = await curl('/v1/curl', ['--data-binary', `@${file}`], undefined);
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body)).toMatchObject({ status: 413, code: 'payload_too_large' });
    // Streamed without a length (chunked): refused once the limit is passed.
    const streamed = await curl(
      '/v1/curl',
      ['--data-binary', '@-', '-H', 'transfer-encoding: chunked'],
      Buffer.alloc(3 * curlLimits.maxBodyBytes, 1),
    );
    expect(streamed.status).toBe(413);
  });

  it('answers JSON to accept: application/json, with the limits it used (clamped, never refused)', async () => {
    const json = await curl('/v1/curl?expires_in=5&max_views=1000', ['--data-binary', '@-', '-H', 'accept: application/json'], 'x');
    expect(json.status).toBe(200);
    const body = JSON.parse(json.body);
    expect(body).toEqual({
      url: expect.stringMatching(/#[A-Za-z0-9_-]{43}$/),
      id: expect.stringMatching(/^sec_/),
      delete_token: expect.any(String),
      expires_at: expect.any(String),
      max_views: 100,
    });
    expect(Date.parse(body.expires_at) - runtime.clock.now()).toBeLessThanOrEqual(60_000);
    expect(Date.parse(body.expires_at) - runtime.clock.now()).toBeGreaterThan(55_000);
    const defaults = JSON.parse(
      (await curl('/v1/curl?expires_in=soon&max_views=-3&other=1', ['--data-binary', '@-', '-H', 'accept: application/json'], 'y')).body,
    );
    expect(defaults.max_views).toBe(1);
    expect(Date.parse(defaults.expires_at) - runtime.clock.now()).toBeGreaterThan(86_000_000);
    // Its delete token revokes it.
    expect((await api.delete(`/v1/secrets/${body.id}`, { 'x-delete-token': body.delete_token })).status).toBe(204);
    expect((await api.get(`/v1/secrets/${body.id}`)).body.state).toBe('revoked');
  });

  it('an empty body is an empty secret, still a link', async () => {
    const answer = await curl('/v1/curl', ['--data-binary', ''], undefined);
    expect(answer.status).toBe(200);
    expect((await openLink(answer.body.trim())).plaintext.length).toBe(0);
  });

  it('answers 429 from the per-address limit', async () => {
    toFreshWindow(runtime.clock, 60);
    let answer: CurlAnswer | undefined;
    for (let i = 0; i < 15 && answer?.status !== 429; i++) answer = await curl('/v1/curl', ['--data-binary', '@-'], 'z');
    expect(answer!.status).toBe(429);
    expect(JSON.parse(answer!.body)).toMatchObject({ code: 'rate_limited' });
  });
});
