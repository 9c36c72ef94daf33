import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { toEpochSeconds } from '../clock.ts';
import type { InvitationReads } from '../domain/workspaces/invitationPreview.ts';
import type { Actor, InvitationToken, MembershipChanges } from '../domain/workspaces/ports.ts';
import type { AuditRow, Invitation, Member, Role } from '../domain/workspaces/model.ts';
import { invitationKey, invitationTokenKey as tokenKey, type InvitationItem, type InvitationTokenItem } from './items/index.ts';
import { directJoin, invitationJoins, memberSeatFreed, ownersChanged, seatGivenBack, seatTaken } from './workspaceRoster.ts';
import {
  memberJoins,
  memberLeaves,
  memberRoleWrite,
  tokenKeptSeconds,
  toInvitation,
  toToken,
  WorkspaceTable,
  type TransactWriteItem,
} from './workspaceItems.ts';

/**
 * Who is in a workspace, changed (the layout is in items/workspaces.ts; invitations and their
 * tokens are this store's, members and the roster are changed through their parts): invitations taking a seat
 * and giving it back, accepting, removing, roles and the hand-over. Each change is one
 * transaction with its audit row and a check of the actor's role; seats and the last owner are
 * conditions on the roster item.
 */
export class DynamoMembershipChanges extends WorkspaceTable implements MembershipChanges, InvitationReads {
  async invite(invitation: Invitation, actor: Actor, audit: AuditRow): Promise<'invited' | 'no_seat' | 'refused'> {
    const refused = await this.transact([
      seatTaken(this.tableName, invitation.workspaceId),
      this.put(
        {
          ...invitationKey(invitation.workspaceId, invitation.id),
          type: 'invitation',
          id: invitation.id,
          workspace_id: invitation.workspaceId,
          email: invitation.email,
          role: invitation.role,
          created_at: invitation.createdAt,
          expires_at: invitation.expiresAt,
          invited_by: invitation.invitedBy,
          token_hash: invitation.tokenHash,
        } satisfies InvitationItem,
        'attribute_not_exists(pk)',
      ),
      this.put(
        {
          ...tokenKey(invitation.tokenHash),
          type: 'invitation_token',
          token_hash: invitation.tokenHash,
          workspace_id: invitation.workspaceId,
          invitation_id: invitation.id,
          email: invitation.email,
          role: invitation.role,
          expires_at: invitation.expiresAt,
          state: 'pending',
          ttl: toEpochSeconds(invitation.expiresAt) + tokenKeptSeconds,
        } satisfies InvitationTokenItem,
        'attribute_not_exists(pk)',
      ),
      this.actorCheck(invitation.workspaceId, actor),
      this.audit(audit),
    ]);
    if (!refused) return 'invited';
    return refused[0] === 'ConditionalCheckFailed' ? 'no_seat' : 'refused';
  }

