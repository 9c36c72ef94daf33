import { editCursor, encode } from './arbitraries.ts';
import { collectionOf, ownerOf, withLiveValues, type Fixtures } from './fixtures.ts';
import type { SentRequest } from './http.ts';
import type { Plan, Target } from './plans.ts';

// The request a run sends: its plan, with the live values (ids, tokens, cursors) of now.

/** The request a plan names, its live values taken from the fixtures now. */
export function resolve(plan: Plan, targets: Target[], fixtures: Fixtures): { request: SentRequest; listing: string } {
  const { route, path } = targets[plan.target]!;
  const method = plan.method ?? route.method;
  const owner = ownerOf(plan.credential);
  // A cursor of this user's, sent as given or changed, names its listing too (the endpoint whose
  // log it pages), unless the path ids are the part sent bad.
  const cursorChoice = plan.query.map(([, choice]) => choice).find((choice) => choice.kind === 'cursor' && choice.which === 'own');
  const paged = cursorChoice?.kind === 'cursor' && !plan.bad.includes('params') ? fixtures.cursorOf(route, owner, null, cursorChoice.index, 'own') : null;
  let listing = paged?.listing ?? route.path;
  if (!paged) {
    path.forEach((parameter, i) => {
      const choice = plan.params[i]!;
      let segment: string;
      if (choice.kind === 'live') {
        const live = fixtures.pick(collectionOf(route.path, parameter.name), choice.live, { whose: choice.whose, forDeletion: method === 'DELETE' });
        segment = encode(live ?? 'none_live');
      } else {
        segment = choice.raw ? choice.value : encode(choice.value);
      }
      listing = listing.replace(`{${parameter.name}}`, segment);
    });
  }
  const pairs = plan.query.flatMap(([name, choice]) => {
    if (choice.kind === 'text') return [`${encode(name)}=${choice.raw ? choice.value : encode(choice.value)}`];
    const live = choice === cursorChoice && paged ? paged : fixtures.cursorOf(route, owner, listing, choice.index, choice.which);
    // No cursor to send back: a good query leaves it out, a changed one changes another's.
    const base = live ?? (choice.edits === null ? null : fixtures.cursorOf(route, owner, listing, choice.index, 'foreign'));
    if (base === null) return [];
    return [`${encode(name)}=${encode(choice.edits === null ? base.value : editCursor(base.value, choice.edits))}`];
  });
  const headers: Record<string, string> = {};
  for (const [name, value] of plan.extraHeaders) headers[name] = value;
  for (const [name, choice] of plan.headers) {
    // A declared header names its pool: `x-delete-token` → `delete_token`.
    headers[name] = choice.kind === 'text' ? choice.value : (fixtures.pick(name.replace(/^x-/, '').replaceAll('-', '_'), choice.live, { whose: 'mine', forDeletion: false }) ?? 'none');
  }
  const authorization = fixtures.authorization(plan.credential);
  if (authorization !== undefined) headers.authorization = authorization;
  if (plan.contentType !== undefined) headers['content-type'] = plan.contentType;
  const body = plan.body.kind === 'none' ? undefined : plan.body.kind === 'json' ? withLiveValues(plan.body.text, fixtures, plan.target) : plan.body.value;
  return { request: { method, path: pairs.length > 0 ? `${listing}?${pairs.join('&')}` : listing, headers, ...(body === undefined ? {} : { body }) }, listing };
}
