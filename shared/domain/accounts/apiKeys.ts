import { constantTimeEqual, newApiKeyId, newApiKeySecret, sha256Base64Url } from '../../ids.ts';
import { credentialLimits } from '../../limits.ts';
import type { Scope } from '../../routes.ts';
import type { ApiKey, Principal } from './model.ts';
import type { AccountPorts } from './ports.ts';
import { NotFound } from '../refusals.ts';

const keyPattern = /^hlk_(key_[A-Za-z0-9_-]{16})_([A-Za-z0-9_-]{43})$/;
/** What `newApiKeyId` makes; any other id names no key. */
const keyIdPattern = /^key_[A-Za-z0-9_-]{16}$/;
export const looksLikeApiKey = (token: string) => token.startsWith('hlk_');

export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
}

export const apiKeyView = (key: ApiKey): ApiKeyView => ({
  id: key.id,
  name: key.name,
  prefix: key.prefix,
  scopes: key.scopes,
  created_at: new Date(key.createdAt).toISOString(),
  expires_at: key.expiresAt === undefined ? null : new Date(key.expiresAt).toISOString(),
  last_used_at: key.lastUsedAt === undefined ? null : new Date(key.lastUsedAt).toISOString(),
});

/** A key as its owner asks for it: a name to tell it apart, what it may do, and for how long (none: until revoked). */
export interface NewApiKey {
  name: string;
  scopes: Scope[];
  expiresInSeconds?: number;
}

/** Makes a key; its value is returned here once and stored only as SHA-256. */
export async function createApiKey(userId: string, request: NewApiKey, ports: Pick<AccountPorts, 'apiKeys' | 'clock'>) {
  const now = ports.clock.now();
  const id = newApiKeyId();
  const value = `hlk_${id}_${newApiKeySecret()}`;
  const key: ApiKey = {
    id,
    userId,
    name: request.name,
    prefix: value.slice(0, 16),
    scopes: request.scopes,
    keyHash: sha256Base64Url(value),
    createdAt: now,
    ...(request.expiresInSeconds === undefined ? {} : { expiresAt: now + request.expiresInSeconds * 1000 }),
  };
  await ports.apiKeys.insert(key);
  return { ...apiKeyView(key), key: value };
}

/** The caller behind an API key value, or null: one read, compared in constant time. */
export async function apiKeyPrincipal(
  value: string,
  ports: Pick<AccountPorts, 'apiKeys' | 'clock'>,
): Promise<Extract<Principal, { kind: 'api_key' }> | null> {
  const match = keyPattern.exec(value);
  if (!match) return null;
  const key = await ports.apiKeys.get(match[1]!);
  if (!key || !constantTimeEqual(Buffer.from(sha256Base64Url(value)), Buffer.from(key.keyHash))) return null;
  const now = ports.clock.now();
  if (key.expiresAt !== undefined && key.expiresAt <= now) return null;
  const resolution = credentialLimits.lastUsedResolutionSeconds * 1000;
  if (key.lastUsedAt === undefined || now - key.lastUsedAt >= resolution) await ports.apiKeys.touch(key.id, now, resolution);
  return { kind: 'api_key', userId: key.userId, keyId: key.id, scopes: key.scopes };
}

/** A malformed id is answered without touching the table (one 2 KiB long is beyond a key's size). */
export async function revokeApiKey(userId: string, id: string, ports: Pick<AccountPorts, 'apiKeys'>): Promise<void> {
  if (!keyIdPattern.test(id) || !(await ports.apiKeys.delete(id, userId))) throw new NotFound('You have no API key with this id.');
}
