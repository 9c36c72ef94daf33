import { toIso } from '../../clock.ts';
import { sha256 } from '../../ids.ts';

/**
 * The work index, gsi2: what is due at a time, one queue per partition prefix, each sharded
 * (`<QUEUE>#0` … `<QUEUE>#<workShards - 1>`) so no index partition takes every write, sorted by
 * `<ISO time>#<id>`. An item is on a queue while it carries the queue's gsi2 keys.
 */
export const workQueues = {
  /** Active secrets by expiry (the secret store). */
  due: 'DUE',
  /** File secrets still uploading, by when the upload goes stale (the secret store). */
  upload: 'UPLOAD',
  /** Ended file secrets whose object is still to delete (the secret store). */
  purge: 'PURGE',
  /** Webhook deliveries waiting longer than the queue can hold (the webhook store). */
  retry: 'RETRY',
  /** Large uploads whose completion the sweep finishes, by their next try (the secret store). */
  completion: 'COMPLETE',
  /** Pending domain claims, by their next check (the domain store). */
  domainCheck: 'DOMAIN_CHECK',
  /** Verified domain claims, by their next hosting step (the domain store). */
  domainHosting: 'DOMAIN_HOSTING',
  /** Deleted claims' stop orders, by their next try (the domain store). */
  hostingStop: 'HOSTING_STOP',
} as const;
export type WorkQueue = (typeof workQueues)[keyof typeof workQueues];

export const workShards = 4;
export const workShardOf = (id: string): number => sha256(id)[0]! % workShards;

export const workPartition = (queue: WorkQueue, shard: number): string => `${queue}#${shard}`;

/** The gsi2 keys that put `id` on `queue`, due at `at`. */
export const workEntry = (queue: WorkQueue, id: string, at: number) => ({
  gsi2pk: workPartition(queue, workShardOf(id)),
  gsi2sk: `${toIso(at)}#${id}`,
});

/** The last sort key due at `upTo` (an id never sorts after `~`). */
export const dueUpTo = (upTo: number): string => `${toIso(upTo)}#~`;

/** Whether an item's gsi2 partition is on `queue`. */
export const isOnQueue = (queue: WorkQueue, gsi2pk: unknown): boolean => typeof gsi2pk === 'string' && gsi2pk.startsWith(`${queue}#`);
