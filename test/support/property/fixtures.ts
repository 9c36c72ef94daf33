import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import type { Runtime } from '../../../local/runtime.ts';
import { routeKey, scopes, type Route, type Scope } from '../../../shared/routes.ts';
import { bearer, createKey, newEmail, signIn, type CreatedKey, type SignedIn } from '../accounts.ts';
import { parsedJson } from '../contractCheck.ts';
import { apiClient, claimPair, textSecretBody } from '../runtime.ts';
import { directoryWorkspace, oktaUser, scimClient } from '../scim/directory.ts';
import { invitationToken, joinAs, send, setWorkspace } from '../workspaces.ts';
import { mutate, type Mutation } from './arbitraries.ts';
import {
  chatCallbackQueries,
  chatCallbackValues,
  chatSubscriptions,
  seedChatSecrets,
  signedCommands,
  slackCommandHeaders,
  type MintedBody,
  type MintedQueryValue,
} from './chat.ts';
import { scimFilters, scimIndexes, scimPatchBodies, scimUserBodies, type RawQueryValue } from './scim.ts';
import { scimGroupBodies, scimGroupFilters, scimGroupPatchBodies } from './scimGroups.ts';

/**
 * What the property suites send with: the credentials of two users, and the ids, tokens and
 * cursors the service gave out (seeded before the runs, and taken from every success during
 * them), so a generated request can name a live resource, another user's, or a changed one.
 */

export type Who = 'a' | 'b';
export type CredentialChoice =
  | { kind: 'none' }
  | { kind: 'session'; who: Who }
  | { kind: 'key'; scope: Scope | 'all' }
  /**
   * A directory key (SCIM): a user's directory's, the first one's before it was rotated, or one of
   * a workspace that lost the Team tier; the scheme in the case given.
   */
  | { kind: 'directory'; key: DirectoryKey; scheme: string }
  | { kind: 'changed'; of: 'session' | 'key' | 'directory'; how: Mutation; at: number }
  | { kind: 'raw'; value: string };

export type DirectoryKey = Who | 'rotated' | 'lapsed';

/** A live value of a pool, by position; `changed` sends it altered. */
export interface LiveChoice {
  index: number;
  how?: Mutation;
  at?: number;
}

/** The part of a route's path that names a collection: `/v1/webhooks/{id}/test` → `/v1/webhooks`. */
export const collectionOf = (path: string, param: string) => path.slice(0, path.indexOf(`/{${param}}`));

/**
 * Whose a live value is: a user's, nobody's (an anonymous secret, which anyone may name), or a
 * user's the suite replaced (`former`, after a generated logout-all ended its session).
 */
export type Owner = Who | 'former' | null;
interface Entry {
  value: string;
  owner: Owner;
  seeded: boolean;
}
interface CursorEntry {
  listing: string;
  owner: Owner;
  value: string;
}

const poolSize = 24;

/** The user a credential choice acts as (keys are the first user's; a directory key, its directory's user's). */
export const ownerOf = (choice: CredentialChoice): Owner =>
  choice.kind === 'session'
    ? choice.who
    : choice.kind === 'key'
      ? 'a'
      : choice.kind === 'directory' && (choice.key === 'a' || choice.key === 'b')
        ? choice.key
        : null;

/** A directory's seats: the first's fill and free as runs create, deactivate and delete Users (403 when full); the second's are few. */
const directorySeats: Record<Who, number> = { a: 30, b: 5 };

export class Fixtures {
  readonly sessions = new Map<Who, SignedIn>();
  readonly keys = new Map<Scope | 'all', CreatedKey>();
  /** Each user's SCIM directory key (a Team workspace's, seeded for the scim group), the first's rotated one, and a lapsed workspace's. */
  readonly directoryKeys = new Map<DirectoryKey, string>();
  /** Secrets seeded with their delete tokens, for bodies that carry both (the chat subscription); and revoked ones. */
  readonly secretsWithDeleteTokens: Array<{ id: string; deleteToken: string }> = [];
  readonly revokedSecrets: Array<{ id: string; deleteToken: string }> = [];
  /** Ids by collection path, and `delete_token` values; seeded ones are kept from deletion. */
  private readonly pools = new Map<string, Entry[]>();
  /** Next cursors by route, each with the listing (path) and user it pages. */
  private readonly cursors = new Map<string, CursorEntry[]>();
  private healing: Promise<void> = Promise.resolve();

