import type { CreateSecretRequest } from '../../shared/api/secrets.ts';
import type { CurlOptions } from '../../shared/domain/secrets/curl.ts';
import type { NewTextSecret, SecretSettings } from '../../shared/domain/secrets/create.ts';

/** What a text's and a file's body set alike, in the domain's words (`not_before` as epoch milliseconds). */
export const settingsOf = (
  body: Pick<
    CreateSecretRequest,
    'salt' | 'expires_in' | 'max_views' | 'not_before' | 'claim_verifier' | 'link_verifier' | 'recipients' | 'label_envelope'
  >,
): SecretSettings => ({
  salt: body.salt,
  expiresInSeconds: body.expires_in,
  maxViews: body.max_views,
  notBefore: body.not_before === undefined ? undefined : Date.parse(body.not_before),
  claimVerifier: body.claim_verifier,
  linkVerifier: body.link_verifier,
  recipients: body.recipients,
  labelEnvelope: body.label_envelope === undefined ? undefined : Buffer.from(body.label_envelope, 'base64'),
});

/** `POST /v1/secrets`: the envelope decoded (the schema checked it is base64 of `size_bytes`). */
export const newTextSecret = (body: CreateSecretRequest): NewTextSecret => ({
  ...settingsOf(body),
  envelope: Buffer.from(body.envelope, 'base64'),
  workspaceId: body.workspace_id,
  hostname: body.hostname,
});

/** Curl mode's query: a whole number (up to 15 digits, spaces around allowed) is said; anything else is not. */
const wholeNumber = (value: string | undefined): number | undefined =>
  value === undefined || !/^-?\d{1,15}$/.test(value.trim()) ? undefined : Number(value.trim());

export const curlOptions = (query: { expires_in?: string | undefined; max_views?: string | undefined }): CurlOptions => ({
  expiresInSeconds: wholeNumber(query.expires_in),
  maxViews: wholeNumber(query.max_views),
});
