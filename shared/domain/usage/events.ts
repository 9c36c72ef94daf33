import * as z from 'zod/mini';
import type { Clock } from '../../clock.ts';
import { newEventId } from '../../ids.ts';
import { productEventExpiresAt } from './model.ts';
import type { ProductEvent, ProductEventStore } from './ports.ts';

const eventName = /^[a-z][a-z0-9_.]{2,63}$/;
const propertyName = /^[a-z][a-z0-9_.]{0,63}$/;
export const maxEventProperties = 20;

/**
 * A product event: a name and at most 20 flat properties, each a short string, a number or a
 * boolean. Nothing else is accepted, so nothing else (no secret, no free text) can be stored.
 */
export const productEventRequest = z.strictObject({
  name: z.string().check(z.regex(eventName, 'lowercase letters, digits, `_` and `.`, 3 to 64 characters, starting with a letter')),
  properties: z.optional(
    z
      .record(
        z.string().check(z.regex(propertyName, 'lowercase letters, digits, `_` and `.`, 1 to 64 characters, starting with a letter')),
        z.union([z.string().check(z.maxLength(200)), z.number(), z.boolean()]),
      )
      .check(z.refine((properties) => Object.keys(properties).length <= maxEventProperties, `at most ${maxEventProperties} properties`)),
  ),
});
export type ProductEventRequest = z.infer<typeof productEventRequest>;

export async function recordProductEvent(
  userId: string,
  request: ProductEventRequest,
  ports: { clock: Clock; productEvents: ProductEventStore },
): Promise<ProductEvent> {
  const at = ports.clock.now();
  const event: ProductEvent = { id: newEventId(), userId, name: request.name, properties: request.properties ?? {}, at };
  await ports.productEvents.record(event, productEventExpiresAt(at));
  return event;
}
