import { toIso } from '../../clock.ts';
import type { RequestKem } from '../../domain/requests/model.ts';

// Request links and their responses share a partition (`REQUEST#<id>`), so the inbox is one
// Query, newest first, and a response is counted and stored in one transaction. Both written by
// the request store (requests.ts).

/** A request link (`REQUEST#<id>` / `REQUEST`), on its owner's listing (gsi1 `REQUESTS#<owner>`) with the listing index's projected names for its counters. */
export const requestKey = (id: string) => ({ pk: `REQUEST#${id}`, sk: 'REQUEST' });
export const requestListingPartition = (ownerId: string): string => `REQUESTS#${ownerId}`;
export const requestListing = (ownerId: string, createdAt: number, id: string) => ({
  gsi1pk: requestListingPartition(ownerId),
  gsi1sk: `${toIso(createdAt)}#${id}`,
});
export interface RequestItem {
  pk: string;
  sk: string;
  type: 'request';
  id: string;
  owner_id: string;
  workspace_id?: string;
  domain_id?: string;
  hostname?: string;
  public_key: string;
  kem: RequestKem;
  prompt_envelope?: Uint8Array;
  /** Its private label's sealed bytes, under the listing index's projected `name` (docs/adr/0180). */
  name?: Uint8Array;
  state: 'open' | 'closed';
  ended_at?: number;
  /** The responses it takes, and those left (the listing index's names). */
  max_views: number;
  views_left: number;
  created_at: number;
  expires_at: number;
  gsi1pk: string;
  gsi1sk: string;
  ttl: number;
}

/** A response (`REQUEST#<link>` / `RESPONSE#<received at>#<id>`). */
export const responseKey = (requestId: string, createdAt: number, id: string) => ({
  pk: requestKey(requestId).pk,
  sk: `RESPONSE#${toIso(createdAt)}#${id}`,
});
export const responsePrefix = 'RESPONSE#';
export interface ResponseItem {
  pk: string;
  sk: string;
  type: 'response';
  id: string;
  request_id: string;
  kind: 'text' | 'file';
  envelope?: Uint8Array;
  secret_id?: string;
  salt: string;
  size_bytes: number;
  enc: string;
  wrapped_key: string;
  created_at: number;
  ttl: number;
}
