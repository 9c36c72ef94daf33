import { noticeMailLanguage, renderMail } from '../mailText.ts';
import { maxQueueDelaySeconds } from '../queue.ts';
import { toEpochSeconds } from '../../clock.ts';
import { webhookLimits } from '../../limits.ts';
import { DestinationRefused, parseWebhookUrl, resolveDestination } from '../../webhooks/destination.ts';
import type { WebhookResult } from '../../webhooks/send.ts';
import { signatureHeaderName, webhookSignature } from '../../webhooks/signature.ts';
import {
  maxAttempts,
  maxConsecutiveFailures,
  retryDelaysSeconds,
  type Delivery,
  type DeliveryAttempt,
  type WebhookEndpoint,
} from './model.ts';
import type { WebhookPorts } from './ports.ts';
import { deliverMessage, sendWork, type DeliverMessage } from './work.ts';

export type AttemptOutcome = 'delivered' | 'retrying' | 'failed' | 'cancelled' | 'skipped';

/**
 * Makes one attempt of one delivery, at most once: the attempt is claimed by a conditional
 * write before anything is sent, so a redelivered or duplicated message finds it taken (or the
 * delivery settled) and sends nothing. The endpoint is read alongside the claim: deleted or
 * switched off, its deliveries are cancelled instead of sent.
 */
export async function attemptDelivery(message: DeliverMessage, ports: WebhookPorts): Promise<AttemptOutcome> {
  const { user_id: userId, endpoint_id: endpointId, delivery_id: deliveryId, attempt: number } = message;
  const now = ports.clock.now();
  const [endpoint, claimed] = await Promise.all([
    ports.webhooks.getEndpoint(userId, endpointId),
    ports.webhooks.claimAttempt(endpointId, deliveryId, number, now, now + webhookLimits.attemptLeaseSeconds * 1000),
  ]);
  if (!claimed) return 'skipped';
  if (!endpoint || (!endpoint.enabled && !isProbe(claimed, endpoint))) {
    await ports.webhooks.cancelDelivery(claimed);
    return 'cancelled';
  }

  const signature = webhookSignature(await ports.sealer.open(endpoint.sealedSecret, endpoint.id), toEpochSeconds(now), claimed.body);
  const result = await send(endpoint, claimed.body, signature, ports);
  const attempt: DeliveryAttempt = {
    number,
    at: now,
    durationMs: Math.round(result.durationMs),
    signature,
    ...(result.status === undefined ? {} : { status: result.status }),
    ...(result.error === undefined ? {} : { error: result.error }),
  };

  if (result.ok) {
    await ports.webhooks.recordAttempt(claimed, attempt, { status: 'delivered' });
    // Most successes follow successes: no write to the endpoint's (hot) item unless a count or
    // a switch-off is there to reset.
    if (endpoint.consecutiveFailures > 0 || !endpoint.enabled) await ports.webhooks.recordSuccess(userId, endpointId);
    ports.metrics.count('WebhookDeliveries');
    return 'delivered';
  }

  ports.metrics.count('WebhookFailures');
  const delaySeconds = number < maxAttempts ? retryDelaysSeconds[number - 1]! : undefined;
  await ports.webhooks.recordAttempt(
    claimed,
    attempt,
    // Waits SQS cannot hold go on the retry index, for the schedule's sweep to find.
    delaySeconds === undefined
      ? { status: 'failed' }
      : { status: 'pending', nextAttemptAt: now + delaySeconds * 1000, swept: delaySeconds > maxQueueDelaySeconds },
  );
  // Waits SQS can hold are queued now; longer ones are found by the schedule's retry sweep.
  if (delaySeconds !== undefined && delaySeconds <= maxQueueDelaySeconds) {
    await sendWork(ports.queue, deliverMessage(claimed, number + 1), delaySeconds);
  }
  const failures = await ports.webhooks.recordFailure(userId, endpointId, maxConsecutiveFailures, now);
  if (failures?.disabled) await announceSwitchOff(endpoint, failures.failures, ports);
  return delaySeconds === undefined ? 'failed' : 'retrying';
}

/**
 * A switched-off endpoint still gets the test deliveries its owner asks for after it was
 * switched off (their success switches it back on); everything else for it is cancelled.
 */
const isProbe = (delivery: Delivery, endpoint: WebhookEndpoint): boolean =>
  delivery.eventType === 'webhook.test' && endpoint.disabledAt !== undefined && delivery.createdAt >= endpoint.disabledAt;

/** Checks the destination again (DNS may have changed since registration) and posts to exactly it. */
async function send(endpoint: WebhookEndpoint, body: string, signature: string, ports: WebhookPorts): Promise<WebhookResult> {
  try {
    const url = parseWebhookUrl(endpoint.url, { local: ports.local });
    const destination = await resolveDestination(url, { local: ports.local, resolver: ports.transport.resolver });
    return await ports.transport.post({
      url,
      ...destination,
      body,
      headers: { 'content-type': 'application/json', 'user-agent': 'Hushlink-Webhooks/1', [signatureHeaderName]: signature },
    });
  } catch (error) {
    if (error instanceof DestinationRefused) return { ok: false, durationMs: 0, error: `refused_destination: ${error.reason}` };
    throw error;
  }
}

async function announceSwitchOff(endpoint: WebhookEndpoint, failures: number, ports: WebhookPorts): Promise<void> {
  ports.metrics.count('WebhookEndpointsDisabled');
  ports.logger.warn('webhook endpoint switched off', { endpoint_id: endpoint.id, consecutive_failures: failures });
  const owner = await ports.users.get(endpoint.userId);
  if (!owner) return;
  // No request caused it: the owner's saved language, else English.
  await ports.mailer.send({
    to: owner.email,
    ...renderMail('webhookDisabled', noticeMailLanguage(owner, undefined), { url: endpoint.url, id: endpoint.id, failures }),
  });
}
