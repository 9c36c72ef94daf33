import { HttpError } from '../../http/errors.ts';
import { newDeleteToken, newEventId, newRecipientId, newSecretId, sha256Base64Url } from '../../ids.ts';
import { chunkSpans, EnvelopeError, parseHeader, startsWithMagic } from '../../envelope/index.ts';
import type { FileUpload, Recipient, Secret } from './model.ts';
import type { SecretPorts } from './ports.ts';
import type { CreateSecretRequest } from '../../api/secrets.ts';
import { assertSendInWorkspace, type WorkspaceMembershipPorts } from '../workspaces/membership.ts';
import { linkHostOf, type LinkHost, type LinkHostPorts } from '../domains/linkHosts.ts';

export interface CreatedSecret {
  secret: Secret;
  /** Returned once; only its hash is stored. */
  deleteToken: string;
}

/** A secret to store, whatever route it came from: its envelope decoded (or, a file's, to come), its limits chosen. */
export type NewSecret = NewSecretFields & (NewText | NewFile);

interface NewText {
  envelope: Uint8Array;
  /** What `checkEnvelope` found, when the caller has checked it already (to hold it to a policy). */
  envelopeFormat?: { checked: Secret['envelopeFormat'] };
}

/** A file: its envelope goes to the files bucket by an upload begun for the secret's id; `pending` until it completes. */
interface NewFile {
  kind: 'file';
  sizeBytes: number;
  upload: (secretId: string) => Promise<FileUpload>;
  /** A response to a request link: no claim can take a view of it (it opens from the requester's inbox). */
  response?: Secret['response'];
}

export interface NewSecretFields {
  salt: string;
  expiresInSeconds: number;
  maxViews: number;
  notBefore?: number;
  claimVerifier?: string;
  linkVerifier?: string;
  recipients?: CreateSecretRequest['recipients'];
  /** Sent inside this workspace: the caller is a member and its policy allowed it. */
  workspaceId?: string;
  /** On this workspace's hostname (its verified claim, `linkHostOf`). */
  linkHost?: LinkHost;
}

/**
 * A text secret. With a `workspace_id`, the caller must be a member and the secret satisfy the
 * workspace's policy (403 otherwise), its passphrase told by the envelope's header: an envelope
 * of another format has no flag to tell it, so a policy requiring a passphrase refuses it. With
 * a `hostname` too, its links are on that hostname of the workspace's (400 if not verified).
 */
export async function createSecret(request: CreateSecretRequest, ownerId: string | null, ports: SecretPorts & WorkspaceMembershipPorts & LinkHostPorts): Promise<CreatedSecret> {
  const envelope = Buffer.from(request.envelope, 'base64');
  const envelopeFormat = checkEnvelope(envelope, request.salt);
  const settings = secretSettings(request, ports);
  let inWorkspace: Pick<NewSecretFields, 'workspaceId' | 'linkHost'> = {};
  if (request.workspace_id !== undefined) {
    const { expires_in: expiresIn, max_views: maxViews, recipients = [] } = request;
    await assertSendInWorkspace(request.workspace_id, ownerId, { kind: 'text', expiresIn, maxViews, passphrase: envelopeFormat?.passphrase ?? false, recipients }, ports);
    inWorkspace = await sentIn(request.workspace_id, request.hostname, ports);
  }
  return storeSecret({ envelope, envelopeFormat: { checked: envelopeFormat }, ...settings, ...inWorkspace }, ownerId, ports);
}

/** The workspace a secret or file is sent in (the caller's membership already checked), and its hostname the links are on, if one is asked for. */
export async function sentIn(workspaceId: string, hostname: string | undefined, ports: LinkHostPorts): Promise<Pick<NewSecretFields, 'workspaceId' | 'linkHost'>> {
  return { workspaceId, ...(hostname === undefined ? {} : { linkHost: await linkHostOf(workspaceId, hostname, ports) }) };
}

