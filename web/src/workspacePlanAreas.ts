/**
 * What a workspace's plan leaves out (ADR 0181): instead of a disabled form for each of Team's
 * areas, the page's "More with Team" section says in one line what each is and how to get it:
 * the owner buys Team (the plans page), anyone else asks the owner.
 */
import { planIncludes, type Feature } from '../../shared/domain/plans.ts';
import { byId, element } from './dom.ts';
import { t, tNodes } from './i18n.ts';
import { planName } from './workspaceAuditValues.ts';
import type { Role, WorkspacePlan } from './workspacesApi.ts';

export type PlanArea = 'policy' | 'branding' | 'domains' | 'sso';

/** Each area's feature; its name is its section's (`workspace.section.<area>`), its line `workspace.team.what.<area>`. */
const areas: readonly { area: PlanArea; feature: Feature }[] = [
  { area: 'policy', feature: 'policy' },
  { area: 'branding', feature: 'branding' },
  { area: 'domains', feature: 'custom_domains' },
  { area: 'sso', feature: 'sso' },
];

/** Whether the plan has the area. */
export const planHas = (plan: WorkspacePlan, area: PlanArea): boolean =>
  planIncludes(plan, areas.find((each) => each.area === area)!.feature);

/**
 * Writes one line for each of `missing` (the areas the caller's role would see but the plan
 * lacks), each with the way to get it for this caller.
 */
export function renderPlanAreas(plan: WorkspacePlan, role: Role, missing: readonly PlanArea[]): void {
  byId('team-lede').textContent = t('workspace.team.lede', { plan: planName(plan) });
  byId('team-areas').replaceChildren(
    ...areas
      .filter((each) => missing.includes(each.area))
      .map(({ area }) => {
        const line = element('li');
        line.dataset.area = area;
        const owner = role === 'owner';
        const how = element('a', '', owner ? t('workspace.team.buyTeam') : t('workspace.team.seePlans'));
        how.href = '/plans';
        const values = { name: element('strong', '', t(`workspace.section.${area}`)), what: t(`workspace.team.what.${area}`), link: how };
        line.append(...tNodes(owner ? 'workspace.team.lineOwner' : 'workspace.team.lineOther', values));
        return line;
      }),
  );
}
