import { describe, expect, it } from 'vitest';
import { defaultPlan, features, flagsFor, planIncludes, planOf, plans, planTable, type Feature } from '../../shared/domain/plans.ts';
import { highestPlan } from '../../shared/domain/billing/tier.ts';
import type { Plan } from '../../shared/domain/accounts/model.ts';
import { readFlags } from '../../shared/domain/usage/read.ts';

const included = (plan: (typeof plans)[number]) => features.filter((feature) => planIncludes(plan, feature));
const team: Feature[] = ['seats', 'workspaces', 'policy', 'branding', 'sso', 'scim', 'custom_domains', 'audit'];

describe('the plan table', () => {
  it('has a row for every plan and nothing else', () => {
    expect(Object.keys(planTable).sort()).toEqual([...plans].sort());
  });

  it('free: receipts show time and channel only', () => {
    expect(included('free')).toEqual(['receipts_time', 'receipts_channel']);
  });

  it('pro: free plus location and device in receipts', () => {
    expect(included('pro')).toEqual(['receipts_time', 'receipts_channel', 'receipts_location', 'receipts_device']);
  });

  it('team: pro plus seats, workspaces, policy, branding, SSO, SCIM, domains and audit', () => {
    expect(included('team')).toEqual([...included('pro'), ...team]);
    expect(included('team')).toEqual([...features]);
  });

  it('enterprise: sold by enquiry only, with everything team has', () => {
    expect(planTable.enterprise.selfServe).toBe(false);
    expect(included('enterprise')).toEqual(included('team'));
    expect(plans.filter((plan) => planTable[plan].selfServe)).toEqual(['free', 'pro', 'team']);
  });

  it('each plan includes every feature of the plan below it', () => {
    const order = ['free', 'pro', 'team', 'enterprise'] as const;
    for (let i = 1; i < order.length; i++) {
      for (const feature of included(order[i - 1]!)) expect(planIncludes(order[i]!, feature)).toBe(true);
    }
  });

  it('reads an unknown or missing stored plan as the default, free', () => {
    expect(defaultPlan).toBe('free');
    expect(planOf('pro')).toBe('pro');
    expect(planOf('enterprise')).toBe('enterprise');
    for (const value of ['platinum', 'PRO', '', 'toString', '__proto__', undefined, null]) expect(planOf(value)).toBe('free');
  });
});

describe('the plan in use', () => {
  it('is the highest held; a stored name the table does not know, or none, counts as the default', () => {
    expect(highestPlan([])).toBe('free');
    expect(highestPlan(['pro', 'enterprise', 'team'])).toBe('enterprise');
    // Stores read each attribute as written (shared/store/contractPlans.ts, planAttributes.ts): what no plan names never outranks a plan.
    const stored = (...values: unknown[]) => values as Plan[];
    expect(highestPlan(stored('pro', undefined, null))).toBe('pro');
    for (const value of ['platinum', 'PRO', '', 'toString', 'constructor', '__proto__', 'hasOwnProperty', undefined, null])
      expect(highestPlan(stored(value))).toBe('free');
    expect(highestPlan(stored('constructor', 'team'))).toBe('team');
  });
});

describe('flags', () => {
  it('are booleans for every feature, plus signed_in', () => {
    for (const plan of plans) {
      for (const signedIn of [true, false]) {
        const flags = flagsFor(plan, signedIn);
        expect(Object.keys(flags).sort()).toEqual([...features, 'signed_in'].sort());
        expect(Object.values(flags).every((value) => typeof value === 'boolean')).toBe(true);
        expect(flags.signed_in).toBe(signedIn);
        for (const feature of features) expect(flags[feature]).toBe(planIncludes(plan, feature));
      }
    }
  });

  /** A person's plans as the tier source reads them (unknown names become the default, as planOf makes them). */
  const tiersWith = (...plans: string[]) => ({ tiers: { plansOf: async () => plans.map((plan) => ({ plan: planOf(plan) })) } });

  it('anonymous callers get the default plan and signed_in false, without reading any user', async () => {
    const ports = {
      tiers: {
        plansOf: async () => {
          throw new Error('must not read');
        },
      },
    };
    expect(await readFlags(null, ports)).toEqual(flagsFor('free', false));
  });

  it('a caller gets the flags of its effective tier, whether by session or key: the highest of its plan and its workspaces’', async () => {
    expect(await readFlags({ kind: 'session', userId: 'u', sessionId: 's' }, tiersWith('pro'))).toEqual(flagsFor('pro', true));
    expect(await readFlags({ kind: 'api_key', userId: 'u', keyId: 'k', scopes: [] }, tiersWith('team'))).toEqual(flagsFor('team', true));
    expect(await readFlags({ kind: 'session', userId: 'u', sessionId: 's' }, tiersWith('free', 'team', 'pro'))).toEqual(
      flagsFor('team', true),
    );
    expect(await readFlags({ kind: 'session', userId: 'u', sessionId: 's' }, tiersWith('pro', 'free'))).toEqual(flagsFor('pro', true));
    // A user record that is gone, or a plan this code does not know: the default plan.
    expect(await readFlags({ kind: 'session', userId: 'u', sessionId: 's' }, tiersWith())).toEqual(flagsFor('free', true));
    expect(await readFlags({ kind: 'session', userId: 'u', sessionId: 's' }, tiersWith('gold'))).toEqual(flagsFor('free', true));
  });
});
