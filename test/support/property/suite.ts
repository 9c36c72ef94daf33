import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../../local/runtime.ts';
import { openApiDocument } from '../../../shared/api/document.ts';
import type { AppLogger } from '../../../shared/logger.ts';
import { routeKey, type Group } from '../../../shared/routes.ts';
import { systemTransport } from '../../../shared/webhooks/transport.ts';
import { startTestRuntime } from '../runtime.ts';
import { encode } from './arbitraries.ts';
import { collectionOf, Fixtures, ownerOf, seeders, type Seeder } from './fixtures.ts';
import { DynamoCalls } from './dynamo.ts';
import { checkReply, rawClient, routeOf, type RawReply, type SentRequest } from './http.ts';
import { plans, targetsOf, type Target } from './plans.ts';
import { resolve } from './requests.ts';
import { SchemaValues, type JsonSchema } from './schemaValues.ts';

/**
 * A property suite for one route group: every route of the group, as the route table and the
 * OpenAPI document made from it describe it (path parameters, query, declared headers, body
 * schema, credential), gets generated requests, valid-ish and hostile, and every answer must
 * pass `checkReply`: never a 5xx, a refusal is a problem of the documented shape, a success a
 * listed status with a documented body; and the service logs no fault. A new group is one line
 * (`propertySuite('files')`): its routes are found in the table.
 *
 * Runs per group: `HUSHLINK_PROPERTY_RUNS` (CI sets 10,000), else `defaultRuns`, sent a few at
 * a time (`lanes` properties of runs/lanes each, seeds `seed`, `seed + 1`, …). The seed is in
 * the test's name; `HUSHLINK_PROPERTY_SEED=<seed>` replays a run.
 */

export const defaultRuns = 1000;
const lanes = 4;

export function propertyRuns(): number {
  const raw = process.env.HUSHLINK_PROPERTY_RUNS;
  if (raw === undefined || raw === '') return defaultRuns;
  const runs = Number(raw);
  if (!Number.isSafeInteger(runs) || runs < lanes)
    throw new Error(`HUSHLINK_PROPERTY_RUNS must be an integer of at least ${lanes}, not ${JSON.stringify(raw)}`);
  return runs;
}

function propertySeed(): number {
  const raw = process.env.HUSHLINK_PROPERTY_SEED;
  return raw ? Number(raw) : Math.floor(Math.random() * 2 ** 31);
}

/** The seeders of every collection the group's routes create in or name an id of. */
function seedersFor(targets: Target[]): Seeder[] {
  const collections = new Set(
    targets.flatMap(({ route, path }) => [route.path, ...path.map((parameter) => collectionOf(route.path, parameter.name))]),
  );
  return [...collections].map((collection) => seeders[`POST ${collection}`]).filter((seeder) => seeder !== undefined);
}

/**
 * Pages every listing that takes a cursor once, at its smallest page, as each user and for each
 * live id of its path, so the runs have cursors to send back changed from their first run on.
 */
