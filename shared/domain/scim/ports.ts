import type { AuditRow } from '../workspaces/model.ts';
import type { ScimUser, ScimUserAttributes } from './model.ts';

/** The account a User is: one per address, made (when new) before the User. */
export interface ScimAccount {
  userId: string;
  email: string;
}

/**
 * Where a page of a listing begins: after the User `afterId` (the last of the page before), and,
 * for a filtered listing, the totalResults its first page counted (a filter's matches are only
 * counted by reading every User; the unfiltered count is kept).
 */
export interface ScimPageStart {
  afterId: string;
  total?: number | undefined;
}

/**
 * A workspace's provisioned Users. userName (case-insensitively) and externalId are unique per
 * workspace by conditions, and an active User is a member holding a seat: every change is one
 * transaction with its audit row, the seat a condition on the roster. Only the membership goes
 * with a User (deactivated or deleted); the account stays (rule 6).
 */
export interface ScimUserStore {
  /**
   * `duplicate` when the userName, the externalId or the account (another User is it) is taken; `no_seat` when an active User
   * finds every seat used; `already_member` when the account is a member already: the User is
   * made and linked to that membership, no second seat taken.
   */
  create(
    workspaceId: string,
    id: string,
    attributes: ScimUserAttributes,
    account: ScimAccount,
    now: number,
    audit: AuditRow,
  ): Promise<'created' | 'duplicate' | 'no_seat' | 'already_member'>;
  get(workspaceId: string, id: string): Promise<ScimUser | null>;
  byUserName(workspaceId: string, userName: string): Promise<ScimUser | null>;
  byExternalId(workspaceId: string, externalId: string): Promise<ScimUser | null>;
  /** Every User of the workspace, in id order: reads them all (a bench's baseline, tests); pages use `listAfter`. */
  list(workspaceId: string): Promise<ScimUser[]>;
  /**
   * At most `limit` Users in id order (the order pages rely on), those after the id `after` (any
   * string, a User's or one since deleted) or from the first; `more` when others follow.
   */
  listAfter(workspaceId: string, after: string | null, limit: number): Promise<{ users: ScimUser[]; more: boolean }>;
  /** How many Users the workspace has. */
  count(workspaceId: string): Promise<number>;
  /**
   * Where the page at `startIndex` of `listing` (a filter's text, '' for none) begins, as a page
   * that ended just before it remembered it within the last hour; null otherwise.
   */
  pageStart(workspaceId: string, listing: string, startIndex: number, now: number): Promise<ScimPageStart | null>;
  /** Remembers where the page at `startIndex` of `listing` begins, for an hour. */
  rememberPageStart(workspaceId: string, listing: string, startIndex: number, start: ScimPageStart, now: number): Promise<void>;
  /**
   * The User's attributes replaced, if its version is still `previousVersion` (`conflict`
   * otherwise, or when it is gone). Deactivating removes the membership and gives its seat back;
   * reactivating takes a seat (`no_seat`). `privileged` when the membership to remove is an
   * admin's or the owner's: the directory never removes those.
   */
  replace(
    workspaceId: string,
    id: string,
    attributes: ScimUserAttributes,
    previousVersion: number,
    now: number,
    audit: AuditRow,
  ): Promise<'replaced' | 'conflict' | 'duplicate' | 'no_seat' | 'privileged'>;
  /** The User and (when active) its membership, the seat given back; the account stays. */
  delete(workspaceId: string, id: string, audit: AuditRow): Promise<'deleted' | 'gone' | 'conflict' | 'privileged'>;
}