  constructor(private readonly runtime: Runtime) {}

  async start(seeders: readonly Seeder[]): Promise<void> {
    const [a, b] = await Promise.all([signIn(this.runtime, newEmail('property-a')), signIn(this.runtime, newEmail('property-b'))]);
    this.sessions.set('a', a);
    this.sessions.set('b', b);
    this.add('refresh_token', a.refresh_token, 'a');
    this.add('refresh_token', b.refresh_token, 'b');
    await this.createKeys();
    for (const seeder of seeders) await seeder(this);
  }

  private async createKeys(): Promise<void> {
    const a = this.sessions.get('a')!;
    const made = await Promise.all([
      createKey(this.runtime, a, [...scopes], 'all'),
      ...scopes.map((scope) => createKey(this.runtime, a, [scope], scope)),
    ]);
    this.keys.set('all', made[0]!);
    scopes.forEach((scope, i) => {
      this.keys.set(scope, made[i + 1]!);
    });
    for (const key of made) this.add('/v1/api-keys', key.id, 'a', true);
  }

  api() {
    return apiClient(this.runtime);
  }

  runtimeOf(): Runtime {
    return this.runtime;
  }

  /** Adds a live value; a seeded one is never sent to a DELETE, so it lives through the runs. */
  add(pool: string, value: string, owner: Owner, seeded = false): void {
    const entries = this.pools.get(pool) ?? [];
    if (entries.some((entry) => entry.value === value)) return;
    entries.push({ value, owner, seeded });
    const unseeded = entries.findIndex((entry) => !entry.seeded);
    if (entries.length > poolSize && unseeded >= 0) entries.splice(unseeded, 1);
    this.pools.set(pool, entries);
  }

  /**
   * A live value of the pool, or null when there is none: the first user's (or nobody's) for
   * `mine`, the second user's for `theirs`; changed when the choice says so.
   */
  pick(pool: string, choice: LiveChoice, options: { whose: 'mine' | 'theirs'; forDeletion: boolean }): string | null {
    const entries = (this.pools.get(pool) ?? []).filter(
      (entry) =>
        (options.whose === 'mine' ? entry.owner === 'a' || entry.owner === null : entry.owner === 'b' || entry.owner === 'former') &&
        !(options.forDeletion && entry.seeded),
    );
    if (entries.length === 0) return null;
    const { value } = entries[choice.index % entries.length]!;
    return choice.how === undefined ? value : mutate(value, choice.how, choice.at ?? 0);
  }

  /** Every live value of a pool. */
  all(pool: string): string[] {
    return (this.pools.get(pool) ?? []).map((entry) => entry.value);
  }

  /**
   * A next cursor a route gave out: to this user for any of its listings (`listing` null), for
   * this listing (`own`), or for another listing or user (`foreign`).
   */
  cursorOf(
    route: Route,
    owner: Owner,
    listing: string | null,
    index: number,
    which: 'own' | 'foreign',
  ): { listing: string; value: string } | null {
    const entries = (this.cursors.get(routeKey(route)) ?? []).filter(
      (entry) => (entry.owner === owner && (listing === null || entry.listing === listing)) === (which === 'own'),
    );
    return entries.length === 0 ? null : entries[index % entries.length]!;
  }

  /** The `authorization` header of a choice (undefined: none is sent). */
  authorization(choice: CredentialChoice): string | undefined {
    switch (choice.kind) {
      case 'none':
        return undefined;
      case 'session':
        return bearer(this.sessions.get(choice.who)!.access_token).authorization;
      case 'key':
        return bearer(this.keys.get(choice.scope)!.key).authorization;
      case 'directory':
        return `${choice.scheme} ${this.directoryKeys.get(choice.key)!}`;
      case 'changed': {
        const live =
          choice.of === 'session'
            ? this.sessions.get('a')!.access_token
            : choice.of === 'key'
              ? this.keys.get('all')!.key
              : this.directoryKeys.get('a')!;
        return `Bearer ${mutate(live, choice.how, choice.at)}`;
      }
      case 'raw':
        return choice.value;
    }
  }

