import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Runtime } from '../../local/runtime.ts';
import { createDocumentClient } from '../../shared/store/client.ts';
import { mailsTo, newEmail, signIn, type SignedIn } from './accounts.ts';
import { apiClient, type Reply } from './runtime.ts';

type WorkspaceRuntime = Pick<Runtime, 'url' | 'outbox' | 'dynamo' | 'config'>;

/** PUT, PATCH and friends with a JSON body (the runtime's client has GET, POST and DELETE). */
export const send = <T = any>(
  runtime: Pick<Runtime, 'url'>,
  method: string,
  path: string,
  json: unknown,
  auth: Record<string, string>,
): Promise<Reply<T>> => apiClient(runtime).call<T>(method, path, { json, headers: auth });

/**
 * What billing will set (the Team subscription's seats, the workspace's plan), written to the
 * table directly until the billing issue wires it: the roster's seats, and the plan.
 */
export async function setWorkspace(
  runtime: WorkspaceRuntime,
  workspaceId: string,
  settings: { seats?: number; plan?: string },
): Promise<void> {
  const db = createDocumentClient({ region: 'local', endpoint: runtime.dynamo.endpoint });
  try {
    if (settings.seats !== undefined) {
      await db.send(
        new UpdateCommand({
          TableName: runtime.config.TABLE_NAME,
          Key: { pk: `WORKSPACE#${workspaceId}`, sk: 'ROSTER' },
          UpdateExpression: 'SET seats = :seats',
          ExpressionAttributeValues: { ':seats': settings.seats },
        }),
      );
    }
    if (settings.plan !== undefined) {
      await db.send(
        new UpdateCommand({
          TableName: runtime.config.TABLE_NAME,
          Key: { pk: `WORKSPACE#${workspaceId}`, sk: 'WORKSPACE' },
          UpdateExpression: 'SET #plan = :plan',
          ExpressionAttributeNames: { '#plan': 'plan' },
          ExpressionAttributeValues: { ':plan': settings.plan },
        }),
      );
    }
  } finally {
    db.destroy();
  }
}

/** The token of the newest invitation mailed to `email` (from its `/join#<token>` link). */
export function invitationToken(runtime: Pick<Runtime, 'outbox'>, email: string): string {
  for (const mail of mailsTo(runtime, email)) {
    const token = /\/join#(hli_[A-Za-z0-9_-]+)/.exec(mail.text)?.[1];
    if (token) return token;
  }
  throw new Error(`no invitation was mailed to ${email}`);
}

export interface TeamWorkspace {
  id: string;
  slug: string;
  owner: SignedIn;
}

/** A workspace made over HTTP by a fresh owner, then given a Team plan and `seats` seats. */
export async function teamWorkspace(runtime: WorkspaceRuntime, seats = 10, plan = 'team'): Promise<TeamWorkspace> {
  const owner = await signIn(runtime, newEmail('owner'));
  const made = await apiClient(runtime).post('/v1/workspaces', { name: `Team ${Date.now().toString(36)}` }, owner.auth);
  if (made.status !== 201) throw new Error(`POST /v1/workspaces answered ${made.status}: ${JSON.stringify(made.body)}`);
  await setWorkspace(runtime, made.body.id, { seats, plan });
  return { id: made.body.id, slug: made.body.slug, owner };
}

/** A new account invited by `inviter` with `role`, and joined. */
export async function joinAs(
  runtime: WorkspaceRuntime,
  workspace: Pick<TeamWorkspace, 'id'>,
  inviter: Pick<SignedIn, 'auth'>,
  role: 'admin' | 'member',
): Promise<SignedIn> {
  const email = newEmail(role);
  const api = apiClient(runtime);
  const invited = await api.post(`/v1/workspaces/${workspace.id}/invitations`, { email, role }, inviter.auth);
  if (invited.status !== 201) throw new Error(`invitation answered ${invited.status}: ${JSON.stringify(invited.body)}`);
  const person = await signIn(runtime, email);
  const accepted = await api.post('/v1/workspaces/invitations/accept', { token: invitationToken(runtime, email) }, person.auth);
  if (accepted.status !== 200) throw new Error(`accept answered ${accepted.status}: ${JSON.stringify(accepted.body)}`);
  return person;
}
