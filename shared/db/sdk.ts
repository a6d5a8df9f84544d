/**
 * The DynamoDB document client every function shares (one per container), and the command
 * classes the entity modules use. Functions reach this module only through client.ts, which
 * imports it on first use: the SDK is a chunk of its own in a function's package, loaded by the
 * first request that reads or writes the table, not with the handler (docs/decisions.md W3).
 * Endpoints come from the standard AWS_ENDPOINT_URL_* variables, so the same code reaches
 * DynamoDB Local or AWS. Tests and tools import it directly.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactGetCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';

let doc: DynamoDBDocumentClient | undefined;

export function db(): DynamoDBDocumentClient {
  doc ??= DynamoDBDocumentClient.from(new DynamoDBClient({ maxAttempts: 3 }), {
    marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
  });
  return doc;
}
