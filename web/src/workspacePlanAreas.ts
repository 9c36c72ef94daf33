/**
 * What a workspace's plan leaves out (ADR 0181): instead of a disabled form for each of Team's
 * areas, the page's "More with Team" section says in one line what each is and how to get it:
 * the owner buys Team (the plans page), anyone else asks the owner.
 */
import { planIncludes, type Feature } from '../../shared/domain/plans.ts';
import { byId, element } from './dom.ts';
import type { Role, WorkspacePlan } from './workspacesApi.ts';
import { planLabel } from './workspaceText.ts';

export type PlanArea = 'policy' | 'branding' | 'domains' | 'sso';

const areas: readonly { area: PlanArea; feature: Feature; name: string; what: string }[] = [
  {
    area: 'policy',
    feature: 'policy',
    name: 'Policy',
    what: 'rules every secret, file and request link sent here keeps to: the longest expiry, the most views, a passphrase, recipients’ domains.',
  },
  {
    area: 'branding',
    feature: 'branding',
    name: 'Branding',
    what: 'your name, logo and colour at the top of the page that opens a secret sent from this workspace.',
  },
  {
    area: 'domains',
    feature: 'custom_domains',
    name: 'Domains',
    what: 'links on a hostname of your own, such as links.example.com, proved by a DNS record.',
  },
  {
    area: 'sso',
    feature: 'sso',
    name: 'Single sign-on',
    what: 'members sign in through your identity provider, and your directory adds and removes them.',
  },
];

/** Whether the plan has the area. */
export const planHas = (plan: WorkspacePlan, area: PlanArea): boolean =>
  planIncludes(plan, areas.find((each) => each.area === area)!.feature);

/**
 * Writes one line for each of `missing` (the areas the caller's role would see but the plan
 * lacks), each with the way to get it for this caller.
 */
export function renderPlanAreas(plan: WorkspacePlan, role: Role, missing: readonly PlanArea[]): void {
  byId('team-lede').textContent = `This workspace is on ${planLabel(plan)}. These come with the Team plan:`;
  byId('team-areas').replaceChildren(
    ...areas
      .filter((each) => missing.includes(each.area))
      .map(({ area, name, what }) => {
        const line = element('li');
        line.dataset.area = area;
        const how = element('a', '', role === 'owner' ? 'buy Team for this workspace' : 'see the plans');
        how.href = '/plans';
        line.append(element('strong', '', name), `: ${what} `, role === 'owner' ? 'To get it, ' : 'Its owner can add it: ', how, '.');
        return line;
      }),
  );
}
