import type { Clock } from '../../clock.ts';
import { newEventId } from '../../ids.ts';
import { productEventExpiresAt } from './model.ts';
import type { ProductEvent, ProductEventStore, ProductEventValue } from './ports.ts';

/** What a signed-in surface reports: a name and flat properties (the request schema bounds both). */
export interface NewProductEvent {
  name: string;
  properties?: Record<string, ProductEventValue>;
}

export async function recordProductEvent(
  userId: string,
  request: NewProductEvent,
  ports: { clock: Clock; productEvents: ProductEventStore },
): Promise<ProductEvent> {
  const at = ports.clock.now();
  const event: ProductEvent = { id: newEventId(), userId, name: request.name, properties: request.properties ?? {}, at };
  await ports.productEvents.record(event, productEventExpiresAt(at));
  return event;
}
