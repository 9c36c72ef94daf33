import type { Plan, User } from '../../shared/domain/accounts/model.ts';
import type { UserStore } from '../../shared/domain/accounts/ports.ts';
import type { ContractRecord } from '../../shared/domain/contractPlans.ts';
import type { Language } from '../../shared/languages.ts';
import { conditionFailed, copy } from './memoryListing.ts';

interface Row {
  user: User;
  /** What sales' admin command wrote (`contract_plan`), beside the provider's `plan`; readers take the higher. */
  contractPlan: Plan | null;
  contract: ContractRecord | null;
}

/**
 * UserStore in memory, with DynamoUserStore's conditions: one account per address (as given: the
 * caller normalizes it) and per id. What an account keeps from its creation is its id, address,
 * plan and time; terms come only from `acceptTerms`, a language only from `setLocale`. It also offers what billing and contracts
 * write on an account (`byEmail`, `exists`, `setPlan`, `setContractPlan`: the shape the workspace
 * group's fakes take as their accounts), so plans they change show in `get` as in the table.
 */
export class MemoryUserStore implements UserStore {
  private readonly rows = new Map<string, Row>();
  private readonly emails = new Map<string, string>();

  async get(id: string): Promise<User | null> {
    const row = this.rows.get(id);
    // Both plans as held: the provider's and a contract's (the domain's planInUse decides).
    return row ? { ...copy(row.user), ...(row.contractPlan === null ? {} : { contractPlan: row.contractPlan }) } : null;
  }

  async findByEmail(email: string): Promise<User | null> {
    const id = this.emails.get(email);
    return id === undefined ? null : this.get(id);
  }

  async createOrGet(user: User): Promise<User> {
    const existing = this.emails.get(user.email);
    if (existing !== undefined) return (await this.get(existing))!;
    // Another address under the same id: the transaction is refused and no account has the address.
    if (this.rows.has(user.id)) throw Object.assign(new Error('Transaction cancelled'), { name: 'TransactionCanceledException' });
    this.rows.set(user.id, {
      user: { id: user.id, email: user.email, plan: user.plan, createdAt: user.createdAt },
      contractPlan: null,
      contract: null,
    });
    this.emails.set(user.email, user.id);
    return (await this.get(user.id))!;
  }

  async acceptTerms(id: string, version: string, at: number): Promise<void> {
    const row = this.rows.get(id);
    if (!row) throw conditionFailed();
    row.user.tosVersion = version;
    row.user.tosAcceptedAt = at;
  }

  async setLocale(id: string, locale: Language | null): Promise<User | null> {
    const row = this.rows.get(id);
    if (!row) return null;
    if (locale === null) delete row.user.locale;
    else row.user.locale = locale;
    return this.get(id);
  }

  /** The account of an address as billing and contracts read it. */
  byEmail(email: string): { userId: string; email: string; plan: Plan; contractPlan: Plan | null } | null {
    const row = this.rows.get(this.emails.get(email) ?? '');
    return row ? { userId: row.user.id, email: row.user.email, plan: row.user.plan, contractPlan: row.contractPlan } : null;
  }

  exists(userId: string): boolean {
    return this.rows.has(userId);
  }

  /** The provider's plan (billing's write); false when there is no such account. */
  setPlan(userId: string, plan: Plan): boolean {
    const row = this.rows.get(userId);
    if (row) row.user.plan = plan;
    return row !== undefined;
  }

  /** A contract's plan (null takes it away, its record kept); false when there is no such account. */
  setContractPlan(userId: string, plan: Plan | null, record: ContractRecord): boolean {
    const row = this.rows.get(userId);
    if (row) Object.assign(row, { contractPlan: plan, contract: copy(record) });
    return row !== undefined;
  }
}
