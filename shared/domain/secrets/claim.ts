import { constantTimeEqual, newEventId } from '../../ids.ts';
import { secretLimits } from '../../limits.ts';
import { servedOn } from '../domains/linkHosts.ts';
import { Forbidden, Gone, Locked, NotFound, Refusal, TooEarly, Unauthenticated } from '../refusals.ts';
import type { HostClaim } from '../domains/model.ts';
import { endSecret } from './end.ts';
import { gateEmailHash, type GateStore } from './gate.ts';
import { recipientEmailHash, type Recipient, type Secret, type StoredEvent, type ViewContext } from './model.ts';
import type { SecretPorts } from './ports.ts';
import { digestOf, provesLink } from './proof.ts';
import { recipientIdPattern, secretIdPattern } from './rules.ts';

/** Denials recorded per secret; refusals beyond it are still refused, just not logged again. */
const deniedEventCap = 20;
/** When a file still uploading is worth asking about again. */
const uploadRetrySeconds = 5;

export interface ClaimedSecret {
  secret: Secret;
  /** A text secret's envelope; a file's is an object, which the claim answers a download URL of. */
  envelope?: Uint8Array;
  /** The link claimed through, as it is after this view. */
  recipient?: Recipient;
  /** Why the burn after the last view did not land (it is finished later); for the log. */
  deferredBurn?: Error;
}

/** What a claim presents: proofs derived from the link (docs/envelope.md), and the link it comes through. */
export interface ClaimProof {
  claimToken: string | null;
  /** Proves the link was held: only then does a refused claim token count towards the lock. */
  linkToken: string | null;
  /** The per-recipient link claimed through (required once a secret has links). */
  recipientId: string | null;
  /** A restricted link's gate session. */
  gateToken: string | null;
}

export type ClaimPorts = SecretPorts & { gates: GateStore };

/**
 * Consumes exactly one view and returns the payload. The happy path is one conditional
 * update (through a link: the link's budget and the secret's together, and only for the
 * address a gate session proved; on a workspace's hostname, only a secret made on it); the
 * item returned on refusal tells which rule refused, without a second read. The view's event
 * carries where it came from, for its receipt.
 */
export async function claimSecret(
  id: string,
  proof: ClaimProof,
  view: ViewContext,
  hostClaim: HostClaim | null,
  ports: ClaimPorts,
): Promise<ClaimedSecret> {
  if (!secretIdPattern.test(id)) throw new NotFound('No secret has this id.');
  const { recipientId } = proof;
  if (recipientId !== null && !recipientIdPattern.test(recipientId)) throw noSuchLink();
  // Only a restricted link's claim carries a gate token: the one read it costs is theirs.
  const gateEmail = await gateEmailHash(id, recipientId, proof.gateToken, ports);
  const proofHash = digestOf(proof.claimToken);
  const now = ports.clock.now();
  const take = (partsRead: boolean) =>
    ports.secrets.takeView(id, {
      now,
      proofHash,
      event: { id: newEventId(), type: 'secret.viewed', at: now, view, ...(recipientId === null ? {} : { recipientId }) },
      ...(recipientId === null ? {} : { recipientId }),
      ...(gateEmail === undefined ? {} : { gateEmailHash: gateEmail }),
      ...(partsRead ? { partsRead } : {}),
      ...(hostClaim ? { domainId: hostClaim.domainId } : {}),
    });
  let result = await take(false);
  // An envelope kept in parts (curl mode's biggest) is read before its view is taken, so the
  // claim cannot fail after it: only such secrets pay for the refused first try.
  let envelope: Uint8Array | undefined;
  const refusedItem = result.taken ? null : result.current;
  if (refusedItem?.envelopeParts !== undefined && refusedItem.state === 'active') {
    const parts = refusedItem.envelopeParts;
    envelope = await ports.secrets.envelopeOf(id, parts);
    result = await take(true);
  }
  if (result.taken) {
    const { secret } = result;
    envelope ??= secret.envelope;
    if (!envelope && secret.kind === 'text') throw new Error(`active secret ${id} has no envelope`);
    // The view is taken: from here nothing may fail the claim, or its payload would be lost.
    // A burn that does not land is finished by the next read or claim, or the expiry sweep.
    const deferredBurn =
      secret.viewsLeft === 0
        ? await endSecret(id, 'burned', ports).then(
            () => undefined,
            (error: Error) => error,
          )
        : undefined;
    const recipient = secret.recipients?.find((link) => link.id === recipientId);
    return { secret, ...(envelope ? { envelope } : {}), ...(recipient ? { recipient } : {}), ...(deferredBurn ? { deferredBurn } : {}) };
  }
  throw await refusal(result.current, { proofHash, linkHash: digestOf(proof.linkToken), recipientId, gateEmail }, hostClaim, now, ports);
}

interface Presented {
  proofHash: string | null;
  linkHash: string | null;
  recipientId: string | null;
  gateEmail: string | undefined;
}