/** What a text's or a file's request sets alike, with `not_before` before the expiry and a claim verifier only beside a link verifier (400 otherwise). */
export function secretSettings(
  request: Pick<CreateSecretRequest, 'salt' | 'expires_in' | 'max_views' | 'not_before' | 'claim_verifier' | 'link_verifier' | 'recipients'>,
  ports: Pick<SecretPorts, 'clock'>,
): NewSecretFields {
  // The cut-over of issue 26: a claim verifier alone let five made-up tokens lock a secret by
  // its id (which leaks wherever paths are logged); every client sends both since issue 11.
  if (request.claim_verifier !== undefined && request.link_verifier === undefined) {
    throw new HttpError(400, 'invalid_request', 'A secret with a claim_verifier needs its link_verifier too (docs/envelope.md, "Link token").', {
      errors: [{ path: 'body.link_verifier', message: 'required with claim_verifier' }],
    });
  }
  const notBefore = request.not_before === undefined ? undefined : Date.parse(request.not_before);
  if (notBefore !== undefined && notBefore >= ports.clock.now() + request.expires_in * 1000) {
    throw new HttpError(400, 'invalid_request', 'not_before must be before the secret expires.', {
      errors: [{ path: 'body.not_before', message: 'must be before the expiry' }],
    });
  }
  return {
    salt: request.salt,
    expiresInSeconds: request.expires_in,
    maxViews: request.max_views,
    ...(notBefore === undefined ? {} : { notBefore }),
    ...(request.claim_verifier === undefined ? {} : { claimVerifier: request.claim_verifier }),
    ...(request.link_verifier === undefined ? {} : { linkVerifier: request.link_verifier }),
    ...(request.recipients ? { recipients: request.recipients } : {}),
  };
}

/** Stores a new secret (a text's envelope checked, if in our format) with its `secret.created` event. */
export async function storeSecret(input: NewSecret, ownerId: string | null, ports: SecretPorts): Promise<CreatedSecret> {
  const now = ports.clock.now();
  const id = newSecretId();
  const file = 'upload' in input ? { upload: await input.upload(id), sizeBytes: input.sizeBytes } : null;
  const envelope = 'envelope' in input ? input.envelope : undefined;
  const envelopeFormat = 'envelope' in input ? (input.envelopeFormat ? input.envelopeFormat.checked : checkEnvelope(input.envelope, input.salt)) : undefined;
  const deleteToken = newDeleteToken();
  const recipients = input.recipients?.map(
    (recipient): Recipient => ({
      id: newRecipientId(),
      label: recipient.label ?? null,
      email: recipient.email ?? null,
      restricted: recipient.restricted ?? false,
      state: 'active',
      viewsLeft: input.maxViews,
    }),
  );
  const secret: Secret = {
    id,
    ...(ownerId === null ? {} : { ownerId }),
    ...(input.workspaceId === undefined ? {} : { workspaceId: input.workspaceId }),
    ...(input.linkHost ? { linkHost: input.linkHost } : {}),
    state: file ? 'pending' : 'active',
    kind: file ? 'file' : 'text',
    ...(envelope ? { envelope } : {}),
    ...(file ? { upload: file.upload } : {}),
    salt: input.salt,
    sizeBytes: file?.sizeBytes ?? envelope!.length,
    maxViews: input.maxViews,
    // With links, each has its own budget: the secret burns when they are all spent or revoked.
    viewsLeft: input.maxViews * (recipients?.length ?? 1),
    ...('response' in input && input.response ? { response: input.response } : {}),
    createdAt: now,
    expiresAt: now + input.expiresInSeconds * 1000,
    ...(input.notBefore === undefined ? {} : { notBefore: input.notBefore }),
    ...(input.claimVerifier === undefined ? {} : { claimVerifier: input.claimVerifier }),
    ...(input.linkVerifier === undefined ? {} : { linkVerifier: input.linkVerifier }),
    ...(recipients ? { recipients } : {}),
    ...(envelopeFormat ? { envelopeFormat } : {}),
    deleteTokenHash: sha256Base64Url(deleteToken),
    refusedProofs: 0,
    deniedEvents: 0,
    emitted: [{ id: newEventId(), type: 'secret.created', at: now }],
  };
  await ports.secrets.insert(secret);
  return { secret, deleteToken };
}

/**
 * The envelope is the client's business, but one in our own format is checked as strictly as
 * a client would (version, reserved bits, salt, lengths) before it is stored; its public
 * parameters are kept for the reveal page. Other formats are stored as they are.
 */
export function checkEnvelope(envelope: Uint8Array, salt: string): Secret['envelopeFormat'] {
  if (!startsWithMagic(envelope)) return undefined;
  try {
    const header = parseHeader(envelope);
    if (header.kind !== 'text') throw new EnvelopeError('malformed', 'a file envelope goes through /v1/files');
    if (Buffer.from(header.salt).toString('base64url') !== salt) throw new EnvelopeError('salt_mismatch');
    chunkSpans(envelope.length - header.length, header.chunkLog2);
    return { passphrase: header.passphrase, kdfIterations: header.iterations };
  } catch (error) {
    if (!(error instanceof EnvelopeError)) throw error;
    throw new HttpError(400, 'invalid_request', 'The envelope is not a valid envelope v1.', {
      errors: [{ path: 'body.envelope', message: `${error.code}: ${error.message}` }],
    });
  }
}
