/** 16 bytes as unpadded base64url: 22 characters, the last one carrying only 2 bits. */
export const saltPattern = /^[A-Za-z0-9_-]{21}[AQgw]$/;
/** 32 bytes (a SHA-256) as unpadded base64url: 43 characters, the last one carrying 4 bits. */
export const digestPattern = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;
/** Secret ids: `sec_` and 16 random bytes as base64url. */
export const secretIdPattern = /^sec_[A-Za-z0-9_-]{21}[AQgw]$/;
/** Recipient link ids: `rcp_` and 16 random bytes as base64url. */
export const recipientIdPattern = /^rcp_[A-Za-z0-9_-]{21}[AQgw]$/;

/** Length of the bytes a valid padded base64 string decodes to, without decoding it. */
export function decodedBase64Length(text: string): number {
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  return (text.length / 4) * 3 - padding;
}

/**
 * The most a private label's envelope may decode to: a label sealed in the owner's browser
 * (AES-GCM: a 12-byte IV, the text, a 16-byte tag), opaque to the server, which only keeps it.
 */
export const labelEnvelopeBytes = 512;
