import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestProject } from 'vitest/node';
import { startDynamoLocal, type LocalDynamo } from '../../local/dynamodb.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /**
     * Where a test file asks for its DynamoDB Local: `GET {url}/{VITEST_POOL_ID}/{file token}`
     * answers its endpoint.
     */
    dynamoLauncher: string;
  }
}

/** A worker's emulators: the one its current file uses, and the next one, already starting. */
interface WorkerEmulators {
  file: string;
  current: Promise<LocalDynamo>;
  next: Promise<LocalDynamo>;
}

/**
 * A DynamoDB Local (Java, in memory) for each test file that needs one, started before the file
 * asks (vitest `globalSetup`). Each worker has one emulator started ahead: a file takes it, and
 * the next one starts while the file runs, so no file waits for Java (its start was 7 to 11 s of
 * each integration file on this loaded 2-core machine).
 *
 * Not one emulator for the worker's whole run: DynamoDB Local slows down with the tables dropped
 * in it (their stream records stay). A put and a get took 5.3 ms on a fresh one and 18.1 ms after
 * five tables of 1,500 writes were dropped, and the property step ran 10 times slower late in a
 * worker than alone (webhooks: 484 s against 40 s). A fresh one costs 1.5 s of one core.
 *
 * A worker runs its files one after another, so when a file asks, the file before it is done and
 * its emulator is stopped. A file asking again (two runtimes in one file) gets the same one. Started
 * on the first file that asks, so a run of unit tests and fakes alone starts no Java.
 */
export default async function setup(project: TestProject) {
  const workers = new Map<string, WorkerEmulators>();
  const start = (worker: string) => {
    const emulator = startDynamoLocal({ tableName: `hushlink-warmup-${worker}` });
    emulator.catch(() => {}); // asked for later; a failure is answered then
    return emulator;
  };
  const emulatorFor = (worker: string, file: string): Promise<LocalDynamo> => {
    const known = workers.get(worker);
    if (known?.file === file) return known.current;
    if (known) void known.current.then((done) => done.stop()).catch(() => {});
    const current = known?.next ?? start(worker);
    workers.set(worker, { file, current, next: start(worker) });
    return current;
  };
  const server = createServer((request, response) => {
    const [worker = '1', file = ''] = (request.url ?? '/').slice(1).split('/');
    emulatorFor(worker, file).then(
      (started) => response.writeHead(200, { 'content-type': 'text/plain' }).end(started.endpoint),
      (error: unknown) => response.writeHead(500, { 'content-type': 'text/plain' }).end(String(error)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  project.provide('dynamoLauncher', `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  return async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const emulators = [...workers.values()].flatMap(({ current, next }) => [current, next]);
    const started = await Promise.allSettled(emulators);
    await Promise.all(started.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value.stop() : undefined)));
  };
}
