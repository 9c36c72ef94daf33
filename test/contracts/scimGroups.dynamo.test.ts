import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { newScimGroupId } from '../../shared/ids.ts';
import { scimGroupPageKey } from '../../shared/store/items/index.ts';
import { DynamoScimGroupStore } from '../../shared/store/scimGroups.ts';
import { StoppedClock } from '../support/clock.ts';
import { dynamoLocal } from './dynamoLocal.ts';
import { describeScimGroupStoreContract } from './scimGroupStore.contract.ts';
import { audit, makeWorkspace, t0 } from './workspaceFixtures.ts';
import { dynamoWorkspaceWorld } from './workspaceWorld.ts';

/** The SCIM Groups store's contract against DynamoDB Local (no runtime: the emulator alone). */
const dynamo = dynamoLocal();
describeScimGroupStoreContract('dynamo', async () => ({
  world: dynamoWorkspaceWorld(dynamo.db, dynamo.tableName),
  groups: new DynamoScimGroupStore(dynamo.db, dynamo.tableName, new StoppedClock()),
}));

describe('DynamoScimGroupStore pages', () => {
  it('reads a remembered page end past its ttl as gone (DynamoDB deletes expired items late)', async () => {
    const clock = new StoppedClock();
    const groups = new DynamoScimGroupStore(dynamo.db, dynamo.tableName, clock);
    const ws = (await makeWorkspace(dynamoWorkspaceWorld(dynamo.db, dynamo.tableName))).workspace.id;
    for (let i = 0; i < 4; i++) {
      const group = {
        id: newScimGroupId(),
        workspaceId: ws,
        displayName: `G${i}`,
        members: [],
        createdAt: t0,
        lastModified: t0,
        version: 1,
      };
      expect(await groups.create(group, { adminGroupId: null }, [], audit(ws, 'scim.group_created'))).toBe('created');
    }
    const all = (await groups.page(ws, 1, 4)).groups.map((group) => group.id);
    // Where page 3 starts, remembered wrong and expired but not yet deleted: not followed.
    const item = { ...scimGroupPageKey(ws, 3), type: 'scim_group_page', after_id: all[3], ttl: Math.floor(clock.now() / 1000) - 1 };
    await dynamo.db.send(new PutCommand({ TableName: dynamo.tableName, Item: item }));
    expect((await groups.page(ws, 3, 2)).groups.map((group) => group.id)).toEqual(all.slice(2, 4));
    // Remembered afresh by that page, then followed.
    expect((await groups.page(ws, 1, 2)).groups.map((group) => group.id)).toEqual(all.slice(0, 2));
    expect((await groups.page(ws, 3, 2)).groups.map((group) => group.id)).toEqual(all.slice(2, 4));
  });
});
