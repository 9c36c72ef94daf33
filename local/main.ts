import { startRuntime } from './runtime.ts';

/** `npm start`: the whole service on http://localhost:3000 (PORT overrides), data under .data/. */
const port = Number(process.env.PORT ?? 3000);
const dataDir = process.env.HUSHLINK_DATA_DIR ?? '.data';

const runtime = await startRuntime({
  port,
  dataDir,
  background: true,
  logLevel: (process.env.LOG_LEVEL as 'INFO' | undefined) ?? 'WARN',
  announceMail: (entry) => {
    const code = /\b\d{6}\b/.exec(entry.text)?.[0];
    console.log(`[mail] to ${entry.to}: ${entry.subject}${code ? ` (code ${code})` : ''}`);
  },
});

console.log(`Hushlink is running on ${runtime.url}
  API            ${runtime.url}/v1
  mail outbox    ${runtime.url}/_dev/mail
  DynamoDB Local ${runtime.dynamo.endpoint}
  S3 (s3rver)    ${runtime.s3.endpoint}  bucket ${runtime.s3.bucket}
  data           ${dataDir}/
Press Ctrl-C to stop.`);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    console.log('\nStopping…');
    runtime.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  });
}
