import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SeatChoice } from '../domain/billing/ports.ts';
import type { Roster } from '../domain/workspaces/model.ts';
import { isConditionFailure } from './client.ts';
import { rosterKey, type RosterItem } from './items/index.ts';
import type { TransactWriteItem } from './workspaceItems.ts';

/**
 * The roster's store: every write of a workspace's roster (`ROSTER`: seats, seats used, owners,
 * members, a contract's seats) is one of these parts, which the workspace, membership, SCIM,
 * billing and contract stores put in their transactions. Its invariants are the conditions here:
 * used ≤ seats and members ≤ seats (no one joins into a seat that is not there, seats never go
 * below the members), owners ≥ 1, and a contract's seats are sales' alone.
 */
const update = (
  tableName: string,
  workspaceId: string,
  change: { UpdateExpression: string; ConditionExpression?: string; ExpressionAttributeValues?: Record<string, unknown> },
): TransactWriteItem => ({
  Update: { TableName: tableName, Key: rosterKey(workspaceId), ...change },
});

/** A new workspace's roster. */
export const rosterMade = (tableName: string, workspaceId: string, roster: Roster): TransactWriteItem => ({
  Put: {
    TableName: tableName,
    Item: { ...rosterKey(workspaceId), type: 'roster', ...roster } satisfies RosterItem,
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

/** An invitation takes a seat, if one is free. */
export const seatTaken = (tableName: string, workspaceId: string) =>
  update(tableName, workspaceId, {
    UpdateExpression: 'SET used = used + :one',
    ConditionExpression: 'used < seats',
    ExpressionAttributeValues: { ':one': 1 },
  });

/** An invitation's seat given back (revoked, expired, or its person a member already). */
export const seatGivenBack = (tableName: string, workspaceId: string) =>
  update(tableName, workspaceId, { UpdateExpression: 'SET used = used - :one', ExpressionAttributeValues: { ':one': 1 } });

/**
 * The invitation's seat becomes the member's. Seats lowered since (never below the members) may
 * leave pending invitations over them: those cannot join.
 */
export const invitationJoins = (tableName: string, workspaceId: string) =>
  update(tableName, workspaceId, {
    UpdateExpression: 'SET members = members + :one',
    ConditionExpression: 'members < seats',
    ExpressionAttributeValues: { ':one': 1 },
  });

/** A member joins without an invitation (SCIM): a seat taken and a member counted, both within the seats. */
export const directJoin = (tableName: string, workspaceId: string) =>
  update(tableName, workspaceId, {
    UpdateExpression: 'SET members = members + :one, used = used + :one',
    ConditionExpression: 'members < seats AND used < seats',
    ExpressionAttributeValues: { ':one': 1 },
  });

/** A member leaves and gives their seat back; an owner only while another owner stays. */
export const memberSeatFreed = (tableName: string, workspaceId: string, owner: boolean) =>
  update(
    tableName,
    workspaceId,
    owner
      ? {
          UpdateExpression: 'SET used = used - :one, members = members - :one, owners = owners - :one',
          ConditionExpression: 'owners > :one',
          ExpressionAttributeValues: { ':one': 1 },
        }
      : { UpdateExpression: 'SET used = used - :one, members = members - :one', ExpressionAttributeValues: { ':one': 1 } },
  );

/** Owners counted up or down; never the last one away (two owners demoting each other at once leave one). */
export const ownersChanged = (tableName: string, workspaceId: string, delta: number) =>
  update(tableName, workspaceId, {
    UpdateExpression: 'SET owners = owners + :delta',
    ...(delta < 0 ? { ConditionExpression: 'owners > :one' } : {}),
    ExpressionAttributeValues: { ':delta': delta, ...(delta < 0 ? { ':one': 1 } : {}) },
  });

/**
 * The seats a subscription grants (billing, in the subscription's transaction): a number of
 * seats never below the members, or the members themselves; neither over a contract's
 * (`contract_seats`, set by sales' command). `unchanged` writes nothing.
 */
export const grantedSeats = (tableName: string, workspaceId: string, choice: SeatChoice): TransactWriteItem[] =>
  choice === 'unchanged'
    ? []
    : [
        update(
          tableName,
          workspaceId,
          choice === 'members'
            ? { UpdateExpression: 'SET seats = members', ConditionExpression: 'attribute_not_exists(contract_seats)' }
            : {
                UpdateExpression: 'SET seats = :seats',
                ConditionExpression: 'members <= :seats AND attribute_not_exists(contract_seats)',
                ExpressionAttributeValues: { ':seats': choice },
              },
        ),
      ];

/** A contract's seats (sales' command), never below the members; without a contract plan the seats stay and `contract_seats` goes. */
export const contractSeats = (tableName: string, workspaceId: string, seats: number, underContract: boolean) =>
  update(tableName, workspaceId, {
    UpdateExpression: underContract ? 'SET seats = :seats, contract_seats = :seats' : 'SET seats = :seats REMOVE contract_seats',
    ConditionExpression: 'members <= :seats',
    ExpressionAttributeValues: { ':seats': seats },
  });

/**
 * Lowers the seats before the provider is told of the change (billing's seat change), in the
 * one condition joins are checked against (`members < seats`: the two exclude each other).
 */
export async function lowerSeats(
  db: DynamoDBDocumentClient,
  tableName: string,
  workspaceId: string,
  seats: number,
): Promise<{ lowered: true; previous: number } | { lowered: false; members: number }> {
  try {
    const { Attributes } = await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: rosterKey(workspaceId),
        UpdateExpression: 'SET seats = :seats',
        ConditionExpression: 'attribute_exists(pk) AND members <= :seats',
        ExpressionAttributeValues: { ':seats': seats },
        ReturnValues: 'UPDATED_OLD',
      }),
    );
    return { lowered: true, previous: Number(Attributes!.seats) };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: rosterKey(workspaceId), ConsistentRead: true }));
    return { lowered: false, members: Number(Item?.members ?? 0) };
  }
}

/** Gives back seats lowered for a change the provider then refused: only what this change lowered (a later change, or the provider's own event, stands). */
export async function restoreSeats(
  db: DynamoDBDocumentClient,
  tableName: string,
  workspaceId: string,
  lowered: number,
  previous: number,
): Promise<void> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: rosterKey(workspaceId),
        UpdateExpression: 'SET seats = :previous',
        ConditionExpression: 'seats = :lowered',
        ExpressionAttributeValues: { ':previous': previous, ':lowered': lowered },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}
