/**
 * The API calls of per-recipient links (`call` of `api.ts`, same origin): the gate a restricted
 * link's holder passes, and what the owner sees and does (each link, revoking one, receipts,
 * the plan's flags). A gate code goes only to `gate/verify`, a gate token only to the claim.
 */
import type * as z from 'zod/mini';
import type { accountReplies } from '../../shared/api/accountReplies.ts';
import type { gateReplies } from '../../shared/api/gateReplies.ts';
import type { secretsReplies } from '../../shared/api/secretsReplies.ts';
import { call, pageQuery, secretPath, type SecretMetadata } from './api.ts';

/** The owner's metadata read: `owned` and each link only when the token is the owner's. */
export type OwnerMetadata = SecretMetadata;
/** A link as its owner sees it in the metadata read. */
export type OwnedLink = NonNullable<OwnerMetadata['recipients']>[number];
/** A restricted link's proof of its address: 15 minutes, bound to the secret, the link and the address. */
export type GateSession = z.output<typeof gateReplies.GateSession>;
type ReceiptList = z.output<typeof secretsReplies.ReceiptList>;
export type Receipt = ReceiptList['items'][number];
export type ReceiptChannel = Receipt['channel'];
/** What the account's plan includes (`GET /v1/flags`); only the receipts' columns are read here. */
export type Flags = z.output<typeof accountReplies.Flags>['flags'];

const gatePath = (id: string, step: 'start' | 'verify') => `${secretPath(id)}/gate/${step}`;

/** The gate of a restricted link: `start` answers the same whatever the address (a code is mailed only to the link's). */
export const gateApi = {
  start: (id: string, recipientId: string, email: string) =>
    call<z.output<typeof gateReplies.GateCodeSent>>('POST', gatePath(id, 'start'), { json: { recipient_id: recipientId, email } }),
  verify: (id: string, recipientId: string, email: string, code: string) =>
    call<GateSession>('POST', gatePath(id, 'verify'), { json: { recipient_id: recipientId, email, code } }),
};

/** The owner's calls, with the session's access token. */
export const ownerLinksApi = {
  /** The metadata read is lenient: only a valid owner's token adds `owned` and the links. */
  read: (token: string, id: string) => call<OwnerMetadata>('GET', secretPath(id), { token }),
  revokeLink: (token: string, id: string, recipientId: string) =>
    call<z.output<typeof secretsReplies.RecipientRevoked>>('DELETE', `${secretPath(id)}/recipients/${encodeURIComponent(recipientId)}`, {
      token,
    }),
  receipts: (token: string, id: string, limit: number, cursor: string | null) =>
    call<ReceiptList>('GET', `${secretPath(id)}/receipts?${pageQuery(limit, cursor)}`, { token }),
  flags: (token: string) => call<z.output<typeof accountReplies.Flags>>('GET', '/v1/flags', { token }),
};
