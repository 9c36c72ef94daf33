import { expect } from 'vitest';
import type { LocalOidc } from '../../local/oidc/provider.ts';
import type { Runtime } from '../../local/runtime.ts';
import { apiClient } from './runtime.ts';
import { send } from './workspaces.ts';

type SsoRuntime = Pick<Runtime, 'url' | 'dns' | 'config'>;
interface Owned {
  id: string;
  owner: { auth: Record<string, string> };
}

/** Claims `hostname` for the workspace and verifies it through the local DNS, as its owner. */
export async function verifiedDomain(runtime: SsoRuntime, workspace: Owned, hostname: string): Promise<void> {
  const api = apiClient(runtime);
  const claimed = await api.post('/v1/domains', { workspace_id: workspace.id, hostname }, workspace.owner.auth);
  expect(claimed.status, JSON.stringify(claimed.body)).toBe(201);
  runtime.dns.setRecords(claimed.body.verification.name, [{ type: 'TXT', data: claimed.body.verification.value }]);
  expect((await api.post(`/v1/domains/${claimed.body.id}/verify`, undefined, workspace.owner.auth)).body.state).toBe('verified');
}

export interface SsoDirectorySettings {
  /** The directory's email domain: claimed and verified first unless `verified`. */
  domain: string;
  verified?: boolean;
  /** The provider the client is registered at (the runtime's own unless named). */
  idp?: Pick<LocalOidc, 'issuer' | 'registerClient'>;
  /** The issuer the settings name, when not the provider's (one that does not answer). */
  issuer?: string;
  clientId: string;
  clientSecret: string;
  enforce?: boolean;
  sso_jit?: boolean;
}

/**
 * A workspace's single sign-on as its owner sets it up: the domain verified, the OIDC client
 * registered at the provider for the service's callback, and the settings saved (200). Their
 * reply: its `scim.directory_key` is what SCIM provisions with.
 */
export async function ssoDirectory(
  runtime: SsoRuntime & Partial<Pick<Runtime, 'oidc'>>,
  workspace: Owned,
  settings: SsoDirectorySettings,
): Promise<{ scim: { directory_key: string }; [field: string]: unknown }> {
  if (!settings.verified) await verifiedDomain(runtime, workspace, settings.domain);
  // A named issuer is one no client is registered at; `runtime.oidc` throws where the runtime runs none.
  const idp = settings.issuer === undefined ? (settings.idp ?? runtime.oidc) : undefined;
  if (idp)
    await idp.registerClient({
      client_id: settings.clientId,
      client_secret: settings.clientSecret,
      redirect_uris: [`${runtime.config.WEB_ORIGIN}/v1/auth/sso/callback`],
    });
  const issuer = settings.issuer ?? idp!.issuer;
  const body = {
    issuer,
    email_domain: settings.domain,
    client_id: settings.clientId,
    client_secret: settings.clientSecret,
    ...(settings.enforce === undefined ? {} : { enforce: settings.enforce }),
    ...(settings.sso_jit === undefined ? {} : { sso_jit: settings.sso_jit }),
  };
  const saved = await send(runtime, 'PUT', `/v1/workspaces/${workspace.id}/sso`, body, workspace.owner.auth);
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  return saved.body;
}
