/**
 * DynamoDB's API as the kit calls it: the eight operations it uses, with items as plain objects,
 * sent as the documented JSON protocol (`X-Amz-Target: DynamoDB_20120810.<Operation>`) on
 * {@link signedAwsPost} instead of the SDK's DynamoDB and document clients. Those two clients
 * carried the SDK's whole schema and serde machinery into every function (about 200 KiB of the
 * webhook's bundle, docs/PERFORMANCE.md); this keeps what the kit relied on: the SDK's credentials,
 * endpoint, retry strategy and error names, `removeUndefinedValues` and `convertClassInstanceToMap`
 * marshalling (the SDK's own `@aws-sdk/util-dynamodb`), `$metadata.attempts`, and a transaction's
 * cancellation reasons on its error. Only the kit imports it.
 */
import type {
  BatchGetCommandInput,
  BatchGetCommandOutput,
  BatchWriteCommandInput,
  BatchWriteCommandOutput,
  DeleteCommandInput,
  DeleteCommandOutput,
  GetCommandInput,
  GetCommandOutput,
  PutCommandInput,
  PutCommandOutput,
  QueryCommandInput,
  QueryCommandOutput,
  TransactWriteCommandInput,
  TransactWriteCommandOutput,
  UpdateCommandInput,
  UpdateCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { type AwsCallOptions, AwsApiError, signedAwsPost, type SignedAwsPost } from '../aws/signed-aws-post';

/** Each operation the kit calls, with the document client's input and output shapes. */
export interface DocumentOperations {
  GetItem: [GetCommandInput, GetCommandOutput];
  PutItem: [PutCommandInput, PutCommandOutput];
  UpdateItem: [UpdateCommandInput, UpdateCommandOutput];
  DeleteItem: [DeleteCommandInput, DeleteCommandOutput];
  Query: [QueryCommandInput, QueryCommandOutput];
  TransactWriteItems: [TransactWriteCommandInput, TransactWriteCommandOutput];
  BatchGetItem: [BatchGetCommandInput, BatchGetCommandOutput];
  BatchWriteItem: [BatchWriteCommandInput, BatchWriteCommandOutput];
}

export type DocumentOperation = keyof DocumentOperations;

/** The table's API with items as plain objects: what the kit calls. */
export interface DynamoDocuments {
  call<Operation extends DocumentOperation>(operation: Operation, input: DocumentOperations[Operation][0]): Promise<DocumentOperations[Operation][1]>;
}

type Document = Record<string, unknown>;
type Attributes = Record<string, unknown>;

const DYNAMODB = { endpointPrefix: 'dynamodb', signingName: 'dynamodb', endpointVariable: 'AWS_ENDPOINT_URL_DYNAMODB' };
const MARSHALL_OPTIONS = { removeUndefinedValues: true, convertClassInstanceToMap: true };

const toAttributes = (document: Document | undefined): Attributes | undefined => (document === undefined ? undefined : marshall(document, MARSHALL_OPTIONS));
const toDocument = (attributes: Attributes | undefined): Document | undefined => (attributes === undefined ? undefined : unmarshall(attributes as never));
const toDocuments = (list: readonly Attributes[] | undefined) => list?.map((attributes) => unmarshall(attributes as never));

/** An action's item, key and values marshalled: a put, update, delete or condition check, alone or in a transaction. */
function marshalledAction(action: Document | undefined): Document | undefined {
  if (action === undefined) return undefined;
  const { Item, Key, ExpressionAttributeValues } = action as { Item?: Document; Key?: Document; ExpressionAttributeValues?: Document };
  return { ...action, Item: toAttributes(Item), Key: toAttributes(Key), ExpressionAttributeValues: toAttributes(ExpressionAttributeValues) };
}

/** The wire input of `operation`: every item, key and expression value in DynamoDB's attribute values. */
function wireInput(operation: DocumentOperation, input: Document): Document {
  switch (operation) {
    case 'Query': {
      const { ExpressionAttributeValues, ExclusiveStartKey } = input as { ExpressionAttributeValues?: Document; ExclusiveStartKey?: Document };
      return { ...input, ExpressionAttributeValues: toAttributes(ExpressionAttributeValues), ExclusiveStartKey: toAttributes(ExclusiveStartKey) };
    }
    case 'TransactWriteItems': {
      const items = (input as { TransactItems?: Document[] }).TransactItems ?? [];
      return { ...input, TransactItems: items.map((item) => Object.fromEntries(Object.entries(item).map(([kind, action]) => [kind, marshalledAction(action as Document)]))) };
    }
    case 'BatchGetItem': {
      const requests = (input as { RequestItems?: Record<string, { Keys?: Document[] }> }).RequestItems ?? {};
      return { ...input, RequestItems: Object.fromEntries(Object.entries(requests).map(([table, request]) => [table, { ...request, Keys: request.Keys?.map((key) => toAttributes(key)) }])) };
    }
    case 'BatchWriteItem': {
      const requests = (input as { RequestItems?: Record<string, Document[]> }).RequestItems ?? {};
      return { ...input, RequestItems: Object.fromEntries(Object.entries(requests).map(([table, writes]) => [table, writes.map(marshalledWrite)])) };
    }
    default:
      return marshalledAction(input)!;
  }
}

function marshalledWrite(write: Document): Document {
  const { PutRequest, DeleteRequest } = write as { PutRequest?: { Item: Document }; DeleteRequest?: { Key: Document } };
  return PutRequest ? { PutRequest: { Item: toAttributes(PutRequest.Item) } } : { DeleteRequest: { Key: toAttributes(DeleteRequest?.Key) } };
}

function unmarshalledWrite(write: Document): Document {
  const { PutRequest, DeleteRequest } = write as { PutRequest?: { Item: Attributes }; DeleteRequest?: { Key: Attributes } };
  return PutRequest ? { PutRequest: { Item: toDocument(PutRequest.Item) } } : { DeleteRequest: { Key: toDocument(DeleteRequest?.Key) } };
}

/** The output of `operation` with its items as plain objects. */
function documentOutput(output: Document): Document {
  const { Item, Items, Attributes, LastEvaluatedKey, Responses, UnprocessedKeys, UnprocessedItems } = output as {
    Item?: Attributes;
    Items?: Attributes[];
    Attributes?: Attributes;
    LastEvaluatedKey?: Attributes;
    Responses?: Record<string, Attributes[]>;
    UnprocessedKeys?: Record<string, { Keys?: Attributes[] }>;
    UnprocessedItems?: Record<string, Document[]>;
  };
  return {
    ...output,
    ...(Item && { Item: toDocument(Item) }),
    ...(Items && { Items: toDocuments(Items) }),
    ...(Attributes && { Attributes: toDocument(Attributes) }),
    ...(LastEvaluatedKey && { LastEvaluatedKey: toDocument(LastEvaluatedKey) }),
    ...(Responses && { Responses: Object.fromEntries(Object.entries(Responses).map(([table, items]) => [table, toDocuments(items)])) }),
    ...(UnprocessedKeys && { UnprocessedKeys: Object.fromEntries(Object.entries(UnprocessedKeys).map(([table, request]) => [table, { ...request, Keys: toDocuments(request.Keys) }])) }),
    ...(UnprocessedItems && { UnprocessedItems: Object.fromEntries(Object.entries(UnprocessedItems).map(([table, writes]) => [table, writes.map(unmarshalledWrite)])) }),
  };
}

/** The error as the SDK raises it: a transaction's `CancellationReasons` and a failed condition's `Item` on it, as plain objects. */
function documentError(error: unknown): unknown {
  if (!(error instanceof AwsApiError)) return error;
  const { CancellationReasons, Item } = error.body as { CancellationReasons?: (Document & { Item?: Attributes })[]; Item?: Attributes };
  if (CancellationReasons) Object.assign(error, { CancellationReasons: CancellationReasons.map((reason) => ({ ...reason, ...(reason.Item && { Item: toDocument(reason.Item) }) })) });
  if (Item) Object.assign(error, { Item: toDocument(Item) });
  return error;
}

/** The table's API over SigV4-signed JSON requests; `options` as for any {@link signedAwsPost} service. */
export class SignedDynamoDocuments implements DynamoDocuments {
  private readonly post: SignedAwsPost;

  constructor(options: AwsCallOptions = {}) {
    this.post = signedAwsPost(DYNAMODB, options);
  }

  async call<Operation extends DocumentOperation>(operation: Operation, input: DocumentOperations[Operation][0]): Promise<DocumentOperations[Operation][1]> {
    const body = new TextEncoder().encode(JSON.stringify(wireInput(operation, input as Document)));
    const headers = { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `DynamoDB_20120810.${operation}` };
    let answer;
    try {
      answer = await this.post('/', { headers, body });
    } catch (error) {
      throw documentError(error);
    }
    const output = JSON.parse(new TextDecoder().decode(answer.payload)) as Document;
    return { ...documentOutput(output), $metadata: { httpStatusCode: answer.status, attempts: answer.attempts } } as DocumentOperations[Operation][1];
  }
}