  /** Ends a pending invitation (its token `state`) and gives its seat back, with the audit row. */
  private endInvitation(
    invitation: Invitation,
    state: 'revoked' | 'expired',
    audit: AuditRow,
    extra: TransactWriteItem[],
    now: number,
  ): TransactWriteItem[] {
    return [
      {
        Delete: {
          TableName: this.tableName,
          Key: invitationKey(invitation.workspaceId, invitation.id),
          ConditionExpression: state === 'expired' ? 'attribute_exists(pk) AND expires_at <= :now' : 'attribute_exists(pk)',
          ...(state === 'expired' ? { ExpressionAttributeValues: { ':now': now } } : {}),
        },
      },
      {
        Update: {
          TableName: this.tableName,
          Key: tokenKey(invitation.tokenHash),
          UpdateExpression: 'SET #state = :state',
          ConditionExpression: '#state = :pending',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':state': state === 'revoked' ? 'revoked' : 'pending', ':pending': 'pending' },
        },
      },
      seatGivenBack(this.tableName, invitation.workspaceId),
      ...extra,
      this.audit(audit),
    ];
  }

  async reclaimExpired(invitation: Invitation, now: number, audit: AuditRow): Promise<boolean> {
    return (await this.transact(this.endInvitation(invitation, 'expired', audit, [], now))) === null;
  }

  async revokeInvitation(invitation: Invitation, actor: Actor, audit: AuditRow): Promise<'revoked' | 'gone' | 'refused'> {
    const refused = await this.transact(
      this.endInvitation(invitation, 'revoked', audit, [this.actorCheck(invitation.workspaceId, actor)], 0),
    );
    if (!refused) return 'revoked';
    return refused[3] === 'ConditionalCheckFailed' ? 'refused' : 'gone';
  }

  async invitation(workspaceId: string, invitationId: string): Promise<Invitation | null> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: invitationKey(workspaceId, invitationId), ConsistentRead: true }),
    );
    return Item ? toInvitation(Item) : null;
  }

  async invitationToken(tokenHash: string): Promise<InvitationToken | null> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: tokenKey(tokenHash), ConsistentRead: true }));
    return Item ? toToken(Item) : null;
  }

  async accept(
    token: InvitationToken,
    member: Member,
    now: number,
    audit: AuditRow,
  ): Promise<'joined' | 'gone' | 'already_member' | 'no_seat'> {
    const useToken: TransactWriteItem = {
      Update: {
        TableName: this.tableName,
        Key: tokenKey(token.tokenHash),
        UpdateExpression: 'SET #state = :used',
        ConditionExpression: '#state = :pending AND expires_at > :now',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':used': 'used', ':pending': 'pending', ':now': now },
      },
    };
    const leaveRoll: TransactWriteItem = {
      Delete: {
        TableName: this.tableName,
        Key: invitationKey(token.workspaceId, token.invitationId),
        ConditionExpression: 'attribute_exists(pk)',
      },
    };
    const refused = await this.transact([
      useToken,
      leaveRoll,
      memberJoins(this.tableName, member),
      // The invitation held the seat: it becomes the member's.
      invitationJoins(this.tableName, token.workspaceId),
      this.audit(audit),
    ]);
    if (!refused) return 'joined';
    if (refused[0] === 'ConditionalCheckFailed' || refused[1] === 'ConditionalCheckFailed') return 'gone';
    if (refused[3] === 'ConditionalCheckFailed' && refused[2] !== 'ConditionalCheckFailed') return 'no_seat';
    // Already a member (joined another way meanwhile): the token is used and its seat given back.
    const settled = await this.transact([
      useToken,
      leaveRoll,
      seatGivenBack(this.tableName, token.workspaceId),
      this.audit({ ...audit, details: { ...audit.details, already_member: true } }),
    ]);
    return settled ? 'gone' : 'already_member';
  }

  /** A member made as they sign in through the workspace's SSO (`sso_jit`): a seat taken and a member counted, both within the seats. */
  async joinBySso(member: Member, audit: AuditRow): Promise<'joined' | 'already_member' | 'no_seat'> {
    const refused = await this.transact([
      memberJoins(this.tableName, member),
      directJoin(this.tableName, member.workspaceId),
      this.audit(audit),
    ]);
    if (!refused) return 'joined';
    return refused[0] === 'ConditionalCheckFailed' ? 'already_member' : 'no_seat';
  }

  async removeMember(member: Member, actor: Actor | null, audit: AuditRow): Promise<'removed' | 'last_owner' | 'changed'> {
    const owner = member.role === 'owner';
    const refused = await this.transact([
      memberLeaves(this.tableName, member.workspaceId, member.userId, member.role),
      memberSeatFreed(this.tableName, member.workspaceId, owner),
      ...(actor && actor.userId !== member.userId ? [this.actorCheck(member.workspaceId, actor)] : []),
      this.audit(audit),
    ]);
    if (!refused) return 'removed';
    return refused[1] === 'ConditionalCheckFailed' && refused[0] !== 'ConditionalCheckFailed' ? 'last_owner' : 'changed';
  }

  /** A member's new role, if the role is still the one read. */
  private setRole(member: Member, role: Role): TransactWriteItem {
    return memberRoleWrite(this.tableName, member, role);
  }

  async changeRole(member: Member, role: Role, actor: Actor, audit: AuditRow): Promise<'changed' | 'last_owner' | 'conflict'> {
    const delta = (role === 'owner' ? 1 : 0) - (member.role === 'owner' ? 1 : 0);
    const refused = await this.transact([
      this.setRole(member, role),
      ...(delta === 0 ? [] : [ownersChanged(this.tableName, member.workspaceId, delta)]),
      ...(actor.userId === member.userId ? [] : [this.actorCheck(member.workspaceId, actor)]),
      this.audit(audit),
    ]);
    if (!refused) return 'changed';
    return delta < 0 && refused[1] === 'ConditionalCheckFailed' && refused[0] !== 'ConditionalCheckFailed' ? 'last_owner' : 'conflict';
  }

  async transfer(from: Member, to: Member, audit: AuditRow): Promise<'transferred' | 'conflict'> {
    // The target becoming owner adds one; the previous owner becoming admin takes one away.
    const delta = (to.role === 'owner' ? 0 : 1) - 1;
    const refused = await this.transact([
      this.setRole(to, 'owner'),
      this.setRole(from, 'admin'),
      ...(delta === 0 ? [] : [ownersChanged(this.tableName, from.workspaceId, delta)]),
      this.audit(audit),
    ]);
    return refused ? 'conflict' : 'transferred';
  }
}
