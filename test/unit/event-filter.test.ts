import { describe, expect, it } from 'vitest';
import { eventFilter } from '../../local/eventFilter.ts';
import { secretChangeOf as changeOfWrite } from '../../shared/domain/relay/projections.ts';
import { relayFilters, secretWriteOf, testDeliveryOf } from '../../shared/store/relayRecords.ts';
import type { DynamoDBRecord } from 'aws-lambda';

describe('eventFilter (Lambda event filtering, as the local pollers apply it)', () => {
  const matches = eventFilter([
    { eventName: ['INSERT', 'MODIFY'], dynamodb: { NewImage: { type: { S: ['secret'] }, owner_id: { S: [{ exists: true }] } } } },
  ]);

  it('matches exact values at each key, and exists on a field', () => {
    expect(matches({ eventName: 'INSERT', dynamodb: { NewImage: { type: { S: 'secret' }, owner_id: { S: 'usr_1' } } } })).toBe(true);
    expect(
      matches({ eventName: 'MODIFY', dynamodb: { NewImage: { type: { S: 'secret' }, owner_id: { S: 'usr_1' }, other: { N: '1' } } } }),
    ).toBe(true);
  });

  it('refuses another value, a missing field, or a missing parent', () => {
    expect(matches({ eventName: 'REMOVE', dynamodb: { NewImage: { type: { S: 'secret' }, owner_id: { S: 'u' } } } })).toBe(false);
    expect(matches({ eventName: 'INSERT', dynamodb: { NewImage: { type: { S: 'session' }, owner_id: { S: 'u' } } } })).toBe(false);
    expect(matches({ eventName: 'INSERT', dynamodb: { NewImage: { type: { S: 'secret' } } } })).toBe(false);
    expect(matches({ eventName: 'INSERT', dynamodb: {} })).toBe(false);
    expect(matches({ eventName: 'INSERT' })).toBe(false);
    expect(matches(null)).toBe(false);
  });

  it('passes a record any one pattern matches, and `exists: false` asks for absence', () => {
    const either = eventFilter([{ kind: ['a'] }, { kind: ['b'], extra: [{ exists: false }] }]);
    expect(either({ kind: 'a' })).toBe(true);
    expect(either({ kind: 'b' })).toBe(true);
    expect(either({ kind: 'b', extra: 1 })).toBe(false);
    expect(either({ kind: 'c' })).toBe(false);
  });

  it('refuses at once a rule it cannot honour, so no pattern passes silently', () => {
    expect(() => eventFilter([{ name: [{ prefix: 'sec' } as never] }])).toThrow(/name/);
    expect(() => eventFilter([{ count: [{ numeric: ['>', 1] } as never] }])).toThrow(/count/);
    expect(() => eventFilter([{ name: 'secret' as never }])).toThrow(/must be an array/);
  });
});

const image = (item: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(item).map(([name, value]) => [
      name,
      typeof value === 'number'
        ? { N: String(value) }
        : Array.isArray(value)
          ? { L: value.map((event) => ({ M: { id: { S: event.id }, type: { S: event.type }, at: { N: String(event.at) } } })) }
          : { S: String(value) },
    ]),
  );
const secret = (emitted: Array<{ id: string; type: string; at: number }>, owner?: string, viewsLeft = 2) =>
  image({ type: 'secret', id: 'sec_1', views_left: viewsLeft, ...(owner ? { owner_id: owner } : {}), emitted });
const record = (eventName: 'INSERT' | 'MODIFY' | 'REMOVE', NewImage?: Record<string, unknown>, OldImage?: Record<string, unknown>) =>
  ({
    eventName,
    dynamodb: { SequenceNumber: '1', ...(NewImage ? { NewImage } : {}), ...(OldImage ? { OldImage } : {}) },
  }) as unknown as DynamoDBRecord;

// The store reads the write off a record; the domain decides what the endpoints hear of it.
const secretChangeOf = (record: DynamoDBRecord) => changeOfWrite(secretWriteOf(record));

describe('the relay’s stream records', () => {
  const created = { id: 'evt_1', type: 'secret.created', at: 1 };
  const viewed = { id: 'evt_2', type: 'secret.viewed', at: 2 };
  const passes = eventFilter(relayFilters);

  it('an owned secret written: the events the write added, with the secret after it', () => {
    const inserted = record('INSERT', secret([created], 'usr_1'));
    expect(passes(inserted)).toBe(true);
    expect(secretChangeOf(inserted)).toEqual({ secret: { id: 'sec_1', ownerId: 'usr_1', viewsLeft: 2 }, events: [created] });
    // Each write replaces the item's events with its own.
    const claimed = record('MODIFY', secret([viewed], 'usr_1', 1), secret([created], 'usr_1'));
    expect(secretChangeOf(claimed)).toEqual({ secret: { id: 'sec_1', ownerId: 'usr_1', viewsLeft: 1 }, events: [viewed] });
  });

  it('nothing for a write that added no event (adoption), an anonymous secret, or a removal', () => {
    const adopted = record('MODIFY', secret([created], 'usr_1'), secret([created]));
    expect(passes(adopted)).toBe(true);
    expect(secretChangeOf(adopted)).toBeNull();
    const anonymous = record('MODIFY', secret([viewed]), secret([created]));
    expect(passes(anonymous)).toBe(false);
    expect(secretChangeOf(anonymous)).toBeNull();
    expect(passes(record('REMOVE', undefined, secret([created], 'usr_1')))).toBe(false);
    expect(secretChangeOf(record('REMOVE', undefined, secret([created], 'usr_1')))).toBeNull();
  });

  it('a test delivery written: its first attempt to queue; no other delivery', () => {
    const test = record(
      'INSERT',
      image({
        type: 'webhook_delivery',
        id: 'dlv_1',
        endpoint_id: 'whk_1',
        user_id: 'usr_1',
        event_type: 'webhook.test',
        status: 'pending',
      }),
    );
    expect(passes(test)).toBe(true);
    expect(testDeliveryOf(test)).toEqual({ id: 'dlv_1', endpointId: 'whk_1', userId: 'usr_1' });
    const relayed = record(
      'INSERT',
      image({
        type: 'webhook_delivery',
        id: 'dlv_2',
        endpoint_id: 'whk_1',
        user_id: 'usr_1',
        event_type: 'secret.viewed',
        status: 'pending',
      }),
    );
    expect(passes(relayed)).toBe(false);
    expect(testDeliveryOf(relayed)).toBeNull();
    const attempted = record(
      'MODIFY',
      image({
        type: 'webhook_delivery',
        id: 'dlv_1',
        endpoint_id: 'whk_1',
        user_id: 'usr_1',
        event_type: 'webhook.test',
        status: 'delivered',
      }),
    );
    expect(passes(attempted)).toBe(false);
    expect(testDeliveryOf(attempted)).toBeNull();
  });
});
