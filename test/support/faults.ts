import { InternalServerError, TransactionCanceledException, TransactionConflictException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** One call as the table client is about to send it: the command and its (marshalled) input. */
export interface DynamoCall {
  command: string;
  input: Record<string, any>;
}

/**
 * Makes the runtime's DynamoDB client answer some calls the way AWS does and DynamoDB Local
 * never does: `fault` sees each call (each retry too) and returns the error to answer with,
 * or null to let it through to DynamoDB Local. Installed below the service's own conflict
 * retries (`retryTransactionConflicts`, step initialize), as AWS's answer would be.
 * Pass it as the runtime's `instrumentDynamo`.
 */
export function injectDynamoFaults(fault: (call: DynamoCall) => Error | null) {
  return (client: DynamoDBDocumentClient) => {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const error = fault({
          command: (context.commandName ?? '').replace(/Command$/, ''),
          input: (args.input ?? {}) as Record<string, any>,
        });
        if (error) throw error;
        return next(args);
      },
      { step: 'build', name: 'injectDynamoFaults' },
    );
  };
}

const metadata = { httpStatusCode: 400, attempts: 1, totalRetryDelay: 0 };

/** What DynamoDB answers a transaction that met another one on one of its items. */
export const transactionConflict = (items: number, conflicting = items - 1) =>
  new TransactionCanceledException({
    message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [TransactionConflict]',
    $metadata: metadata,
    CancellationReasons: Array.from({ length: items }, (_, index) =>
      index === conflicting ? { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' } : { Code: 'None' },
    ),
  });

/** What DynamoDB answers a single write to an item a transaction is busy with. */
export const writeConflict = () =>
  new TransactionConflictException({ message: 'Transaction is ongoing for the item', $metadata: metadata });

/** A fault the SDK has already retried and given up on. */
export const internalError = () =>
  new InternalServerError({ message: 'Internal server error', $metadata: { ...metadata, httpStatusCode: 500 } });