  /** Takes what a success gave out: ids of its collection, delete tokens, next cursors. */
  observe(route: Route, listing: string, owner: Owner, status: number, text: string): void {
    if (status < 200 || status >= 300 || text === '') return;
    let body: Record<string, unknown>;
    try {
      body = parsedJson(text) as Record<string, unknown>;
    } catch {
      return;
    }
    if (body === null || typeof body !== 'object') return;
    if (typeof body.id === 'string') this.add(route.path, body.id, owner);
    if (typeof body.delete_token === 'string') this.add('delete_token', body.delete_token, owner);
    if (typeof body.refresh_token === 'string') this.add('refresh_token', body.refresh_token, owner);
    if (Array.isArray(body.items))
      for (const item of body.items as Array<{ id?: unknown }>) if (typeof item?.id === 'string') this.add(route.path, item.id, owner);
    // A SCIM ListResponse.
    if (Array.isArray(body.Resources))
      for (const item of body.Resources as Array<{ id?: unknown }>) if (typeof item?.id === 'string') this.add(route.path, item.id, owner);
    if (typeof body.next_cursor === 'string') {
      const entries = this.cursors.get(routeKey(route)) ?? [];
      if (!entries.some((entry) => entry.value === body.next_cursor)) entries.push({ listing, owner, value: body.next_cursor });
      if (entries.length > poolSize * 2) entries.shift();
      this.cursors.set(routeKey(route), entries);
    }
  }

  /** What the user had is now a former user's: another's, to the new session. */
  private retire(who: Who): void {
    for (const entries of this.pools.values()) for (const entry of entries) if (entry.owner === who) entry.owner = 'former';
    for (const entries of this.cursors.values()) for (const entry of entries) if (entry.owner === who) entry.owner = 'former';
  }

  /** The user's session, replaced first if a generated request ended it. */
  async liveSession(who: Who): Promise<SignedIn> {
    await this.heal({ kind: 'session', who });
    return this.sessions.get(who)!;
  }

  /**
   * A live credential answered 401: if it is really gone (a generated logout-all ended the
   * session, or a key was revoked), replace it, so the runs after keep reaching the operations.
   * A new session is a new user: sign-in codes are capped per address.
   */
  heal(choice: CredentialChoice): Promise<void> {
    if (choice.kind !== 'session' && choice.kind !== 'key') return this.healing;
    this.healing = this.healing.then(async () => {
      const authorization = this.authorization(choice)!;
      const probe = await this.api().get('/v1/usage', { authorization });
      if (probe.status !== 401) return;
      if (choice.kind === 'session') {
        this.sessions.set(choice.who, await signIn(this.runtime, newEmail(`property-${choice.who}`)));
        this.retire(choice.who);
        this.add('refresh_token', this.sessions.get(choice.who)!.refresh_token, choice.who);
        if (choice.who === 'a') await this.createKeys();
      } else {
        const scopesOf = choice.scope === 'all' ? [...scopes] : [choice.scope];
        const key = await createKey(this.runtime, this.sessions.get('a')!, scopesOf, choice.scope);
        this.keys.set(choice.scope, key);
        this.add('/v1/api-keys', key.id, 'a', true);
      }
    });
    return this.healing;
  }
}

/** Creates live resources before the runs (for the collection its key names). */
export type Seeder = (fixtures: Fixtures) => Promise<void>;

/**
 * Seeders by the route that creates what they seed; a suite runs those of its group's routes.
 * Each makes enough for a listing to page (so live cursors exist) for both users.
 */
