import { afterAll, beforeAll, expect, it } from 'vitest';
import { startLocalDns, type LocalDns } from '../../local/dns.ts';
import type { Runtime } from '../../local/runtime.ts';
import { apiClient, startTestRuntime } from '../support/runtime.ts';
import { teamWorkspace } from '../support/workspaces.ts';

/**
 * `DNS_SERVERS` set for `npm start` is the operator's: custom domains' TXT records are looked up
 * there, not at the runtime's own DNS server (which stays the default when it is unset).
 */

let runtime: Runtime;
let operators: LocalDns;
let api: ReturnType<typeof apiClient>;
beforeAll(async () => {
  // The operator's DNS server on loopback, standing for a resolver of theirs.
  operators = await startLocalDns();
  runtime = await startTestRuntime({ env: { DNS_SERVERS: operators.server }, dnsLookup: { timeoutMs: 100, tries: 1, deadlineMs: 300 } });
  api = apiClient(runtime);
});
afterAll(async () => {
  await runtime?.stop();
  await operators?.stop();
});

it('verifies a domain through the DNS server DNS_SERVERS names, and never through the local one', async () => {
  expect(runtime.config.DNS_SERVERS).toEqual([operators.server]);
  const workspace = await teamWorkspace(runtime);
  const claimed = await api.post(
    '/v1/domains',
    { workspace_id: workspace.id, hostname: `dns-setting-${process.pid}.example` },
    workspace.owner.auth,
  );
  expect(claimed.status).toBe(201);
  const { name, value } = claimed.body.verification;
  // Published at the local server only: the operator's does not hold it, so it stays pending.
  runtime.dns.setRecords(name, [{ type: 'TXT', data: value }]);
  const pending = await api.post(`/v1/domains/${claimed.body.id}/verify`, undefined, workspace.owner.auth);
  expect(pending.body.state).toBe('pending');
  operators.setRecords(name, [{ type: 'TXT', data: value }]);
  const verified = await api.post(`/v1/domains/${claimed.body.id}/verify`, undefined, workspace.owner.auth);
  expect(verified.body.state).toBe('verified');
});
