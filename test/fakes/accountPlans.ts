import type { Plan, User } from '../../shared/domain/accounts/model.ts';
import type { UserStore } from '../../shared/domain/accounts/ports.ts';
import { planInUse } from '../../shared/domain/billing/tier.ts';
import type { ContractRecord } from '../../shared/domain/contractPlans.ts';

/** An account as billing and contracts read it: the provider's plan (`plan`) and the contract's (`contract_plan`). */
export interface AccountPlanRow {
  userId: string;
  email: string;
  plan: Plan;
  contractPlan: Plan | null;
}

/**
 * The attributes of an account's item (`USER#<id>` / `PROFILE`) that billing and sales' contracts
 * write beside the user's own (shared/store/planAttributes.ts). Synchronous, so a fake's
 * transaction-like stretch stays whole. An accounts fake that wants its users' plans to follow
 * billing implements this and is handed to WorkspaceData.
 */
export interface AccountPlans {
  /** By the normalized address (the `EMAIL#` item). */
  byEmail(email: string): AccountPlanRow | null;
  exists(userId: string): boolean;
  /** The provider's plan; false when there is no such account. */
  setPlan(userId: string, plan: Plan): boolean;
  /** The contract's plan (null takes it away, its record kept); false when there is no such account. */
  setContractPlan(userId: string, plan: Plan | null, record: ContractRecord): boolean;
}

/**
 * Accounts reduced to what the workspace and billing groups touch: `add` is a test's sign-up,
 * `createOrGet` SCIM's; `get` and `findByEmail` answer as UserStore does (the provider's plan and
 * a contract's, as held), so a use case's `users` port sees what billing wrote. (test/fakes/users.ts is the accounts group's full UserStore, held to its contract.)
 */
export class MemoryAccountPlans implements AccountPlans, Pick<UserStore, 'get' | 'findByEmail' | 'createOrGet'> {
  private readonly rows = new Map<string, AccountPlanRow & { user: User; contract: ContractRecord | null }>();
  private readonly emails = new Map<string, string>();

  /** One account per address, as `UserStore.createOrGet` makes them: a second one for an address is ignored. */
  add(user: User): this {
    if (this.emails.has(user.email) || this.rows.has(user.id)) return this;
    this.emails.set(user.email, user.id);
    this.rows.set(user.id, {
      userId: user.id,
      email: user.email,
      plan: user.plan,
      contractPlan: null,
      user: structuredClone(user),
      contract: null,
    });
    return this;
  }

  async createOrGet(user: User): Promise<User> {
    const existing = this.emails.get(user.email);
    if (existing !== undefined) return (await this.get(existing))!;
    // Another address under the same id: the store's transaction is refused.
    if (this.rows.has(user.id)) throw Object.assign(new Error('Transaction cancelled'), { name: 'TransactionCanceledException' });
    this.add(user);
    return (await this.get(user.id))!;
  }

  async get(id: string): Promise<User | null> {
    const row = this.rows.get(id);
    // Both plans as held: the provider's and a contract's (the domain's planInUse decides).
    if (!row) return null;
    const { contractPlan: _given, ...user } = structuredClone(row.user);
    return { ...user, plan: row.plan, ...(row.contractPlan === null ? {} : { contractPlan: row.contractPlan }) };
  }

  async findByEmail(email: string): Promise<User | null> {
    const id = this.emails.get(email);
    return id === undefined ? null : this.get(id);
  }

  /** The plan the account is on, as the domain decides it (for tests that look; `get` answers both as held). */
  planOf(userId: string): Plan | null {
    const row = this.rows.get(userId);
    return row ? planInUse({ plan: row.plan, ...(row.contractPlan === null ? {} : { contractPlan: row.contractPlan }) }) : null;
  }

  byEmail(email: string): AccountPlanRow | null {
    const id = this.emails.get(email);
    const row = id === undefined ? undefined : this.rows.get(id);
    return row ? { userId: row.userId, email: row.email, plan: row.plan, contractPlan: row.contractPlan } : null;
  }

  exists(userId: string): boolean {
    return this.rows.has(userId);
  }

  setPlan(userId: string, plan: Plan): boolean {
    const row = this.rows.get(userId);
    if (row) row.plan = plan;
    return row !== undefined;
  }

  setContractPlan(userId: string, plan: Plan | null, record: ContractRecord): boolean {
    const row = this.rows.get(userId);
    if (row) Object.assign(row, { contractPlan: plan, contract: { ...record } });
    return row !== undefined;
  }
}