export const seeders: Record<string, Seeder> = {
  'POST /v1/secrets': async (fixtures) => {
    const api = fixtures.api();
    for (const who of ['a', 'a', 'a', 'a', 'b', 'b', null] as const) {
      const { verifier } = claimPair();
      const body = textSecretBody({
        max_views: 100,
        expires_in: 30 * 24 * 3600,
        ...(who === 'b' ? { claim_verifier: verifier, link_verifier: claimPair().verifier } : {}),
      });
      const created = await api.post('/v1/secrets', body, who === null ? {} : fixtures.sessions.get(who)!.auth);
      if (created.status !== 201) throw new Error(`seeding a secret: ${created.status} ${JSON.stringify(created.body)}`);
      fixtures.add('/v1/secrets', created.body.id, who, true);
      fixtures.add('delete_token', created.body.delete_token, who, true);
    }
  },
  'POST /v1/requests': async (fixtures) => {
    const api = fixtures.api();
    for (const who of ['a', 'a', 'a', 'b', 'b'] as const) {
      const created = await api.post(
        '/v1/requests',
        { public_key: randomBytes(32).toString('base64url'), kem: 'x25519', max_responses: 100, expires_in: 30 * 24 * 3600 },
        fixtures.sessions.get(who)!.auth,
      );
      if (created.status !== 201) throw new Error(`seeding a request link: ${created.status} ${JSON.stringify(created.body)}`);
      fixtures.add('/v1/requests', created.body.id, who, true);
      // Enough responses for the inbox to page.
      for (let i = 0; i < 3; i++) {
        const responded = await api.post(`/v1/requests/${created.body.id}/responses`, textResponse(randomBytes(48)));
        if (responded.status !== 201) throw new Error(`seeding a response: ${responded.status} ${JSON.stringify(responded.body)}`);
      }
    }
  },
  'POST /v1/workspaces': async (fixtures) => {
    const api = fixtures.api();
    const runtime = fixtures.runtimeOf();
    for (const who of ['a', 'b'] as const) {
      const owner = fixtures.sessions.get(who)!;
      const made = await api.post('/v1/workspaces', { name: `Property ${who}` }, owner.auth);
      if (made.status !== 201) throw new Error(`seeding a workspace: ${made.status} ${JSON.stringify(made.body)}`);
      await setWorkspace(runtime, made.body.id, { seats: 500, plan: 'team' });
      fixtures.add('/v1/workspaces', made.body.id, who, true);
      // Members to act on, pending invitations, and enough audit rows for the trail to page.
      for (let i = 0; i < 2; i++)
        fixtures.add('/v1/workspaces/{id}/members', (await joinAs(runtime, { id: made.body.id }, owner, 'member')).user.id, who, true);
      for (let i = 0; i < 3; i++) {
        const invited = await api.post(
          `/v1/workspaces/${made.body.id}/invitations`,
          { email: newEmail(`property-invitee-${who}`), role: 'member' },
          owner.auth,
        );
        if (invited.status !== 201) throw new Error(`seeding an invitation: ${invited.status} ${JSON.stringify(invited.body)}`);
        fixtures.add('/v1/workspaces/{id}/members', invited.body.id, who);
      }
      // An invitation to the other user, whose token a generated accept can carry.
      const other = fixtures.sessions.get(who === 'a' ? 'b' : 'a')!;
      const invited = await api.post(`/v1/workspaces/${made.body.id}/invitations`, { email: other.user.email, role: 'member' }, owner.auth);
      if (invited.status !== 201) throw new Error(`seeding an invitation: ${invited.status} ${JSON.stringify(invited.body)}`);
      fixtures.add('invitation_token', invitationToken(runtime, other.user.email), who === 'a' ? 'b' : 'a', true);
    }
  },
  // Claims of hostnames in a Team workspace of each user (in the workspace ids' pool too, for bodies and queries that name one).
  'POST /v1/domains': async (fixtures) => {
    const api = fixtures.api();
    const runtime = fixtures.runtimeOf();
    for (const who of ['a', 'b'] as const) {
      const owner = fixtures.sessions.get(who)!;
      const made = await api.post('/v1/workspaces', { name: `Domains ${who}` }, owner.auth);
      if (made.status !== 201) throw new Error(`seeding a workspace: ${made.status} ${JSON.stringify(made.body)}`);
      await setWorkspace(runtime, made.body.id, { seats: 50, plan: 'team' });
      fixtures.add('workspace_id', made.body.id, who, true);
      for (let i = 0; i < 3; i++) {
        const claimed = await api.post(
          '/v1/domains',
          { workspace_id: made.body.id, hostname: `seed-${who}-${i}.property.example` },
          owner.auth,
        );
        if (claimed.status !== 201) throw new Error(`seeding a domain: ${claimed.status} ${JSON.stringify(claimed.body)}`);
        fixtures.add('/v1/domains', claimed.body.id, who, true);
      }
    }
  },
  // A Team workspace each user owns, the first user's bought and paid at the Stripe emulator (seats to change), the second's never bought (404).
  'POST /v1/billing/seats': async (fixtures) => {
    const api = fixtures.api();
    const runtime = fixtures.runtimeOf();
    for (const who of ['a', 'b'] as const) {
      const owner = fixtures.sessions.get(who)!;
      const made = await api.post('/v1/workspaces', { name: `Billing ${who}` }, owner.auth);
      if (made.status !== 201) throw new Error(`seeding a workspace: ${made.status} ${JSON.stringify(made.body)}`);
      await joinAs(runtime, { id: made.body.id }, owner, 'member').catch(() => undefined);
      if (who === 'a') {
        const started = await api.post('/v1/billing/checkout', { plan: 'team', workspace_id: made.body.id, seats: 3 }, owner.auth);
        if (started.status !== 201) throw new Error(`seeding a Team checkout: ${started.status} ${JSON.stringify(started.body)}`);
        await runtime.stripe.completeCheckout(started.body.id);
        await runtime.stripe.settled();
      }
      fixtures.add('workspace_id', made.body.id, who, true);
    }
  },
  // A SCIM directory for each user (a Team workspace with a verified domain and its directory key), the first's key rotated once, and Users in each; and one whose workspace lost the Team tier.
  'POST /scim/v2/Users': async (fixtures) => {
    const runtime = fixtures.runtimeOf();
    const lapsed = await directoryWorkspace(runtime);
    await setWorkspace(runtime, lapsed.id, { plan: 'free' });
    fixtures.directoryKeys.set('lapsed', lapsed.key);
    for (const who of ['a', 'b'] as const) {
      const directory = await directoryWorkspace(runtime, directorySeats[who]);
      let key = directory.key;
      if (who === 'a') {
        const rotated = await send(
          runtime,
          'PUT',
          `/v1/workspaces/${directory.id}/sso`,
          { issuer: 'https://acme.okta.com', email_domain: directory.domain, rotate_directory_key: true },
          directory.owner.auth,
        );
        if (rotated.status !== 200) throw new Error(`rotating a directory key: ${rotated.status} ${JSON.stringify(rotated.body)}`);
        fixtures.directoryKeys.set('rotated', key);
        key = rotated.body.scim.directory_key;
      }
      fixtures.directoryKeys.set(who, key);
      for (let i = 0; i < 3; i++) {
        const created = await scimClient(runtime, key).post('/Users', oktaUser(newEmail(`property-scim-${who}`)));
        if (created.status !== 201) throw new Error(`seeding a SCIM User: ${created.status} ${JSON.stringify(created.body)}`);
        fixtures.add('/scim/v2/Users', created.body.id, who, true);
      }
    }
  },
  // Two Groups in each user's directory (the Users' seeder made the directories and their keys first).
  'POST /scim/v2/Groups': async (fixtures) => {
    for (const who of ['a', 'b'] as const) {
      for (let i = 0; i < 2; i++) {
        const created = await scimClient(fixtures.runtimeOf(), fixtures.directoryKeys.get(who)!).post('/Groups', {
          displayName: `property-${who}-${i}-${randomBytes(4).toString('hex')}`,
        });
        if (created.status !== 201) throw new Error(`seeding a SCIM Group: ${created.status} ${JSON.stringify(created.body)}`);
        fixtures.add('/scim/v2/Groups', created.body.id, who, true);
      }
    }
  },
  'POST /v1/chat/subscribe': seedChatSecrets,
  'POST /v1/webhooks': async (fixtures) => {
    const api = fixtures.api();
    for (const who of ['a', 'b'] as const) {
      const session = fixtures.sessions.get(who)!;
      const registered = await api.post('/v1/webhooks', { url: `http://127.0.0.1:9/property-${who}` }, session.auth);
      if (registered.status !== 201) throw new Error(`seeding a webhook: ${registered.status} ${JSON.stringify(registered.body)}`);
      fixtures.add('/v1/webhooks', registered.body.id, who, true);
      const key = who === 'a' ? fixtures.keys.get('all')! : await createKey(fixtures.runtimeOf(), session, ['secrets:read']);
      for (let i = 0; i < 4; i++) {
        const queued = await api.post(`/v1/webhooks/${registered.body.id}/test`, undefined, key.auth);
        if (queued.status !== 202) throw new Error(`seeding a delivery: ${queued.status} ${JSON.stringify(queued.body)}`);
      }
    }
  },
};

