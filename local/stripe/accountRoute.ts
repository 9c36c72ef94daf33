import type { StripeBilling } from './billing.ts';
import type { ReadAll, Specs } from './form.ts';
import type { StripeStore } from './store.ts';
import type { Webhooks } from './webhooks.ts';

/**
 * What the routes of the account's settings (account.ts and the modules it gathers) share. Kept
 * apart from account.ts so those modules need not import the file that imports them.
 */

/** The part of api.ts's context these routes read: they need no key, log or fault of their own. */
export interface AccountContext {
  billing: StripeBilling;
  webhooks: Webhooks;
  store: StripeStore;
}

export interface AccountRoute<H extends Specs = Specs> {
  method: 'GET' | 'POST' | 'DELETE';
  path: RegExp;
  params: H;
  handle(context: AccountContext, params: ReadAll<H>, id: string): { status?: number; body: object };
}

/** Typed by its own parameters where it is written, stored beside routes of other parameters. */
export const route = <H extends Specs>(definition: AccountRoute<H>): AccountRoute => definition as unknown as AccountRoute;
export const expandable = { expand: 'strings' } as const;
export const pageParams = { limit: 'integer', starting_after: 'string', ending_before: 'string' } as const;
export const id = '([A-Za-z0-9_]+)';

export const isUrl = (value: string) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol);

const firstRead = new WeakMap<StripeStore, number>();

/**
 * When the account's settings came to be: the first time any of them was read. The webhook
 * endpoints and the portal's configuration keep their own state, but are dated by this one
 * moment, as if made together, whichever is read first and however the clock moved since.
 */
export function accountCreated({ store, billing }: AccountContext): number {
  let created = firstRead.get(store);
  if (created === undefined) firstRead.set(store, (created = billing.now()));
  return created;
}
