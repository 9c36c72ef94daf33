import { normalizeEmail } from '../../shared/domain/accounts/model.ts';
import type { SsoPolicy, SsoRule } from '../../shared/domain/accounts/ports.ts';
import type { Domain } from '../../shared/domain/domains/model.ts';
import type { DirectoryKeyStore } from '../../shared/domain/scim/directoryKey.ts';
import type { SsoDirectory, SsoStore } from '../../shared/domain/sso/directory.ts';
import type { AuditRow } from '../../shared/domain/workspaces/model.ts';
import type { Actor } from '../../shared/domain/workspaces/ports.ts';
import { pair, stored, WorkspaceData } from './workspaceData.ts';

/**
 * SsoStore in memory (shared/store/workspaceSso.ts): the directory, the email domain it speaks
 * for (one workspace's at most) and its directory key's lookup, changed together, over the
 * directory read and while the proving claim is verified.
 */
export class MemorySsoStore implements SsoStore {
  constructor(readonly data: WorkspaceData = new WorkspaceData()) {}

  async directory(workspaceId: string): Promise<SsoDirectory | null> {
    const directory = this.data.ssoDirectories.get(workspaceId);
    return directory ? stored(directory) : null;
  }

  async save(
    directory: SsoDirectory,
    previous: SsoDirectory | null,
    proof: Domain,
    actor: Actor,
    audit: AuditRow,
  ): Promise<'saved' | 'domain_claimed' | 'unverified' | 'refused' | 'stale'> {
    const { data } = this;
    const { workspaceId } = directory;
    const speaking = data.ssoDomains.get(directory.emailDomain);
    if (speaking && speaking.workspaceId !== workspaceId) return 'domain_claimed';
    if (!data.actorHolds(workspaceId, actor)) return 'refused';
    const claim = data.claims.get(pair(proof.workspaceId, proof.hostname));
    if (claim?.domain.id !== proof.id || claim.domain.state !== 'verified') return 'unverified';
    const current = data.ssoDirectories.get(workspaceId);
    if (previous ? current?.keyHash !== previous.keyHash : current !== undefined) return 'stale';
    // The previous domain's claim goes only if it is still this directory's.
    const previousDomain =
      previous && previous.emailDomain !== directory.emailDomain && data.ssoDomains.get(previous.emailDomain)?.workspaceId === workspaceId
        ? previous.emailDomain
        : null;
    const newKey = !previous || previous.keyHash !== directory.keyHash;
    if (newKey && data.scimKeys.has(directory.keyHash)) return 'stale';
    // A put replaces the item: `enforced` is there exactly when this directory enforces.
    data.ssoDomains.set(directory.emailDomain, { workspaceId, issuer: directory.issuer, ...(directory.enforce ? { enforced: true } : {}) });
    data.writeAudit(audit);
    data.ssoDirectories.set(workspaceId, stored(directory));
    if (previousDomain) data.ssoDomains.delete(previousDomain);
    if (newKey) {
      data.scimKeys.set(directory.keyHash, workspaceId);
      // The old key stops with this change.
      if (previous) data.scimKeys.delete(previous.keyHash);
    }
    return 'saved';
  }

  async speakingFor(emailDomain: string): Promise<{ workspaceId: string; issuer: string } | null> {
    const held = this.data.ssoDomains.get(emailDomain);
    return held ? { workspaceId: held.workspaceId, issuer: held.issuer } : null;
  }
}

/** The lookup a SCIM request makes first (shared/store/directoryKeys.ts). */
export class MemoryDirectoryKeys implements DirectoryKeyStore {
  constructor(readonly data: WorkspaceData = new WorkspaceData()) {}

  async workspaceOf(keyHash: string): Promise<string | null> {
    return this.data.scimKeys.get(keyHash) ?? null;
  }
}

/** Sign-in's SSO policy (shared/store/ssoPolicy.ts): an `SSO_DOMAIN#` item with `enforced`, as a directory saved with `enforce` writes it. */
export class MemorySsoPolicy implements SsoPolicy {
  constructor(readonly data: WorkspaceData = new WorkspaceData()) {}

  /** Enforced when the address's domain's directory enforces; an owner of that workspace (by their member's address) breaks the glass. */
  async ruleFor(email: string): Promise<SsoRule> {
    const address = normalizeEmail(email);
    const domain = this.data.ssoDomains.get(address.split('@').at(-1) ?? '');
    if (domain?.enforced !== true) return { enforced: false };
    const owner = [...this.data.members.values()].some(
      (member) => member.workspaceId === domain.workspaceId && member.role === 'owner' && member.email === address,
    );
    return { enforced: true, workspaceId: domain.workspaceId, breakGlass: owner };
  }

  async recordBreakGlass(workspaceId: string, user: { id: string; email: string }, now: number): Promise<void> {
    this.data.writeAudit({
      id: `aud_${now}_${user.id}`,
      workspaceId,
      at: now,
      actor: { userId: user.id, email: user.email, via: 'session' },
      action: 'sso.break_glass',
      target: user.id,
      details: { method: 'emailed_code' },
    });
  }
}
