import { HttpError } from '../../http/errors.ts';
import { constantTimeEqual, newEventId, sha256Base64Url } from '../../ids.ts';
import { secretLimits } from '../../limits.ts';
import { endSecret } from './end.ts';
import type { Secret, StoredEvent } from './model.ts';
import type { SecretPorts } from './ports.ts';
import { digestPattern, secretIdPattern } from './rules.ts';

/** Denials recorded per secret; refusals beyond it are still refused, just not logged again. */
const deniedEventCap = 20;

export interface ClaimedSecret {
  secret: Secret;
  envelope: Uint8Array;
  /** Why the burn after the last view did not land (it is finished later); for the log. */
  deferredBurn?: Error;
}

/** What a claim presents, both derived from the link (docs/envelope.md); either may be missing. */
export interface ClaimProof {
  claimToken: string | null;
  /** Proves the link was held: only then does a refused claim token count towards the lock. */
  linkToken: string | null;
}

/**
 * Consumes exactly one view and returns the payload. The happy path is one conditional
 * update; the item returned on refusal tells which rule refused, without a second read.
 */
export async function claimSecret(id: string, proof: ClaimProof, ports: SecretPorts): Promise<ClaimedSecret> {
  if (!secretIdPattern.test(id)) throw new HttpError(404, 'not_found', 'No secret has this id.');
  const proofHash = digestOf(proof.claimToken);
  const now = ports.clock.now();
  const result = await ports.secrets.takeView(id, {
    now,
    proofHash,
    event: { id: newEventId(), type: 'secret.viewed', at: now },
  });
  if (result.taken) {
    const { secret } = result;
    if (!secret.envelope) throw new Error(`active secret ${id} has no envelope`);
    // The view is taken: from here nothing may fail the claim, or its payload would be lost.
    // A burn that does not land is finished by the next read or claim, or the expiry sweep.
    const deferredBurn = secret.viewsLeft === 0 ? await endSecret(id, 'burned', ports).then(() => undefined, (error: Error) => error) : undefined;
    return { secret, envelope: secret.envelope, ...(deferredBurn ? { deferredBurn } : {}) };
  }
  throw await refusal(result.current, proofHash, digestOf(proof.linkToken), now, ports);
}

/**
 * Verifiers are SHA-256 of the 32 token bytes (docs/envelope.md). A token that is not 32 bytes
 * of canonical base64url (empty, malformed, of another length) is no proof at all: it is
 * answered as a missing one and never counts towards a lock.
 */
export function digestOf(token: string | null): string | null {
  return token !== null && digestPattern.test(token) ? sha256Base64Url(Buffer.from(token, 'base64url')) : null;
}

/** True when the secret keeps a link verifier and the link token presented matches it (constant time). */
export function provesLink(secret: Pick<Secret, 'linkVerifier'>, linkHash: string | null): boolean {
  return secret.linkVerifier !== undefined && linkHash !== null && constantTimeEqual(Buffer.from(linkHash), Buffer.from(secret.linkVerifier));
}

/** Works out why a claim was refused, records what the refusal changes, and says so. */
async function refusal(current: Secret | null, proofHash: string | null, linkHash: string | null, now: number, ports: SecretPorts): Promise<HttpError> {
  if (!current) return new HttpError(404, 'not_found', 'No secret has this id.');
  // Judged at the instant the condition was: a later clock reading could see a rule pass
  // that the write saw fail (not_before just passing).
  const denial = (): StoredEvent => ({ id: newEventId(), type: 'secret.denied', at: now });
  // The refused item tells how many denials are recorded: at the cap, skip the write.
  const deny = async () => {
    if (current.deniedEvents < deniedEventCap) await ports.secrets.recordDenial(current.id, denial(), deniedEventCap);
  };

  if (current.state === 'locked') {
    await deny();
    return locked();
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
  if (current.notBefore !== undefined && now < current.notBefore) {
    await deny();
    const waitSeconds = Math.ceil((current.notBefore - now) / 1000);
    return new HttpError(425, 'too_early', 'This secret cannot be opened yet.', {
      headers: { 'retry-after': String(waitSeconds) },
      members: { not_before: new Date(current.notBefore).toISOString() },
    });
  }
  if (current.claimVerifier !== undefined) {
    if (proofHash === null) {
      await deny();
      return new HttpError(403, 'proof_required', 'This secret needs the claim token derived from its link.');
    }
    if (!constantTimeEqual(Buffer.from(proofHash), Buffer.from(current.claimVerifier))) {
      // Only a holder of the link counts towards the lock (a wrong passphrase does): an id
      // alone, which leaks wherever paths are logged, must not be able to destroy a secret.
      // Secrets from before link verifiers keep the old rule: any refused token counts.
      if (current.linkVerifier !== undefined && !provesLink(current, linkHash)) {
        await deny();
        return new HttpError(403, 'proof_refused', 'The claim token does not match; check the link or the passphrase.', {
          members: { attempts_left: secretLimits.refusedProofsBeforeLock - current.refusedProofs },
        });
      }
      const refused = await ports.secrets.refuseProof(current.id, denial());
      if (refused >= secretLimits.refusedProofsBeforeLock) {
        if (await endSecret(current.id, 'locked', ports)) return locked();
        // Something else ended it first (a burn, a revoke, expiry): say what.
        const ended = await ports.secrets.get(current.id);
        return ended?.state === 'locked' ? locked() : gone(ended?.state ?? 'burned');
      }
      return new HttpError(403, 'proof_refused', 'The claim token does not match; check the link or the passphrase.', {
        members: { attempts_left: secretLimits.refusedProofsBeforeLock - refused },
      });
    }
  }
  // The refused item is the one the condition saw, so one of the rules above must fail on it.
  throw new Error(`claim of ${current.id} refused with every rule holding`);
}

const locked = () => new HttpError(423, 'locked', 'This secret is locked after too many refused attempts.');

const gone = (state: string) =>
  new HttpError(410, 'gone', `This secret is no longer available (${state}).`, { members: { state } });
