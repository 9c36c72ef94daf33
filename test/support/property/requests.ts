import { editCursor, encode, mutate } from './arbitraries.ts';
import { mintBody, mintQueryValue } from './chat.ts';
import { collectionOf, ownerOf, withLiveValues, type Fixtures } from './fixtures.ts';
import type { SentRequest } from './http.ts';
import { withMember, type Plan, type Target } from './plans.ts';

// The request a run sends: its plan, with the live values (ids, tokens, cursors) of now.

/** The request a plan names, its live values taken from the fixtures, or made, now. */
export async function resolve(plan: Plan, targets: Target[], fixtures: Fixtures): Promise<{ request: SentRequest; listing: string }> {
  const { route, path } = targets[plan.target]!;
  const method = plan.method ?? route.method;
  const owner = ownerOf(plan.credential);
  // A cursor of this user's, sent as given or changed, names its listing too (the endpoint whose
  // log it pages), unless the path ids are the part sent bad.
  const cursorChoice = plan.query.map(([, choice]) => choice).find((choice) => choice.kind === 'cursor' && choice.which === 'own');
  const paged =
    cursorChoice?.kind === 'cursor' && !plan.bad.includes('params')
      ? fixtures.cursorOf(route, owner, null, cursorChoice.index, 'own')
      : null;
  let listing = paged?.listing ?? route.path;
  if (!paged) {
    path.forEach((parameter, i) => {
      const choice = plan.params[i]!;
      let segment: string;
      if (choice.kind === 'live') {
        const live = fixtures.pick(collectionOf(route.path, parameter.name), choice.live, {
          whose: choice.whose,
          forDeletion: method === 'DELETE',
        });
        segment = encode(live ?? 'none_live');
      } else {
        segment = choice.raw ? choice.value : encode(choice.value);
      }
      listing = listing.replace(`{${parameter.name}}`, segment);
    });
  }
  const minted = await Promise.all(
    plan.query.map(([, choice]) => (choice.kind === 'minted' ? mintQueryValue(choice.mint, fixtures) : null)),
  );
  const pairs = plan.query.flatMap(([name, choice], i) => {
    if (choice.kind === 'text') return [`${encode(name)}=${choice.raw ? choice.value : encode(choice.value)}`];
    if (choice.kind === 'minted') return [`${encode(name)}=${encode(minted[i]!)}`];
    const live = choice === cursorChoice && paged ? paged : fixtures.cursorOf(route, owner, listing, choice.index, choice.which);
    // No cursor to send back: a good query leaves it out, a changed one changes another's.
    const base = live ?? (choice.edits === null ? null : fixtures.cursorOf(route, owner, listing, choice.index, 'foreign'));
    if (base === null) return [];
    return [`${encode(name)}=${encode(choice.edits === null ? base.value : editCursor(base.value, choice.edits))}`];
  });
  // A minted body (a signed command) brings headers: a declared one sent live is the one it brought, changed or not.
  const made = plan.body.kind === 'minted' ? await mintBody(plan.body.body, fixtures, withMember) : null;
  const headers: Record<string, string> = {};
  for (const [name, value] of plan.extraHeaders) headers[name] = value;
  Object.assign(headers, made?.headers);
  for (const [name, choice] of plan.headers) {
    // A declared header names its pool: `x-delete-token` → `delete_token`.
    const brought = made?.headers[name];
    if (choice.kind === 'text') headers[name] = choice.value;
    else if (brought !== undefined)
      headers[name] = choice.live.how === undefined ? brought : mutate(brought, choice.live.how, choice.live.at ?? 0);
    else
      headers[name] =
        fixtures.pick(name.replace(/^x-/, '').replaceAll('-', '_'), choice.live, { whose: 'mine', forDeletion: false }) ?? 'none';
  }
  const authorization = fixtures.authorization(plan.credential);
  if (authorization !== undefined) headers.authorization = authorization;
  if (plan.contentType !== undefined) headers['content-type'] = plan.contentType;
  const body = made
    ? made.body
    : plan.body.kind === 'none'
      ? undefined
      : plan.body.kind === 'json'
        ? withLiveValues(plan.body.text, fixtures, plan.target)
        : plan.body.kind === 'raw'
          ? plan.body.value
          : undefined;
  return {
    request: {
      method,
      path: pairs.length > 0 ? `${listing}?${pairs.join('&')}` : listing,
      headers,
      ...(body === undefined ? {} : { body }),
    },
    listing,
  };
}
