import type { Language } from '../../languages.ts';
import { Unauthenticated } from '../refusals.ts';
import type { User } from './model.ts';
import type { UserStore } from './ports.ts';

/** The signed-in account as its own page shows it: who it is, and the language its mails go out in. */
export interface AccountProfile {
  id: string;
  email: string;
  /** Null: none chosen (mails follow the language each request asks in, else English). */
  locale: Language | null;
}

const profileOf = (user: User): AccountProfile => ({ id: user.id, email: user.email, locale: user.locale ?? null });

/** A session whose account is gone (no route removes accounts today): refused as a stale credential is. */
const accountGone = () => new Unauthenticated('This session’s account no longer exists: sign in again.');

export async function readAccount(userId: string, ports: { users: Pick<UserStore, 'get'> }): Promise<AccountProfile> {
  const user = await ports.users.get(userId);
  if (!user) throw accountGone();
  return profileOf(user);
}

/**
 * Saves the language of the account's mails (issue 32): one of the ten, or null to forget it.
 * It is the account's for the mails its reader did not ask for (invitations, billing notices,
 * …) and for those asked for without a language (an API client's sign-in, say).
 */
export async function setAccountLocale(
  userId: string,
  locale: Language | null,
  ports: { users: Pick<UserStore, 'setLocale'> },
): Promise<AccountProfile> {
  const user = await ports.users.setLocale(userId, locale);
  if (!user) throw accountGone();
  return profileOf(user);
}
