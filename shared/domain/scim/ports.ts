import type { AuditRow } from '../workspaces/model.ts';
import type { ScimUser, ScimUserAttributes } from './model.ts';

/** The account a User is: one per address, made (when new) before the User. */
export interface ScimAccount {
  userId: string;
  email: string;
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
  /** Every User of the workspace, oldest first (created_at, then id): the order pages rely on. */
  list(workspaceId: string): Promise<ScimUser[]>;
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
