import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dynamoNumberEdges, oversizedIds, prototypeKeys } from '../support/property/arbitraries.ts';
import { propertySuite } from '../support/property/suite.ts';

const suite = propertySuite('account');

// What the generators above found answered 500 before issue 11, each pinned to its answer.
describe('account: what the generators found', () => {
  const postEvent = async (text: string) =>
    suite.send({
      method: 'POST',
      path: '/v1/events',
      headers: { ...(await suite.fixtures().liveSession('a')).auth, 'content-type': 'application/json' },
      body: text,
    });

  /** What DynamoDB can hold as the document client writes it: 0, or a magnitude in [1e-130, 2^53 − 1]. */
  const storable = (value: number) =>
    Number.isFinite(value) && (value === 0 || (Math.abs(value) >= 1e-130 && Math.abs(value) <= Number.MAX_SAFE_INTEGER));

  it('POST /v1/events: a number DynamoDB cannot hold is a 400 naming its property; one it can is accepted', async () => {
    await fc.assert(
      fc.asyncProperty(dynamoNumberEdges, async (literal) => {
        const reply = await postEvent(`{"name":"edge.number","properties":{"n":${literal}}}`);
        if (storable(JSON.parse(literal) as number)) {
          expect(reply.status, `${literal} → ${reply.text}`).toBe(202);
        } else {
          expect(reply.status, `${literal} → ${reply.text}`).toBe(400);
          expect((JSON.parse(reply.text) as { errors: Array<{ path: string }> }).errors.map((error) => error.path)).toEqual([
            'body.properties.n',
          ]);
        }
      }),
      { numRuns: 60 },
    );
    for (const literal of ['1e308', '-1e308', '9007199254740993', '1e-320']) {
      expect((await postEvent(`{"name":"edge.number","properties":{"n":${literal}}}`)).status, literal).toBe(400);
    }
  });

  it('POST /v1/events: a property named constructor (or any prototype name the alphabet allows) is stored as sent', async () => {
    const session = await suite.fixtures().liveSession('a');
    const allowed = fc.sample(prototypeKeys, 50).filter((key) => /^[a-z][a-z0-9_.]{0,63}$/.test(key));
    expect(allowed).toContain('constructor');
    const reply = await postEvent('{"name":"prototype.names","properties":{"constructor":1,"then":"x","tojson":true}}');
    expect(reply.status, reply.text).toBe(202);
    const day = new Date(suite.runtime().clock.now()).toISOString().slice(0, 10);
    const { Items } = await suite.calls.client!.send(
      new QueryCommand({
        TableName: suite.runtime().config.TABLE_NAME,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `PRODUCT_EVENT#${day}` },
      }),
    );
    const stored = (Items ?? []).find((item) => item.user_id === session.user.id && item.name === 'prototype.names');
    // biome-ignore lint/suspicious/noThenProperty: the stored event's properties, `then` among the prototype-like names the test sends
    expect(stored?.properties).toEqual({ constructor: 1, then: 'x', tojson: true });
  });

  it('DELETE /v1/api-keys/{id}: an id no key can have (2 KiB long, or odd) is a 404 that never reaches the table', async () => {
    const session = await suite.fixtures().liveSession('a');
    for (const id of [...new Set(fc.sample(oversizedIds, 30)), 'key_', 'key_AAAAAAAAAAAAAAAAA', 'constructor', 'KEY_AAAAAAAAAAAAAAAA']) {
      const calls = await suite.calls.during(async () => {
        const reply = await suite.send({ method: 'DELETE', path: `/v1/api-keys/${encodeURIComponent(id)}`, headers: session.auth });
        expect(reply.status, `${id.slice(0, 40)} (${id.length}) → ${reply.text}`).toBe(404);
      });
      expect(
        calls.filter((call) => call.command === 'DeleteItem' && String(call.input.Key?.pk?.S ?? call.input.Key?.pk).startsWith('APIKEY#')),
      ).toEqual([]);
    }
    // A well-formed id of no key still asks the table, and is 404 too.
    const unknown = await suite.send({ method: 'DELETE', path: '/v1/api-keys/key_AAAAAAAAAAAAAAAA', headers: session.auth });
    expect(unknown.status).toBe(404);
  });
});
