import type { Clock } from '../../clock.ts';
import { newEventId } from '../../ids.ts';
import { productEventExpiresAt } from './model.ts';
import type { ProductEvent, ProductEventStore } from './ports.ts';
import type { ProductEventRequest } from '../../api/account.ts';



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
