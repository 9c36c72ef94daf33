import { sha256Base64Url } from '../../ids.ts';
import { planIncludes } from '../plans.ts';
import { Forbidden, Unauthenticated } from '../refusals.ts';
import { workspaceInUse, type Workspace } from '../workspaces/model.ts';
import type { WorkspaceStore } from '../workspaces/ports.ts';

/** Where a directory key's hash leads: the workspace it belongs to (issue 17 writes it, with the SSO directory). */
export interface DirectoryKeyStore {
  workspaceOf(keyHash: string): Promise<string | null>;
}

export interface DirectoryKeyPorts {
  directoryKeys: DirectoryKeyStore;
  workspaces: Pick<WorkspaceStore, 'get'>;
}

/** `Bearer` in any case (RFC 7235 §2.1), then the key. Okta's probe sends `non-token`, with no scheme. */
const bearer = /^bearer[ \t]+([\x21-\x7e]+)[ \t]*$/i;
/** What newDirectoryKey makes: `hlscim_` and 32 random bytes in base64url. */
const keyShape = /^hlscim_[A-Za-z0-9_-]{43}$/;

const refused = (detail: string) => new Unauthenticated(detail, { challenge: 'directory' });

/**
 * The workspace a SCIM request acts on (interface §5.6): the one whose directory key the
 * `authorization` header carries. Checked before anything of the request is read: a missing,
 * malformed, wrong or rotated key is 401 (only a well-formed key is looked up, by its SHA-256,
 * the only form stored); a workspace without the Team tier is 403, whatever its key.
 */
export async function directoryWorkspace(authorization: string | undefined, ports: DirectoryKeyPorts): Promise<Workspace> {
  if (authorization === undefined) throw refused('Send the workspace’s directory key as `Authorization: Bearer <key>`.');
  const key = bearer.exec(authorization)?.[1];
  if (key === undefined || !keyShape.test(key))
    throw refused('The authorization header does not carry a directory key: send `Authorization: Bearer hlscim_…`.');
  const workspaceId = await ports.directoryKeys.workspaceOf(sha256Base64Url(key));
  // A rotated key's item is deleted in the rotation's transaction: it stops at once.
  const workspace = workspaceId === null ? null : workspaceInUse(await ports.workspaces.get(workspaceId));
  if (!workspace) throw refused('The directory key is not valid: it may have been rotated.');
  if (!planIncludes(workspace.plan, 'scim')) {
    throw new Forbidden(`Directory provisioning comes with the Team plan; this workspace is on ${workspace.plan}.`);
  }
  return workspace;
}
