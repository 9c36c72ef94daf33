import * as z from 'zod/mini';
import { nullableTimestamp, timestamp } from './output.ts';

/**
 * Custom domains (issue 17, interface §4.7), part of the workspaces group's contract. A hostname
 * is only bounded here (DNS's 253 characters, an IDN's Unicode form a little longer); what a
 * hostname may be is the domain's to say (shared/domain/domains/hostname.ts), field by field.
 */
const workspaceId = z.string().check(z.minLength(1), z.maxLength(64));

export const domainsRequests = {
  DomainClaimRequest: z.strictObject({ workspace_id: workspaceId, hostname: z.string().check(z.minLength(1), z.maxLength(300)) }),
  DomainListQuery: z.strictObject({ workspace_id: workspaceId }),
};

const states = ['pending', 'verified'] as const;
/** The TXT record that proves a claim: published at `name`, its value exactly `value`. */
const verification = z.strictObject({ type: z.literal('TXT'), name: z.string(), value: z.string() });
/** Why the last check did not verify it (shared/domain/domains/model.ts); null once verified or before any check. */
const lastError = z.nullable(z.enum(['txt_not_found', 'txt_mismatch', 'dns_unavailable', 'verified_elsewhere']));

export const domainsReplies = {
  DomainClaimed: z.strictObject({ id: z.string(), hostname: z.string(), state: z.enum(states), verification, created_at: timestamp }),
  DomainList: z.strictObject({
    items: z.array(
      z.strictObject({
        id: z.string(),
        hostname: z.string(),
        state: z.enum(states),
        verification,
        verified_at: nullableTimestamp,
        last_checked_at: nullableTimestamp,
        last_error: lastError,
      }),
    ),
  }),
  DomainChecked: z.strictObject({ id: z.string(), state: z.enum(states), checked_at: timestamp, last_error: lastError }),
  DomainDeleted: z.strictObject({ id: z.string(), deleted: z.literal(true) }),
};
