import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Plan, User } from '../../shared/domain/accounts/model.ts';
import type { UserStore } from '../../shared/domain/accounts/ports.ts';
import { newUserId } from '../../shared/ids.ts';
import { t0 } from './secretFixtures.ts';

const aUser = (email: string, overrides: Partial<User> = {}): User => ({
  id: newUserId(),
  email,
  plan: 'free',
  createdAt: t0,
  ...overrides,
});

/** How a contract writes an account's plans as billing (the provider's) and sales (a contract's) do, beside the store. */
export interface PlanWriter {
  setPlan(userId: string, plan: Plan): Promise<void>;
  setContractPlan(userId: string, plan: Plan): Promise<void>;
}

/** The UserStore port's contract: one account per address, by condition; its plans (the provider's, a contract's) as written, for the domain to choose. */
export function describeUserStoreContract(
  name: string,
  make: () => { users: UserStore; plans: PlanWriter } | Promise<{ users: UserStore; plans: PlanWriter }>,
): void {
  describe(`UserStore contract: ${name}`, () => {
    let users: UserStore;
    let plans: PlanWriter;
    let email: string;
    beforeEach(async () => {
      ({ users, plans } = await make());
      email = `ana-${randomUUID()}@example.com`;
    });

    it('creates an account and finds it by id and by address', async () => {
      const user = aUser(email, { plan: 'pro' });
      expect(await users.createOrGet(user)).toEqual(user);
      expect(await users.get(user.id)).toEqual(user);
      expect(await users.findByEmail(email)).toEqual(user);
      expect(await users.get(newUserId())).toBeNull();
      expect(await users.findByEmail(`nobody-${email}`)).toBeNull();
    });

    it('answers the existing account for an address that has one, creating nothing', async () => {
      const first = aUser(email);
      await users.createOrGet(first);
      const second = aUser(email, { createdAt: t0 + 1 });
      expect(await users.createOrGet(second)).toEqual(first);
      expect(await users.get(second.id)).toBeNull();
    });

    it('of two sign-ups racing for one address, both get the same account', async () => {
      const made = await Promise.all([users.createOrGet(aUser(email)), users.createOrGet(aUser(email))]);
      expect(made[0]!.id).toBe(made[1]!.id);
      expect((await users.findByEmail(email))?.id).toBe(made[0]!.id);
    });

    it('keeps addresses as given: the caller normalizes them', async () => {
      await users.createOrGet(aUser(email));
      expect(await users.findByEmail(email.toUpperCase())).toBeNull();
    });

    it('refuses an account under an id another address has', async () => {
      const user = aUser(email);
      await users.createOrGet(user);
      await expect(users.createOrGet({ ...aUser(`other-${email}`), id: user.id })).rejects.toThrow();
      expect(await users.findByEmail(`other-${email}`)).toBeNull();
    });

    it('records accepted terms on an account, and refuses for none', async () => {
      const user = aUser(email);
      await users.createOrGet(user);
      await users.acceptTerms(user.id, '2026-11', t0 + 5);
      expect(await users.get(user.id)).toEqual({ ...user, tosVersion: '2026-11', tosAcceptedAt: t0 + 5 });
      await expect(users.acceptTerms(newUserId(), '2026-11', t0)).rejects.toThrow();
    });

    it('saves a language for the account’s mails, forgets it on null, and answers null for no account', async () => {
      const user = aUser(email);
      await users.createOrGet(user);
      expect(await users.setLocale(user.id, 'pt-BR')).toEqual({ ...user, locale: 'pt-BR' });
      expect(await users.findByEmail(email)).toEqual({ ...user, locale: 'pt-BR' });
      expect(await users.setLocale(user.id, 'ja')).toEqual({ ...user, locale: 'ja' });
      expect(await users.setLocale(user.id, null)).toEqual(user);
      expect(await users.get(user.id)).toEqual(user);
      // Forgetting what was never saved is no error.
      expect(await users.setLocale(user.id, null)).toEqual(user);
      const nobody = newUserId();
      expect(await users.setLocale(nobody, 'de')).toBeNull();
      expect(await users.get(nobody)).toBeNull();
    });

    it('answers the provider’s plan and a contract’s as each was written, leaving which counts to the domain', async () => {
      const user = aUser(email, { plan: 'pro' });
      await users.createOrGet(user);
      await plans.setContractPlan(user.id, 'enterprise');
      expect(await users.findByEmail(email)).toMatchObject({ plan: 'pro', contractPlan: 'enterprise' });
      await plans.setPlan(user.id, 'free');
      expect(await users.get(user.id)).toMatchObject({ plan: 'free', contractPlan: 'enterprise' });
      await plans.setContractPlan(user.id, 'free');
      await plans.setPlan(user.id, 'team');
      expect(await users.get(user.id)).toMatchObject({ plan: 'team', contractPlan: 'free' });
    });
  });
}
