import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import { newDirectoryKey, sha256Base64Url } from '../../ids.ts';
import type { Domain, DomainStore } from '../domains/model.ts';
import { planIncludes } from '../plans.ts';
import { Conflict, Forbidden, Invalid } from '../refusals.ts';
import type { SecretSealer } from '../webhooks/ports.ts';
import { actorFor, auditRow, authorize, noSuchWorkspace } from '../workspaces/access.ts';
import { workspaceInUse, type AuditRow } from '../workspaces/model.ts';
import { recipientDomain, normalizeDomain } from '../workspaces/policy.ts';
import type { Actor, WorkspacePorts } from '../workspaces/ports.ts';
import { checkClientSettings, clientToSave, type ClientSettings, type OidcClient } from './client.ts';
import { checkIssuerScheme, requireDiscoverable, type IssuerDiscovery } from './issuer.ts';

/**
 * A workspace's single sign-on directory (issue 17, interface §4.7 and §5.6): the OIDC identity
 * provider (`issuer`) its people sign in through, the email domain that directory speaks for,
 * and the directory key its SCIM client provisions with. The directory tells people which
 * identity provider their workspace uses (discovery), and names who provisions its members
 * (issue 18). Issue 29 adds the OIDC client registered at the provider (sign-in through it is
 * the account group's) and `enforce`: the domain's addresses may not sign in with a code.
 */
export interface SsoDirectory {
  workspaceId: string;
  issuer: string;
  emailDomain: string;
  /** SHA-256 of the directory key (`hlscim_…`); the key itself is shown once. */
  keyHash: string;
  keyCreatedAt: number;
  /** The OIDC client at the issuer, its secret sealed; null until one is saved. */
  client: OidcClient | null;
  /** The email domain's addresses sign in through the directory only (its SSO domain is `enforced`). */
  enforce: boolean;
  /** Someone of the domain signing in through the provider who is not a member joins (within free seats, audited). Absent: false. */
  jit?: boolean;
  updatedAt: number;
}

export interface SsoStore {
  directory(workspaceId: string): Promise<SsoDirectory | null>;
  /**
   * Writes the directory over `previous` (the one read; replacing its email domain's claim, which
   * carries `enforced` exactly when the directory enforces, and its key's lookup with it; a domain
   * left behind is released, enforcement and all) while `proof` (the claim proving the domain) is still verified,
   * with the audit row: `domain_claimed` when another workspace's directory speaks for the email
   * domain, `unverified` when the proof was deleted meanwhile, `refused` when the actor's role
   * changed, `stale` when the directory changed since it was read (read again and retry).
   */
  save(
    directory: SsoDirectory,
    previous: SsoDirectory | null,
    proof: Domain,
    actor: Actor,
    audit: AuditRow,
  ): Promise<'saved' | 'domain_claimed' | 'unverified' | 'refused' | 'stale'>;
  /** The directory speaking for an email domain, if any. */
  speakingFor(emailDomain: string): Promise<{ workspaceId: string; issuer: string } | null>;
}

/**
 * A verified claim of `hostname` proves the email domain when it is that name or a name under it:
 * whoever holds a name's DNS holds its subdomains', never the other way round (a subdomain may be
 * delegated to someone else).
 */
export const covers = (hostname: string, emailDomain: string): boolean => emailDomain === hostname || emailDomain.endsWith(`.${hostname}`);

export interface SsoPorts {
  sso: SsoStore;
  domains: Pick<DomainStore, 'list'>;
  workspaces: WorkspacePorts['workspaces'];
  clock: Clock;
  /** `HUSHLINK_MODE` local: an issuer may be http to this machine (the local identity provider). */
  config: Pick<Config, 'WEB_ORIGIN' | 'HUSHLINK_MODE'>;
  /** Reads the issuer's discovery document at save. */
  issuerDiscovery: IssuerDiscovery;
  /** Seals OIDC client secrets for their workspace (KMS context `sso_workspace`). */
  ssoSealer: SecretSealer;
}

/**
 * The directory asked for; a refused field is named as clients name it (`email_domain`,
 * `client_secret`). PUT replaces the settings: no `client_id` is no client, no `enforce` is
 * false; only the client secret, never shown back, is kept by leaving it out (same `client_id`).
 */
export interface SsoSettings extends ClientSettings {
  issuer: string;
  emailDomain: string;
  /** A new directory key (the old one stops at once); the first directory always gets one. */
  rotateDirectoryKey?: boolean | undefined;
}

export interface SsoSaved {
  directory: SsoDirectory;
  /** The new directory key, when one was made (the first PUT, or a rotation): shown this once. */
  directoryKey: string | null;
}

