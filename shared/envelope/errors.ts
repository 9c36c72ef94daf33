/** Why an envelope could not be opened; each a distinct, stable code a client can explain. */
export type EnvelopeErrorCode =
  | 'not_envelope'
  | 'unsupported_version'
  | 'malformed'
  | 'salt_mismatch'
  | 'wrong_key'
  | 'wrong_passphrase'
  | 'passphrase_required'
  | 'tampered'
  | 'bad_link'
  | 'key_mismatch'
  | 'forged';

const messages: Record<EnvelopeErrorCode, string> = {
  not_envelope: 'This is not a Hushlink envelope.',
  unsupported_version: 'This envelope was made by a newer version; update the app to open it.',
  malformed: 'The envelope is damaged (its header is not valid).',
  salt_mismatch: 'The envelope does not belong to this secret.',
  wrong_key: 'The key in the link does not open this secret; check that the whole link was copied.',
  wrong_passphrase: 'The passphrase is not right.',
  passphrase_required: 'This secret needs a passphrase.',
  tampered: 'The content was altered or cut short; it cannot be trusted.',
  bad_link: 'This request link is incomplete or damaged; check that the whole link was copied.',
  key_mismatch: 'The public key does not match the fingerprint in the link; it may have been substituted.',
  forged: 'This response was not made with the request link; it cannot be trusted.',
};

export class EnvelopeError extends Error {
  constructor(
    readonly code: EnvelopeErrorCode,
    detail?: string,
  ) {
    super(detail ? `${messages[code]} (${detail})` : messages[code]);
    this.name = 'EnvelopeError';
  }
}