async function primeCursors(targets: Target[], fixtures: Fixtures, client: ReturnType<typeof rawClient>): Promise<void> {
  for (const { route, path, query } of targets) {
    const cursor = query.find((parameter) => parameter.name === 'cursor');
    if (!cursor) continue;
    const limit = query.find((parameter) => parameter.name === 'limit')?.schema.minimum ?? 1;
    const ids = path.length === 0 ? [null] : fixtures.all(collectionOf(route.path, path[0]!.name));
    for (const id of ids) {
      for (const who of ['a', 'b'] as const) {
        const sentPath = `${id === null ? route.path : route.path.replace(`{${path[0]!.name}}`, encode(id))}?limit=${limit}`;
        const reply = await client.send({
          method: route.method,
          path: sentPath,
          headers: { authorization: fixtures.authorization({ kind: 'session', who })! },
        });
        fixtures.observe(route, sentPath.split('?')[0]!, who, reply.status, reply.text);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------

export interface PropertySuite {
  runtime(): Runtime;
  fixtures(): Fixtures;
  /** The runtime's DynamoDB calls (and client), answered as AWS would where DynamoDB Local is laxer. */
  calls: DynamoCalls;
  /** Sends one request and checks the answer as the runs do. */
  send(request: SentRequest): Promise<RawReply>;
}

export interface PropertySuiteOptions {
  /**
   * Every route must also answer a success at least once (from `defaultRuns` runs on): for a
   * group whose successes need live values the generators make (chat), so they keep reaching
   * past the refusals.
   */
  everyRouteSucceeds?: boolean;
}

/**
 * Declares the suite of one group: starts one runtime, seeds, runs the property, and fails the
 * file if the service logged a fault (a 500's log line) at any time. Returns handles for the
 * group's own example tests in the same file.
 */
export function propertySuite(group: Group, options: PropertySuiteOptions = {}): PropertySuite {
  const runs = propertyRuns();
  const seed = propertySeed();
  const faults: Array<{ requestId: string | undefined; text: string }> = [];
  const logger = {
    debug: () => {},
    info: () => {},
    warn: () => {},
    error: (message: string, fields?: Record<string, unknown>) =>
      faults.push({
        requestId: typeof fields?.request_id === 'string' ? fields.request_id : undefined,
        text: `${message}: ${JSON.stringify(fields ?? {}).slice(0, 600)}`,
      }),
  } as unknown as AppLogger;
  let runtime: Runtime;
  let fixtures: Fixtures;
  const calls = new DynamoCalls();
  let client: ReturnType<typeof rawClient>;
  const document = openApiDocument('http://localhost');
  const targets = targetsOf(group, document);
  const values = new SchemaValues(document.components.schemas as Record<string, JsonSchema>);

  beforeAll(async () => {
    // No DNS server is asked: a webhook host generated here resolves to nothing.
    runtime = await startTestRuntime({
      logger,
      webhookTransport: { ...systemTransport(), resolver: { resolve4: async () => [], resolve6: async () => [] } },
      instrumentDynamo: calls.instrument,
    });
    client = rawClient(runtime.port);
    fixtures = new Fixtures(runtime);
    await fixtures.start(seedersFor(targets));
    await primeCursors(targets, fixtures, client);
  });
  afterAll(async () => {
    client?.close();
    await runtime?.stop();
    // Whatever a run, a seed or an example test of the file made the service log as a fault.
    if (faults.length > 0) throw new Error(`the service logged ${faults.length} faults:\n${faults.map((fault) => fault.text).join('\n')}`);
  });

  async function send(request: SentRequest): Promise<RawReply> {
    const reply = await client.send(request);
    checkReply(request, reply);
    return reply;
  }

  describe(`${group}: generated requests to every route of the group (${runs} runs, seed ${seed})`, () => {
    it(
      'never a 5xx; refusals are problems of the documented shape; successes are listed',
      async () => {
        const counts = new Map<string, Map<number, number>>();
        const property = fc.asyncProperty(plans(targets, values), async (plan) => {
          const { request, listing } = await resolve(plan, targets, fixtures);
          const reply = await send(request);
          const logged = faults.filter((fault) => fault.requestId !== undefined && fault.requestId === reply.headers['x-request-id']);
          if (logged.length > 0)
            throw new Error(
              `the service logged a fault answering ${request.method} ${request.path.slice(0, 200)} (${reply.status}): ${logged.map((fault) => fault.text).join('\n')}`,
            );
          const key = routeKey(targets[plan.target]!.route);
          const byStatus = counts.get(key) ?? new Map<number, number>();
          byStatus.set(reply.status, (byStatus.get(reply.status) ?? 0) + 1);
          counts.set(key, byStatus);
          const route = routeOf(request);
          if (route) fixtures.observe(route, listing, ownerOf(plan.credential), reply.status, reply.text);
          if (reply.status === 401) await fixtures.heal(plan.credential);
        });
        const perLane = Math.ceil(runs / lanes);
        const outcomes = await Promise.allSettled(
          Array.from({ length: lanes }, (_, lane) => fc.assert(property, { numRuns: perLane, seed: seed + lane })),
        );
        const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
        if (failed) throw failed.reason;
        console.info(
          `property ${group}: ${perLane * lanes} runs (seed ${seed})\n${[...counts]
            .map(
              ([key, byStatus]) =>
                `  ${key}: ${[...byStatus]
                  .sort(([a], [b]) => a - b)
                  .map(([status, count]) => `${status}×${count}`)
                  .join(' ')}`,
            )
            .join('\n')}`,
        );
        // Every route of the group was reached.
        for (const { route } of targets) expect(counts.has(routeKey(route)), routeKey(route)).toBe(true);
        if (options.everyRouteSucceeds && runs >= defaultRuns) {
          for (const { route } of targets)
            expect(
              // A route whose success is a redirect (the chat install's callback) counts its 302.
              [...(counts.get(routeKey(route))?.keys() ?? [])].some((status) => status < 300 || status === route.reply.status),
              `${routeKey(route)}: no success`,
            ).toBe(true);
        }
      },
      120_000 + runs * 60,
    );
  });

  return { runtime: () => runtime, fixtures: () => fixtures, calls, send };
}