/** `PUT /v1/workspaces/{id}/sso`: owners and admins of a Team workspace. */
export async function setSso(workspaceId: string, userId: string, settings: SsoSettings, ports: SsoPorts): Promise<SsoSaved> {
  const member = await authorize(workspaceId, userId, 'setSso', ports);
  const workspace = workspaceInUse(await ports.workspaces.get(workspaceId));
  if (!workspace) throw noSuchWorkspace();
  if (!planIncludes(workspace.plan, 'sso')) {
    throw new Forbidden('A workspace’s single sign-on comes with the Team plan.', {
      facts: { reason: 'plan', plan: workspace.plan, required: 'team' },
    });
  }
  checkIssuerScheme(settings.issuer, ports.config.HUSHLINK_MODE === 'local');
  const domain = normalizeDomain(settings.emailDomain);
  if ('refused' in domain) throw new Invalid('That is not an email domain.', [{ field: 'email_domain', message: domain.refused }]);
  checkClientSettings(settings);
  const emailDomain = domain.domain;
  const enforce = settings.enforce === true;
  const proof = (await ports.domains.list(workspaceId)).find((claim) => claim.state === 'verified' && covers(claim.hostname, emailDomain));
  const unverified = () =>
    new Conflict(`Verify ${emailDomain} (or a domain above it) as one of this workspace’s domains first.`, {
      facts: { reason: 'domain_unverified' },
    });
  if (!proof) throw unverified();
  // The network last, once every other rule passed: what sign-in will fetch must be there now.
  await requireDiscoverable(settings.issuer, ports.issuerDiscovery);
  const sealedSecret = settings.clientSecret === undefined ? null : await ports.ssoSealer.seal(settings.clientSecret, workspaceId);
  // Two changes at once: the second reads the first's directory and writes over it (a new key
  // made by one is never left behind by the other's rotation).
  for (let attempt = 0; attempt < 3; attempt++) {
    const previous = await ports.sso.directory(workspaceId);
    const now = ports.clock.now();
    const { client, secret } = clientToSave(settings, sealedSecret, previous?.client ?? null);
    const directoryKey = previous === null || settings.rotateDirectoryKey === true ? newDirectoryKey() : null;
    const directory: SsoDirectory = {
      workspaceId,
      issuer: settings.issuer,
      emailDomain,
      keyHash: directoryKey ? sha256Base64Url(directoryKey) : previous!.keyHash,
      keyCreatedAt: directoryKey ? now : previous!.keyCreatedAt,
      client,
      enforce,
      ...(settings.ssoJit === true ? { jit: true } : {}),
      updatedAt: now,
    };
    const key = previous === null ? 'created' : directoryKey ? 'rotated' : 'kept';
    const audit = auditRow(
      member,
      workspaceId,
      'sso.updated',
      workspaceId,
      {
        issuer: settings.issuer,
        email_domain: emailDomain,
        directory_key: key,
        client_id: client?.id ?? null,
        client_secret: secret,
        enforce,
        sso_jit: settings.ssoJit === true,
      },
      now,
    );
    const outcome = await ports.sso.save(directory, previous, proof, actorFor(member, 'setSso'), audit);
    if (outcome === 'stale') continue;
    if (outcome === 'domain_claimed') {
      throw new Conflict(`Another workspace’s directory speaks for ${emailDomain}.`, { facts: { reason: 'domain_claimed' } });
    }
    if (outcome === 'unverified') throw unverified();
    if (outcome === 'refused') throw new Forbidden('Your role changed meanwhile.', { facts: { reason: 'role' } });
    return { directory, directoryKey };
  }
  throw new Conflict('The single sign-on settings kept changing while these were saved: read them again.', {
    facts: { reason: 'changed' },
  });
}

/**
 * `sign_in`: the directory has an OIDC client, so `/v1/auth/sso/start` signs people in through
 * it; `enforced`: its addresses cannot sign in with a code (the sign-in page offers only the provider).
 */
export type Discovery =
  | { sso: false }
  | { sso: true; workspace: { id: string; name: string }; issuer: string; sign_in: boolean; enforced: boolean };

/**
 * `GET /v1/workspaces/sso/discover?email=` (public): the identity provider an address should
 * sign in through, when a workspace's directory speaks for its domain. Nothing else is told:
 * not whether the address has an account, nor anything of a workspace without a directory.
 */
export async function discoverSso(email: string, ports: Pick<SsoPorts, 'sso' | 'workspaces'>): Promise<Discovery> {
  const domain = recipientDomain(email);
  if (domain === null) return { sso: false };
  const speaking = await ports.sso.speakingFor(domain);
  if (!speaking) return { sso: false };
  const [workspace, directory] = await Promise.all([ports.workspaces.get(speaking.workspaceId), ports.sso.directory(speaking.workspaceId)]);
  if (!workspace) return { sso: false };
  return {
    sso: true,
    workspace: { id: workspace.id, name: workspace.name },
    issuer: speaking.issuer,
    sign_in: (directory?.client ?? null) !== null,
    enforced: directory?.enforce === true,
  };
}
