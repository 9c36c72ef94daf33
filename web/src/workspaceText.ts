/**
 * The plans' names, as every page writes them: names, the same in every language (the glossary),
 * so they come from no catalogue. Roles and where a member came from are words, and are the
 * catalogues' (`workspaceWords`).
 */
import type { WorkspacePlan } from './workspacesApi.ts';

const planLabels: Record<WorkspacePlan, string> = { free: 'Free', pro: 'Pro', team: 'Team', enterprise: 'Enterprise' };

export const planLabel = (plan: string): string => planLabels[plan as WorkspacePlan] ?? plan;