/** Works out why a claim was refused, records what the refusal changes, and says so. */
async function refusal(
  current: Secret | null,
  presented: Presented,
  hostClaim: HostClaim | null,
  now: number,
  ports: SecretPorts,
): Promise<Refusal> {
  // A request link's file response has no view to take (the claim's condition): it is unknown
  // here; so is a secret not made on the workspace's hostname the claim arrived on, untouched.
  if (!current || current.response || !servedOn(current, hostClaim)) return new NotFound('No secret has this id.');
  // Judged at the instant the condition was: a later clock reading could see a rule pass
  // that the write saw fail (not_before just passing).
  const denial = (): StoredEvent => ({
    id: newEventId(),
    type: 'secret.denied',
    at: now,
    ...(presented.recipientId === null ? {} : { recipientId: presented.recipientId }),
  });
  // The refused item tells how many denials are recorded: at the cap, skip the write.
  const deny = async () => {
    if (current.deniedEvents < deniedEventCap) await ports.secrets.recordDenial(current.id, denial(), deniedEventCap);
  };

  if (current.state === 'locked') {
    await deny();
    return locked();
  }
  if (current.state === 'pending') {
    await deny();
    return new TooEarly('This file is still being uploaded; try again once the upload is complete.', uploadRetrySeconds, {
      code: 'upload_pending',
    });
  }
  if (current.state !== 'active') {
    await deny();
    return gone(current.state);
  }
  if (current.viewsLeft <= 0) {
    // The last view was taken but its burn did not finish; finish it now.
    await endSecret(current.id, 'burned', ports);
    return gone('burned');
  }
  if (current.expiresAt <= now) {
    await endSecret(current.id, 'expired', ports);
    return gone('expired');
  }
  const link = linkRefusal(current, presented.recipientId);
  if (link instanceof Refusal) {
    if (!(link instanceof NotFound)) await deny();
    return link;
  }
  if (current.notBefore !== undefined && now < current.notBefore) {
    await deny();
    const waitSeconds = Math.ceil((current.notBefore - now) / 1000);
    return new TooEarly('This secret cannot be opened yet.', waitSeconds, {
      facts: { not_before: new Date(current.notBefore).toISOString() },
    });
  }
  if (link?.restricted) {
    if (presented.gateEmail === undefined) {
      await deny();
      return new Unauthenticated('This link opens only for the address it was sent to: ask for a code first.', { code: 'gate_required' });
    }
    if (!constantTimeEqual(Buffer.from(presented.gateEmail), Buffer.from(recipientEmailHash(link.email!)))) {
      await deny();
      return new Forbidden('The gate session proves another address than the one this link was sent to.', { code: 'gate_refused' });
    }
  }
  if (current.claimVerifier !== undefined) {
    const refused = await proofRefusal(current, presented, denial, deny, ports);
    if (refused) return refused;
  }
  // The refused item is the one the condition saw, so one of the rules above must fail on it.
  throw new Error(`claim of ${current.id} refused with every rule holding`);
}

/** The link a claim comes through, or why it cannot: none named, unknown, revoked, used up. */
function linkRefusal(current: Secret, recipientId: string | null): Recipient | Refusal | undefined {
  if (!current.recipients) return recipientId === null ? undefined : noSuchLink();
  if (recipientId === null)
    return new Forbidden('This secret opens only through one of its per-recipient links.', { code: 'recipient_required' });
  const link = current.recipients.find((recipient) => recipient.id === recipientId);
  if (!link) return noSuchLink();
  if (link.state === 'revoked') {
    return new Gone('This link was revoked by the sender; other links of the secret may still work.', {
      code: 'recipient_revoked',
      facts: { state: 'revoked' },
    });
  }
  if (link.viewsLeft <= 0) return new Gone('This link was already opened as many times as it allows.', { facts: { state: 'burned' } });
  return link;
}

async function proofRefusal(
  current: Secret,
  presented: Presented,
  denial: () => StoredEvent,
  deny: () => Promise<void>,
  ports: SecretPorts,
): Promise<Refusal | null> {
  if (presented.proofHash === null) {
    await deny();
    return new Forbidden('This secret needs the claim token derived from its link.', { code: 'proof_required' });
  }
  if (constantTimeEqual(Buffer.from(presented.proofHash), Buffer.from(current.claimVerifier!))) return null;
  // Only a holder of the link counts towards the lock (a wrong passphrase does): an id
  // alone, which leaks wherever paths are logged, must not be able to destroy a secret.
  // Secrets stored with a claim verifier and no link verifier (none is made since the cut-over
  // of issue 26: secretSettings) keep the old rule until they expire: any refused token counts.
  if (current.linkVerifier !== undefined && !provesLink(current, presented.linkHash)) {
    await deny();
    return proofRefused(secretLimits.refusedProofsBeforeLock - current.refusedProofs);
  }
  const refused = await ports.secrets.refuseProof(current.id, denial());
  if (refused >= secretLimits.refusedProofsBeforeLock) {
    if (await endSecret(current.id, 'locked', ports)) return locked();
    // Something else ended it first (a burn, a revoke, expiry): say what.
    const ended = await ports.secrets.get(current.id);
    return ended?.state === 'locked' ? locked() : gone(ended?.state ?? 'burned');
  }
  return proofRefused(secretLimits.refusedProofsBeforeLock - refused);
}

const proofRefused = (attemptsLeft: number) =>
  new Forbidden('The claim token does not match; check the link or the passphrase.', {
    code: 'proof_refused',
    facts: { attempts_left: attemptsLeft },
  });

const noSuchLink = () => new NotFound('This secret has no such link.');

const locked = () => new Locked('This secret is locked after too many refused attempts.');

const gone = (state: string) => new Gone(`This secret is no longer available (${state}).`, { facts: { state } });
