import type { Config } from '../config.ts';
import { checkHost, type HostDirectory } from '../domain/domains/hosts.ts';
import { NotFound } from '../domain/refusals.ts';
import { directoryWorkspace, type DirectoryKeyPorts } from '../domain/scim/directoryKey.ts';
import type { RequestGuard } from './group.ts';
import { viewerHost } from './viewerHost.ts';

export interface DirectoryGuardPorts extends DirectoryKeyPorts {
  config: Pick<Config, 'ORIGIN_VERIFY' | 'HUSHLINK_MODE' | 'WEB_ORIGIN'>;
  hosts: HostDirectory;
}

/**
 * The steps before a SCIM operation: the host (rule 5, as for every API function), then, on a
 * `directory` route, the directory key, before anything else of the request is read (its body
 * is parsed after). The routes are not rate limited: a key is 256 random bits, and a directory
 * provisions in bursts (Okta's imports, Entra's initial cycle) it must never be refused.
 */
export function directoryGuard(ports: DirectoryGuardPorts): RequestGuard {
  return async (route, request) => {
    const { config } = ports;
    const local = config.HUSHLINK_MODE === 'local';
    request.hostClaim = await checkHost(viewerHost(request.headers, config.ORIGIN_VERIFY, local), config.WEB_ORIGIN, local, ports.hosts);
    if (route.credential === 'public') return;
    if (route.credential !== 'directory' || route.rate !== null)
      throw new Error(`${route.method} ${route.path} needs credentials or limits this function was not wired with`);
    const workspace = await directoryWorkspace(request.headers.authorization, ports);
    // On a workspace's hostname, only its own directory (rule 5: a hostname serves its workspace alone).
    if (request.hostClaim && request.hostClaim.workspaceId !== workspace.id) {
      throw new NotFound('This hostname serves another workspace: send your directory to your own workspace’s address.');
    }
    request.directory = { workspaceId: workspace.id };
  };
}