/**
 * Stands for a live value of a pool in an example body; replaced when the run is sent (a
 * refresh token the service gave out, say), so a generated body can carry one.
 */
/** A text response as a responder's client sends one to an X25519 link (other envelope formats are stored as they are). */
function textResponse(envelope: Uint8Array): Record<string, unknown> {
  return {
    kind: 'text',
    envelope: Buffer.from(envelope).toString('base64'),
    salt: randomBytes(16).toString('base64url'),
    size_bytes: envelope.length,
    enc: randomBytes(32).toString('base64url'),
    wrapped_key: randomBytes(48).toString('base64url'),
  };
}

export const live = (pool: string) => `\u0000live:${pool}`;
const livePlaceholder = /"\\u0000live:([a-z_]+)"/g;

/** A JSON body with its live placeholders replaced by live values (the first user's, or anyone's). */
export function withLiveValues(text: string, fixtures: Fixtures, index: number): string {
  return text.replace(livePlaceholder, (_, pool: string) =>
    JSON.stringify(fixtures.pick(pool, { index }, { whose: 'mine', forDeletion: false }) ?? 'none'),
  );
}

/**
 * Bodies a schema alone cannot make valid (a rule across fields, a live token, or a
 * destination this machine reaches), by route: the runs send them as they are, or changed.
 */
