import { describe, expect, it } from 'vitest';
import { usageChangeOf, type SecretUsageImage } from '../../shared/domain/usage/live.ts';

const secret = (fields: Partial<SecretUsageImage> = {}): SecretUsageImage => ({ id: 'sec_1', state: 'active', sizeBytes: 100, ...fields });

describe('usageChangeOf', () => {
  it('counts an owned secret live when it is created or adopted', () => {
    expect(usageChangeOf(null, secret({ ownerId: 'u1' }))).toEqual({
      ownerId: 'u1',
      secretId: 'sec_1',
      phase: 'live',
      secrets: 1,
      bytes: 100,
    });
    expect(usageChangeOf(null, secret({ ownerId: 'u1', state: 'pending' }))).toMatchObject({ phase: 'live', secrets: 1 });
    expect(usageChangeOf(secret(), secret({ ownerId: 'u1' }))).toMatchObject({ phase: 'live', secrets: 1, bytes: 100 });
  });

  it('counts it out once when it ends, whichever way', () => {
    for (const state of ['burned', 'expired', 'revoked', 'locked'] as const) {
      expect(usageChangeOf(secret({ ownerId: 'u1' }), secret({ ownerId: 'u1', state }))).toEqual({
        ownerId: 'u1',
        secretId: 'sec_1',
        phase: 'ended',
        secrets: -1,
        bytes: -100,
      });
    }
    expect(usageChangeOf(secret({ ownerId: 'u1', state: 'pending' }), secret({ ownerId: 'u1', state: 'revoked' }))).toMatchObject({
      phase: 'ended',
    });
  });

  it('moves nothing for writes that change no counter', () => {
    expect(usageChangeOf(null, secret())).toBeNull();
    expect(usageChangeOf(secret(), secret({ state: 'burned' }))).toBeNull();
    expect(usageChangeOf(secret({ ownerId: 'u1' }), secret({ ownerId: 'u1' }))).toBeNull();
    expect(usageChangeOf(secret({ ownerId: 'u1', state: 'burned' }), secret({ ownerId: 'u1', state: 'burned' }))).toBeNull();
  });
});
