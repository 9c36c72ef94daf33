/**
 * The API calls of per-recipient links (`call` of `api.ts`, same origin): the gate a restricted
 * link's holder passes, and what the owner sees and does (each link, revoking one, receipts,
 * the plan's flags). A gate code goes only to `gate/verify`, a gate token only to the claim.
 */
import { call, secretPath, type LinkState, type Page, type SecretMetadata } from './api.ts';

/** A link as its owner sees it in the metadata read. */
export interface OwnedLink {
  recipient_id: string;
  label: string | null;
  email: string | null;
  restricted: boolean;
  state: LinkState | string;
  views_left: number;
}

export interface OwnerMetadata extends SecretMetadata {
  owned?: true;
  recipients?: OwnedLink[];
}

/** A restricted link's proof of its address: 15 minutes, bound to the secret, the link and the address. */
export interface GateSession {
  gate_token: string;
  expires_at: string;
}

export type ReceiptChannel = 'web' | 'cli' | 'chat' | 'api';

export interface Receipt {
  recipient_id: string | null;
  opened_at: string;
  channel: ReceiptChannel | string;
  /** Null on the Free plan, and where CloudFront did not say. */
  location: { country: string; region: string | null } | null;
  /** Null on the Free plan. */
  device: { browser: string | null; os: string | null } | null;
}

/** What the account's plan includes (`GET /v1/flags`); only the receipts' columns are read here. */
export interface Flags {
  receipts_location: boolean;
  receipts_device: boolean;
  [flag: string]: boolean;
}

const gatePath = (id: string, step: 'start' | 'verify') => `${secretPath(id)}/gate/${step}`;
const pageQuery = (limit: number, cursor: string | null) => new URLSearchParams({ limit: String(limit), ...(cursor ? { cursor } : {}) }).toString();

/** The gate of a restricted link: `start` answers the same whatever the address (a code is mailed only to the link's). */
export const gateApi = {
  start: (id: string, recipientId: string, email: string) => call<{ sent: true }>('POST', gatePath(id, 'start'), { json: { recipient_id: recipientId, email } }),
  verify: (id: string, recipientId: string, email: string, code: string) =>
    call<GateSession>('POST', gatePath(id, 'verify'), { json: { recipient_id: recipientId, email, code } }),
};

/** The owner's calls, with the session's access token. */
export const ownerLinksApi = {
  /** The metadata read is lenient: only a valid owner's token adds `owned` and the links. */
  read: (token: string, id: string) => call<OwnerMetadata>('GET', secretPath(id), { token }),
  revokeLink: (token: string, id: string, recipientId: string) =>
    call<{ recipient_id: string; state: 'revoked' }>('DELETE', `${secretPath(id)}/recipients/${encodeURIComponent(recipientId)}`, { token }),
  receipts: (token: string, id: string, limit: number, cursor: string | null) => call<Page<Receipt>>('GET', `${secretPath(id)}/receipts?${pageQuery(limit, cursor)}`, { token }),
  flags: (token: string) => call<{ flags: Flags }>('GET', '/v1/flags', { token }),
};
