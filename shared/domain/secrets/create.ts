import { newDeleteToken, newEventId, newRecipientId, newSecretId, sha256Base64Url } from '../../ids.ts';
import { chunkSpans, EnvelopeError, parseHeader, startsWithMagic } from '../../envelope/index.ts';
import { Invalid } from '../refusals.ts';
import type { FileUpload, Recipient, Secret } from './model.ts';
import type { SecretPorts } from './ports.ts';
import { assertSendInWorkspace, type WorkspaceMembershipPorts } from '../workspaces/membership.ts';
import { linkHostOf, type LinkHost, type LinkHostPorts } from '../domains/linkHosts.ts';

export interface CreatedSecret {
  secret: Secret;
  /** Returned once; only its hash is stored. */
  deleteToken: string;
}

/** A per-recipient link asked for with a secret: a label, an address, and whether only that address opens it. */
export interface NewRecipient {
  label?: string | undefined;
  email?: string | undefined;
  restricted?: boolean | undefined;
}

/** What a text's and a file's sender set alike: the envelope's salt, the secret's limits and proofs, its links. */
export interface SecretSettings {
  salt: string;
  expiresInSeconds: number;
  maxViews: number;
  /** Epoch milliseconds: no claim before it. */
  notBefore?: number | undefined;
  claimVerifier?: string | undefined;
  linkVerifier?: string | undefined;
  recipients?: readonly NewRecipient[] | undefined;
  /** A private label sealed in the sender's browser (decoded): kept as it is. */
  labelEnvelope?: Uint8Array | undefined;
}

/** Where a secret or file is sent: inside a workspace, and on one of its verified hostnames. */
export interface SendingPlace {
  workspaceId?: string | undefined;
  hostname?: string | undefined;
}

/** A text secret as its sender asks for it: the envelope (decoded), its settings, and where it is sent. */
export interface NewTextSecret extends SecretSettings, SendingPlace {
  envelope: Uint8Array;
}

/**
 * The names the sender's fields travel by, so a field refused is named as it was sent (a
 * problem's `errors[].path`).
 */
const sentAs = {
  notBefore: 'not_before',
  linkVerifier: 'link_verifier',
} as const;

/** A secret to store, whatever route it came from: its envelope decoded (or, a file's, to come), its limits chosen. */
export type SecretToStore = NewSecretFields & (NewText | NewFile);

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

export interface NewSecretFields extends SecretSettings {
  /** Sent inside this workspace: the caller is a member and its policy allowed it. */
  workspaceId?: string;
  /** On this workspace's hostname (its verified claim, `linkHostOf`). */
  linkHost?: LinkHost;
}

/**
 * A text secret. With a `workspaceId`, the caller must be a member and the secret satisfy the
 * workspace's policy (refused otherwise), its passphrase told by the envelope's header: an envelope
 * of another format has no flag to tell it, so a policy requiring a passphrase refuses it. With
 * a `hostname` too, its links are on that hostname of the workspace's (invalid if not verified).
 */
export async function createSecret(
  input: NewTextSecret,
  ownerId: string | null,
  ports: SecretPorts & WorkspaceMembershipPorts & LinkHostPorts,
): Promise<CreatedSecret> {
  const { envelope } = input;
  const envelopeFormat = checkEnvelope(envelope, input.salt);
  const settings = secretSettings(input, ports);
  let inWorkspace: Pick<NewSecretFields, 'workspaceId' | 'linkHost'> = {};
  if (input.workspaceId !== undefined) {
    const { expiresInSeconds: expiresIn, maxViews, recipients = [] } = input;
    await assertSendInWorkspace(
      input.workspaceId,
      ownerId,
      { kind: 'text', expiresIn, maxViews, passphrase: envelopeFormat?.passphrase ?? false, recipients },
      ports,
    );
    inWorkspace = await sentIn(input.workspaceId, input.hostname, ports);
  }
  return storeSecret({ envelope, envelopeFormat: { checked: envelopeFormat }, ...settings, ...inWorkspace }, ownerId, ports);
}

/** The workspace a secret or file is sent in (the caller's membership already checked), and its hostname the links are on, if one is asked for. */
export async function sentIn(
  workspaceId: string,
  hostname: string | undefined,
  ports: LinkHostPorts,
): Promise<Pick<NewSecretFields, 'workspaceId' | 'linkHost'>> {
  return { workspaceId, ...(hostname === undefined ? {} : { linkHost: await linkHostOf(workspaceId, hostname, ports) }) };
}

/** What a text's or a file's sender sets alike, with `notBefore` before the expiry and a claim verifier only beside a link verifier (invalid otherwise). */
export function secretSettings(input: SecretSettings, ports: Pick<SecretPorts, 'clock'>): SecretSettings {
  // The cut-over of issue 26: a claim verifier alone let five made-up tokens lock a secret by
  // its id (which leaks wherever paths are logged); every client sends both since issue 11.
  if (input.claimVerifier !== undefined && input.linkVerifier === undefined) {
    throw new Invalid('A secret with a claim_verifier needs its link_verifier too (docs/envelope.md, "Link token").', [
      { field: sentAs.linkVerifier, message: 'required with claim_verifier' },
    ]);
  }
  const { notBefore } = input;
  if (notBefore !== undefined && notBefore >= ports.clock.now() + input.expiresInSeconds * 1000) {
    throw new Invalid('not_before must be before the secret expires.', [{ field: sentAs.notBefore, message: 'must be before the expiry' }]);
  }
  return {
    salt: input.salt,
    expiresInSeconds: input.expiresInSeconds,
    maxViews: input.maxViews,
    ...(notBefore === undefined ? {} : { notBefore }),
    ...(input.claimVerifier === undefined ? {} : { claimVerifier: input.claimVerifier }),
    ...(input.linkVerifier === undefined ? {} : { linkVerifier: input.linkVerifier }),
    ...(input.recipients ? { recipients: input.recipients } : {}),
    ...(input.labelEnvelope === undefined ? {} : { labelEnvelope: input.labelEnvelope }),
  };
}

/** Stores a new secret (a text's envelope checked, if in our format) with its `secret.created` event. */
export async function storeSecret(input: SecretToStore, ownerId: string | null, ports: SecretPorts): Promise<CreatedSecret> {
  const now = ports.clock.now();
  const id = newSecretId();
  const file = 'upload' in input ? { upload: await input.upload(id), sizeBytes: input.sizeBytes } : null;
  const envelope = 'envelope' in input ? input.envelope : undefined;
  const envelopeFormat =
    'envelope' in input ? (input.envelopeFormat ? input.envelopeFormat.checked : checkEnvelope(input.envelope, input.salt)) : undefined;
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
    ...(input.labelEnvelope === undefined ? {} : { labelEnvelope: input.labelEnvelope }),
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
    throw new Invalid('The envelope is not a valid envelope v1.', [{ field: 'envelope', message: `${error.code}: ${error.message}` }]);
  }
}