export const examples: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
  'POST /v1/auth/refresh': fc.constant({ refresh_token: live('refresh_token') }),
  'POST /v1/auth/logout': fc.constant({ refresh_token: live('refresh_token') }),
  'POST /v1/secrets': fc
    .record({
      envelope: fc.uint8Array({ minLength: 1, maxLength: 64 }),
      salt: fc.uint8Array({ minLength: 16, maxLength: 16 }),
      expires_in: fc.option(fc.integer({ min: 60, max: 3600 }), { nil: undefined }),
      max_views: fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }),
    })
    .map(({ envelope, salt, ...rest }) => ({
      kind: 'text',
      envelope: Buffer.from(envelope).toString('base64'),
      salt: Buffer.from(salt).toString('base64url'),
      size_bytes: envelope.length,
      ...Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined)),
    })),
  'POST /v1/requests': fc
    .record({
      key: fc.uint8Array({ minLength: 32, maxLength: 32 }),
      max_responses: fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }),
    })
    .map(({ key, max_responses }) => ({
      public_key: Buffer.from(key).toString('base64url'),
      kem: 'x25519',
      ...(max_responses === undefined ? {} : { max_responses }),
    })),
  'POST /v1/requests/{id}/responses': fc.uint8Array({ minLength: 1, maxLength: 64 }).map((envelope) => textResponse(envelope)),
  'POST /v1/workspaces': fc.record({ name: fc.string({ minLength: 1, maxLength: 40 }).filter((name) => name.trim() !== '') }),
  'POST /v1/workspaces/{id}/invitations': fc
    .record({ role: fc.constantFrom('admin', 'member'), n: fc.nat() })
    .map(({ role, n }) => ({ email: `invitee-${n}-${Date.now().toString(36)}@example.com`, role })),
  'POST /v1/workspaces/invitations/accept': fc.constant({ token: live('invitation_token') }),
  'PUT /v1/workspaces/{id}/policy': fc.record({
    max_views: fc.option(fc.integer({ min: 1, max: 100 }), { nil: null }),
    allow_files: fc.option(fc.boolean(), { nil: null }),
  }),
  'PUT /v1/workspaces/{id}/branding': fc.record({
    display_name: fc.string({ minLength: 1, maxLength: 60 }).filter((name) => name.trim() !== ''),
  }),
  'POST /v1/billing/checkout': fc
    .record({
      plan: fc.constant('pro'),
      success_path: fc.option(
        fc.webPath().filter((path) => path.startsWith('/') && !path.startsWith('//')),
        { nil: undefined },
      ),
    })
    .map(({ success_path, ...rest }) => ({ ...rest, ...(success_path === undefined ? {} : { success_path }) })),
  'POST /v1/domains': fc
    .record({
      label: fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,20}[a-z0-9]$/),
      n: fc.nat(),
      raw: fc.option(fc.string({ maxLength: 40 }), { nil: undefined }),
    })
    .map(({ label, n, raw }) => ({ workspace_id: live('workspace_id'), hostname: raw ?? `${label}-${n}.property.example` })),
  'PUT /v1/workspaces/{id}/sso': fc
    .record({ tenant: fc.stringMatching(/^[a-z0-9]{1,12}$/), rotate: fc.option(fc.boolean(), { nil: undefined }), n: fc.nat(2) })
    .map(({ tenant, rotate, n }) => ({
      issuer: `https://${tenant}.okta.example`,
      email_domain: `seed-a-${n}.property.example`,
      ...(rotate === undefined ? {} : { rotate_directory_key: rotate }),
    })),
  'PATCH /v1/billing/seats': fc.integer({ min: 1, max: 40 }).map((seats) => ({ workspace_id: live('workspace_id'), seats })),
  'POST /v1/billing/enterprise-inquiry': fc
    .record({
      name: fc.string({ minLength: 1, maxLength: 40 }),
      n: fc.nat(),
      company: fc.string({ minLength: 1, maxLength: 40 }),
      seats: fc.option(fc.integer({ min: 1, max: 100_000 }), { nil: undefined }),
      message: fc.string({ minLength: 1, maxLength: 400 }),
    })
    .map(({ n, seats, ...rest }) => ({ ...rest, email: `buyer-${n}@corp.example`, ...(seats === undefined ? {} : { seats }) })),
  'POST /v1/webhooks': fc.webPath().map((path) => ({ url: `http://127.0.0.1:9${path.startsWith('/') ? path : `/${path}`}` })),
  'POST /scim/v2/Users': scimUserBodies,
  'PUT /scim/v2/Users/{id}': scimUserBodies,
  'PATCH /scim/v2/Users/{id}': scimPatchBodies,
  'POST /scim/v2/Groups': scimGroupBodies,
  'PUT /scim/v2/Groups/{id}': scimGroupBodies,
  'PATCH /scim/v2/Groups/{id}': scimGroupPatchBodies,
};

