import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestProject } from 'vitest/node';
import { startDynamoLocal, type LocalDynamo } from '../../local/dynamodb.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where a test file asks for its worker's DynamoDB Local: `GET {url}/{VITEST_POOL_ID}` answers its endpoint. */
    dynamoLauncher: string;
  }
}

/**
 * One DynamoDB Local (Java, in memory) per test worker for the whole run (vitest `globalSetup`),
 * instead of one per test file: Java's start took 7 to 11 s of each integration file on this
 * loaded 2-core machine, against 0.4 s for the rest of a runtime. Each file still has tables of its
 * own (test/support/dynamo.ts), and each worker its own emulator, so files running in parallel
 * never share a process's locks. Started on the first file that asks, so a run of unit tests and
 * fakes alone starts no Java.
 */
export default async function setup(project: TestProject) {
  const emulators = new Map<string, Promise<LocalDynamo>>();
  const server = createServer((request, response) => {
    const worker = (request.url ?? '/').slice(1) || '1';
    let emulator = emulators.get(worker);
    if (!emulator) {
      emulator = startDynamoLocal({ tableName: `hushlink-warmup-${worker}` });
      emulators.set(worker, emulator);
    }
    emulator.then(
      (started) => response.writeHead(200, { 'content-type': 'text/plain' }).end(started.endpoint),
      (error: unknown) => response.writeHead(500, { 'content-type': 'text/plain' }).end(String(error)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  project.provide('dynamoLauncher', `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  return async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const started = await Promise.allSettled(emulators.values());
    await Promise.all(started.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value.stop() : undefined)));
  };
}
