import type { SecretSealer } from '../webhooks/ports.ts';
import type { WorkspaceStore } from '../workspaces/ports.ts';
import type { SsoStore } from './directory.ts';
import type { SsoClient, SsoClients } from './signInPorts.ts';

/**
 * Workspaces' OIDC clients as sign-in uses them: the directory speaking for an address's domain,
 * with a client saved, its secret opened for the workspace (KMS context `sso_workspace`). A
 * directory without a client, or a workspace deleted, signs nobody in.
 */
export function ssoClients(ports: {
  sso: Pick<SsoStore, 'directory' | 'speakingFor'>;
  workspaces: Pick<WorkspaceStore, 'get'>;
  sealer: SecretSealer;
}): SsoClients {
  async function forWorkspace(workspaceId: string): Promise<SsoClient | null> {
    const directory = await ports.sso.directory(workspaceId);
    if (!directory?.client) return null;
    const workspace = await ports.workspaces.get(workspaceId);
    if (!workspace) return null;
    return {
      workspaceId,
      workspaceName: workspace.name,
      issuer: directory.issuer,
      emailDomain: directory.emailDomain,
      clientId: directory.client.id,
      clientSecret: await ports.sealer.open(directory.client.sealedSecret, workspaceId),
      jit: directory.jit === true,
    };
  }
  return {
    forWorkspace,
    async forEmailDomain(emailDomain) {
      const speaking = await ports.sso.speakingFor(emailDomain);
      return speaking ? forWorkspace(speaking.workspaceId) : null;
    },
  };
}
