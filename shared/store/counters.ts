import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Counters } from '../domain/counters.ts';
import { counterKey as key } from './items/index.ts';

export class DynamoCounters implements Counters {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async add(name: string, day: string, counts: Record<string, number>): Promise<void> {
    const entries = Object.entries(counts);
    if (entries.length === 0) return;
    // Counter names come from validated enums; they are still passed as aliases, never spliced in.
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: key(name, day),
        UpdateExpression: `ADD ${entries.map((_, i) => `#c${i} :v${i}`).join(', ')}`,
        ExpressionAttributeNames: Object.fromEntries(entries.map(([counter], i) => [`#c${i}`, `n_${counter}`])),
        ExpressionAttributeValues: Object.fromEntries(entries.map(([, value], i) => [`:v${i}`, value])),
      }),
    );
  }

  async read(name: string, day: string): Promise<Record<string, number>> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: key(name, day) }));
    return Object.fromEntries(
      Object.entries(Item ?? {})
        .filter(([attribute]) => attribute.startsWith('n_'))
        .map(([attribute, value]) => [attribute.slice(2), Number(value)]),
    );
  }
}
