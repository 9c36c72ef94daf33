import type { Plan } from './accounts/model.ts';

/**
 * THE plan table (DESIGN.md §3, interface §8): what each plan includes. Flags, usage and any
 * check of a paid feature read this module; nothing else names what a plan allows.
 */
export const plans = ['free', 'pro', 'team', 'enterprise'] as const satisfies readonly Plan[];

export const features = [
  /** Receipts show when a link was opened, and through which channel. */
  'receipts_time',
  'receipts_channel',
  /** Receipts also show approximate location and device. */
  'receipts_location',
  'receipts_device',
  /** Team features. */
  'seats',
  'workspaces',
  'policy',
  'branding',
  'sso',
  'scim',
  'custom_domains',
  'audit',
] as const;
export type Feature = (typeof features)[number];

export interface PlanDefinition {
  features: readonly Feature[];
  /** The largest file a secret may carry (the envelope's whole length). */
  fileBytes: number;
  /** Whether the plan can be bought in the product; enterprise goes through a sales enquiry. */
  selfServe: boolean;
}

const freeFeatures = ['receipts_time', 'receipts_channel'] as const satisfies readonly Feature[];
const proFeatures = [...freeFeatures, 'receipts_location', 'receipts_device'] as const satisfies readonly Feature[];
const teamFeatures = [
  ...proFeatures,
  'seats',
  'workspaces',
  'policy',
  'branding',
  'sso',
  'scim',
  'custom_domains',
  'audit',
] as const satisfies readonly Feature[];

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

export const planTable: Readonly<Record<Plan, PlanDefinition>> = {
  free: { features: freeFeatures, fileBytes: 100 * MiB, selfServe: true },
  pro: { features: proFeatures, fileBytes: 5 * GiB, selfServe: true },
  team: { features: teamFeatures, fileBytes: 20 * GiB, selfServe: true },
  // Sold by enquiry only; an account moved to it by sales has everything Team has.
  enterprise: { features: teamFeatures, fileBytes: 20 * GiB, selfServe: false },
};

/** What an anonymous caller, or an account with no (or an unknown) plan, gets. */
export const defaultPlan: Plan = 'free';

/** A stored plan name as a plan; anything unknown counts as the default. */
export const planOf = (value: string | null | undefined): Plan =>
  value !== null && value !== undefined && Object.hasOwn(planTable, value) ? (value as Plan) : defaultPlan;

export const planIncludes = (plan: Plan, feature: Feature): boolean => planTable[plan].features.includes(feature);

export type Flags = Record<Feature, boolean> & { signed_in: boolean };

/** Feature flags as booleans, derived from the plan alone. */
export function flagsFor(plan: Plan, signedIn: boolean): Flags {
  const flags = Object.fromEntries(features.map((feature) => [feature, planIncludes(plan, feature)])) as Record<Feature, boolean>;
  return { ...flags, signed_in: signedIn };
}
