import type { Adapter, AdapterPayload, ClientMetadata } from 'oidc-provider';

/** The models a grant's revocation removes (as the provider's own memory adapter has it). */
const grantable = [
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
  'PreAuthorizedCode',
];

interface Entry {
  payload: AdapterPayload;
  /** ms since the epoch; Infinity when the model has no lifetime. */
  expiresAt: number;
}

/**
 * The provider's storage: one provider's own, in memory (the provider's built-in memory adapter
 * is one store per process, shared by every provider in it, and warns at start). Clients are
 * not stored here but read from the registered ones (`clients`), so a client registered or
 * changed at any moment is the one the next request sees. Nothing is kept across runs.
 */
export function memoryAdapter(clients: ReadonlyMap<string, ClientMetadata>, now: () => number = Date.now): (model: string) => Adapter {
  const entries = new Map<string, Entry>();
  const live = (key: string): AdapterPayload | undefined => {
    const entry = entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now()) return void entries.delete(key);
    return entry.payload;
  };
  const sweep = () => {
    const at = now();
    for (const [key, entry] of entries) if (entry.expiresAt <= at) entries.delete(key);
  };
  let writes = 0;

  return (model) => {
    const key = (id: string) => `${model}:${id}`;
    const adapter: Adapter = {
      async upsert(id, payload, expiresIn) {
        if (++writes % 256 === 0) sweep();
        const expiresAt = typeof expiresIn === 'number' ? now() + expiresIn * 1000 : Number.POSITIVE_INFINITY;
        entries.set(key(id), { payload, expiresAt });
        if (model === 'Session' && typeof payload.uid === 'string')
          entries.set(`SessionUid:${payload.uid}`, { payload: { id }, expiresAt });
        if (typeof payload.userCode === 'string') entries.set(`${model}UserCode:${payload.userCode}`, { payload: { id }, expiresAt });
      },
      async find(id) {
        if (model === 'Client') {
          const client = clients.get(id);
          return client ? { ...client } : undefined;
        }
        return live(key(id));
      },
      async findByUid(uid) {
        const index = live(`SessionUid:${uid}`);
        return typeof index?.id === 'string' ? live(key(index.id)) : undefined;
      },
      async findByUserCode(userCode) {
        const index = live(`${model}UserCode:${userCode}`);
        return typeof index?.id === 'string' ? live(key(index.id)) : undefined;
      },
      async consume(id) {
        const payload = live(key(id));
        if (payload) payload.consumed = Math.floor(now() / 1000);
      },
      async destroy(id) {
        entries.delete(key(id));
      },
      async revokeByGrantId(grantId) {
        for (const [stored, entry] of entries) {
          if (entry.payload.grantId === grantId && grantable.includes(stored.slice(0, stored.indexOf(':')))) entries.delete(stored);
        }
      },
    };
    return adapter;
  };
}