/**
 * Query values a schema alone cannot make (read by the route from the raw query string, or live
 * values made when the run is sent), by route and parameter: good and bad, sent as written.
 */
export const queryValues: Record<
  string,
  Record<string, { good: fc.Arbitrary<RawQueryValue | MintedQueryValue>; bad: fc.Arbitrary<RawQueryValue | MintedQueryValue> }>
> = {
  'GET /scim/v2/Users': { filter: scimFilters, startIndex: scimIndexes, count: scimIndexes },
  'GET /scim/v2/Groups': { filter: scimGroupFilters, startIndex: scimIndexes, count: scimIndexes },
  'GET /v1/chat/callback': chatCallbackValues,
};

/**
 * Good queries of routes whose parameters only work together (a state and the code of the same
 * install), in place of one parameter at a time; the bad ones still change one of them.
 */
export const wholeQueries: Record<string, fc.Arbitrary<Array<[string, RawQueryValue | MintedQueryValue]>>> = {
  'GET /v1/chat/callback': chatCallbackQueries,
};

/**
 * Bodies made when the run is sent (signed now, or carrying values only the service or the
 * app's secrets make), by route: good and bad, and the declared headers a body brings with it
 * (so the good runs leave them alone, and the bad ones change what it brought).
 */
export const mintedBodies: Record<string, { good: fc.Arbitrary<MintedBody>; bad: fc.Arbitrary<MintedBody>; headers: readonly string[] }> = {
  'POST /v1/chat/commands': { ...signedCommands, headers: slackCommandHeaders },
  'POST /v1/chat/subscribe': { ...chatSubscriptions, headers: [] },
};
