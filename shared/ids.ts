import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Every id and token the service makes comes from here: url-safe, random, ≥ 128 bits.
 * Tokens are stored only as their SHA-256 and compared in constant time.
 */
const randomPart = (bytes: number): string => randomBytes(bytes).toString('base64url');

export const newSecretId = (): string => `sec_${randomPart(16)}`;
export const newEventId = (): string => `evt_${randomPart(16)}`;
export const newRequestId = (): string => `req_${randomPart(12)}`;
export const newDeleteToken = (): string => `hdt_${randomPart(32)}`;
export const newUserId = (): string => `usr_${randomPart(16)}`;
export const newSessionId = (): string => `ses_${randomPart(16)}`;
export const newApiKeyId = (): string => `key_${randomPart(12)}`;
export const newKeyId = (): string => `sk_${randomPart(12)}`;
export const newWebhookId = (): string => `whk_${randomPart(16)}`;
export const newRecipientId = (): string => `rcp_${randomPart(16)}`;
/** Request links (interface §4.3) and their responses; not `req_`, which names an HTTP request. */
export const newRequestLinkId = (): string => `rql_${randomPart(16)}`;
export const newResponseId = (): string => `rsp_${randomPart(16)}`;
/** A gate session's token, `hlg_` and 256 bits: stored only as its SHA-256. */
export const newGateToken = (): string => `hlg_${randomPart(32)}`;
/**
 * A sign-in link's one-time token, `hls_` and 256 bits, mailed with a sign-in code in
 * `/signin#email=…&token=<token>`: stored only as its SHA-256, beside the code it came with.
 */
export const newSignInLinkToken = (): string => `hls_${randomPart(32)}`;
/** Workspaces (interface §4.7), their invitations and audit rows. */
export const newWorkspaceId = (): string => `wks_${randomPart(16)}`;
export const newInvitationId = (): string => `inv_${randomPart(16)}`;
export const newAuditId = (): string => `aud_${randomPart(12)}`;
/** An invitation's one-time token, `hli_` and 256 bits, mailed in `/join#<token>`: stored only as its SHA-256. */
export const newInvitationToken = (): string => `hli_${randomPart(32)}`;
export const newDomainId = (): string => `dom_${randomPart(16)}`;
/** A custom domain's TXT challenge (256 bits): published by the claimant, so not a secret, but never guessable or reused. */
export const newDomainChallenge = (): string => randomPart(32);
/** A workspace's SCIM directory key (256 bits); stored only as its SHA-256. */
export const newDirectoryKey = (): string => `hlscim_${randomPart(32)}`;
/** A provisioned SCIM User's id: the service's own, stable (the directory keeps its own as externalId). */
export const newScimUserId = (): string => `scu_${randomPart(16)}`;
/** A SCIM Group's id (issue 30). */
export const newScimGroupId = (): string => `scg_${randomPart(16)}`;
/** Delivery ids start with their time (base 36 ms), so an endpoint's log sorts by id, newest first. */
const timePrefix = (ms: number): string => ms.toString(36).padStart(9, '0');
export const newDeliveryId = (now: number): string => `dlv_${timePrefix(now)}${randomPart(16)}`;
/** When a delivery id was made (ms), read back from its time prefix. */
export const deliveryIdTime = (id: string): number => parseInt(id.slice(4, 13), 36);
/** The delivery of one event to one endpoint has one id, however often the event is relayed. */
export const eventDeliveryId = (eventId: string, endpointId: string, occurredAt: number): string =>
  `dlv_${timePrefix(occurredAt)}${createHash('sha256').update(`${eventId}:${endpointId}`).digest().subarray(0, 16).toString('base64url')}`;
/** Opaque refresh token naming its session: `hlr_<session id>.<256 random bits>`. */
export const newRefreshSecret = (): string => randomPart(32);
/** API key values: `hlk_<key id>_<256 random bits>`; the id makes the lookup one read. */
export const newApiKeySecret = (): string => randomPart(32);
/** A uniformly random decimal code (rejection sampling, no modulo bias). */
export function newNumericCode(digits: number): string {
  const limit = 10 ** digits;
  const ceiling = Math.floor(0xffffffff / limit) * limit;
  for (;;) {
    const value = randomBytes(4).readUInt32BE(0);
    if (value < ceiling) return String(value % limit).padStart(digits, '0');
  }
}

export const sha256 = (value: string | Uint8Array): Buffer => createHash('sha256').update(value).digest();
export const sha256Base64Url = (value: string | Uint8Array): string => sha256(value).toString('base64url');

/** Constant-time equality of two byte strings; different lengths are unequal without leaking where. */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) {
    // Still spend a comparison so the length check is not the only work done.
    timingSafeEqual(Buffer.from(a), Buffer.from(a));
    return false;
  }
  return timingSafeEqual(a, b);
}
