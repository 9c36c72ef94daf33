import { discoverSso, setSso } from '../../shared/domain/sso/directory.ts';
import { requireSession } from '../../shared/http/auth.ts';
import type { Operations } from '../../shared/http/group.ts';
import type { OperationOf } from '../../shared/routes.ts';
import type { WorkspacesDeps } from '../workspaces.ts';
import { ssoSettings } from './inputs.ts';

type SsoOperation = Extract<OperationOf<'workspaces'>, 'setSso' | 'discoverSso'>;

/** A workspace's SSO directory (issue 17; its OIDC client and enforcement, issue 29) and its discovery. The client secret is never answered. */
export const ssoOperations: Pick<Operations<'workspaces', WorkspacesDeps>, SsoOperation> = {
  async setSso(request, deps) {
    const { directory, directoryKey } = await setSso(
      request.params.id ?? '',
      requireSession(request.principal).userId,
      ssoSettings(request.body),
      deps,
    );
    return {
      status: 200,
      body: {
        issuer: directory.issuer,
        email_domain: directory.emailDomain,
        client_id: directory.client?.id ?? null,
        client_secret_set: directory.client !== null,
        enforce: directory.enforce,
        sso_jit: directory.jit === true,
        scim: { base_url: `${deps.config.WEB_ORIGIN}/scim/v2`, ...(directoryKey ? { directory_key: directoryKey } : {}) },
      },
    };
  },

  async discoverSso(request, deps) {
    return { status: 200, body: await discoverSso(request.query.email, deps) };
  },
};
