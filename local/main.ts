import { join } from 'node:path';
import { signInLimits } from '../shared/limits.ts';
import type { Runtime } from './runtime.ts';

/** `npm start`: the whole service on http://localhost:3000 (PORT overrides), data under .data/. */
const port = Number(process.env.PORT ?? 3000);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error(`PORT must be a port number (got ${JSON.stringify(process.env.PORT)})`);
  process.exit(1);
}
const dataDir = process.env.HUSHLINK_DATA_DIR || '.data';

// Listening for signals from the first moment, before the runtime's modules load: a signal
// during start-up stops what has started so far (DynamoDB Local's Java process above all) and
// exits 0, as a signal after it does. SIGHUP is a closed terminal.
const startUp = new AbortController();
let runtime: Runtime | undefined;
let stopping = false;
function stop(): void {
  if (stopping) return;
  stopping = true;
  console.log('\nStopping…');
  if (!runtime) {
    startUp.abort();
    return; // startRuntime stops what it started, then rejects; handled below.
  }
  runtime.stop().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, stop);

// npm forwards SIGINT and SIGTERM to this process, but it cannot forward its own SIGKILL, nor
// a signal it gets in the instant between spawning us and listening for signals. Either way
// npm is gone and this process is handed to init (or a subreaper): its parent changes, and it
// stops as for SIGTERM. (A parent of 1 from the start is a deliberate daemon: left alone.)
const parent = process.ppid;
if (parent !== 1) {
  setInterval(() => {
    if (process.ppid !== parent) stop();
  }, 1000).unref();
}

const { startRuntime } = await import('./runtime.ts');
try {
  runtime = await startRuntime({
    port,
    dataDir,
    background: true,
    env: process.env,
    logLevel: (process.env.LOG_LEVEL as 'INFO' | undefined) || 'WARN',
    signal: startUp.signal,
    announceMail: (entry) => {
      const code = new RegExp(`\\b\\d{${signInLimits.codeDigits}}\\b`).exec(entry.text)?.[0];
      console.log(`[mail] to ${entry.to}: ${entry.subject}${code ? ` (code ${code})` : ''}`);
    },
  });
} catch (error) {
  if (startUp.signal.aborted) process.exit(0);
  console.error(`Hushlink could not start: ${(error as Error).message}`);
  process.exit(1);
}

console.log(`Hushlink is running on ${runtime.url}
  API            ${runtime.url}/v1
  SCIM 2.0       ${runtime.url}/scim/v2  (a workspace's directory key, from its single sign-on settings)
  mail outbox    ${runtime.url}/_dev/mail
  DynamoDB Local ${runtime.dynamo.endpoint}
  S3 (local)     ${runtime.s3.endpoint}  bucket ${runtime.s3.bucket}
                 key ${runtime.s3.credentials.accessKeyId}, its secret kept in ${join(dataDir, 's3-secret-access-key')} (this machine's own)
  Stripe (local) ${runtime.stripe.url}  (checkout and portal pages; test controls under /_emulator/)
  Slack (local)  ${runtime.slack.origin}  (its calls and the bot's messages at ${runtime.url}/_dev/chat)
                 signing secret ${runtime.config.SLACK_SIGNING_SECRET} (kept in ${join(dataDir, 'slack-signing-secret')}; docs/deploy.md, Slack: sign a /secret command)
  OIDC (local)   ${runtime.oidc.issuer}  (an identity provider for single sign-on: its login page takes any address; clients at /_emulator/clients)
  DNS (local)    ${runtime.dns.server}  (publish records at ${runtime.url}/_dev/dns/<name>; hostnames served: ${runtime.url}/_dev/hostnames)
  data           ${dataDir}/
Press Ctrl-C to stop.`);
