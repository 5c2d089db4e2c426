import { childOf, childrenOf, readXml } from '../../../lambda/core/adapters/aws/xml-reader';
import { TABLE_SCHEMA } from '../../../lib/contract';
import { LOCAL_SECRET_ARNS } from '../../../local/runtime/local-plan';
import { type AgentService, bedrockIamRequests, lambdaIamRequests } from './agent-iam-requests';
import type { DeployedResource, DeploymentPermissions, PolicyDocument } from './deployment-permissions';
import { knowledgeBaseIamRequests } from './knowledge-base-requests';

/** One authorisation AWS makes for a request: an action on a resource, in a context, with the resource's own policy. */
export interface IamRequest {
  readonly action: string;
  readonly resource: string;
  readonly context: Readonly<Record<string, string | readonly string[]>>;
  /** The resource policy evaluated with the identity policies (a key policy, a queue policy). */
  readonly resourcePolicy?: PolicyDocument;
}

/** The services whose requests are evaluated, by signing name. */
export type EvaluatedService = 'dynamodb' | 'sqs' | 'secretsmanager' | 'social-messaging' | 's3' | 'transcribe' | AgentService;

type AttributeValue = { readonly S?: string };
type Key = Readonly<Record<string, AttributeValue>>;
type DynamoBody = Record<string, unknown>;

/**
 * The IAM requests AWS authorises for one DynamoDB call (`DynamoDB_20120810.<operation>`): each
 * item action on the table with `dynamodb:LeadingKeys` = the partition keys it touches (a
 * transaction per action inside it, a batch as its own action with every key of the batch), a
 * Query on the table or the index with the key condition's partition value; and, for a table
 * encrypted with a customer managed key, the `kms:Decrypt` DynamoDB asks on the caller's behalf.
 */
export function dynamoDbIamRequests(operation: string, body: DynamoBody, deployment: DeploymentPermissions): IamRequest[] {
  const { table } = deployment;
  const item = (action: string, keys: readonly (Key | undefined)[]): IamRequest => ({ action: `dynamodb:${action}`, resource: table.arn, context: leadingKeys(keys.map((key) => partitionOf(key))) });
  const requests = ((): IamRequest[] => {
    switch (operation) {
      case 'GetItem':
      case 'DeleteItem':
      case 'UpdateItem':
        return [item(operation, [body.Key as Key])];
      case 'PutItem':
        return [item(operation, [body.Item as Key])];
      case 'Query': {
        const indexName = body.IndexName as string | undefined;
        const partitionAttribute = indexName === TABLE_SCHEMA.gsi1.indexName ? TABLE_SCHEMA.gsi1.partitionKey : TABLE_SCHEMA.partitionKey;
        const resource = indexName === undefined ? table.arn : `${table.arn}/index/${indexName}`;
        return [{ action: 'dynamodb:Query', resource, context: leadingKeys([keyConditionPartition(body, partitionAttribute)]) }];
      }
      case 'BatchGetItem':
        return [item(operation, Object.values(body.RequestItems as Record<string, { Keys: Key[] }>).flatMap((request) => request.Keys))];
      case 'BatchWriteItem':
        return [
          item(
            operation,
            Object.values(body.RequestItems as Record<string, { PutRequest?: { Item: Key }; DeleteRequest?: { Key: Key } }[]>).flatMap((writes) =>
              writes.map((write) => write.PutRequest?.Item ?? write.DeleteRequest?.Key),
            ),
          ),
        ];
      case 'TransactWriteItems':
        return (body.TransactItems as Record<string, { Key?: Key; Item?: Key }>[]).map((action) => {
          const [kind, request] = Object.entries(action)[0];
          return item(TRANSACTION_ACTIONS[kind] ?? kind, [request.Key ?? request.Item]);
        });
      case 'TransactGetItems':
        return (body.TransactItems as { Get: { Key: Key } }[]).map(({ Get }) => item('GetItem', [Get.Key]));
      default:
        return [{ action: `dynamodb:${operation}`, resource: table.arn, context: {} }];
    }
  })();
  return [...requests, ...viaService(table, deployment, 'dynamodb', ['kms:Decrypt'])];
}

/** What DynamoDB authorises each action of a transaction as. */
const TRANSACTION_ACTIONS: Readonly<Record<string, string>> = { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem' };

/** The SQS actions of the JSON protocol's operations that are not named as their action. */
const SQS_ACTIONS: Readonly<Record<string, string>> = { SendMessageBatch: 'SendMessage', DeleteMessageBatch: 'DeleteMessage', ChangeMessageVisibilityBatch: 'ChangeMessageVisibility' };

/**
 * The IAM requests of one SQS call (`AmazonSQS.<operation>`): the action on the queue the local
 * queue's name stands for (the turn queue or its dead-letter queue, by the name pattern of
 * `physicalNames`), over TLS, with the queue policy; and for a queue encrypted with a customer
 * managed key, what SQS asks KMS on the caller's behalf (a data key to send, Decrypt to send and
 * receive).
 */
export function sqsIamRequests(operation: string, body: DynamoBody, deployment: DeploymentPermissions): IamRequest[] {
  const queue = deployedQueue(String(body.QueueUrl ?? body.QueueName ?? ''), deployment);
  const action = `sqs:${SQS_ACTIONS[operation] ?? operation}`;
  const keyActions = action === 'sqs:SendMessage' ? ['kms:GenerateDataKey', 'kms:Decrypt'] : action === 'sqs:ReceiveMessage' ? ['kms:Decrypt'] : [];
  return [{ action, resource: queue.arn, context: { 'aws:SecureTransport': 'true' }, resourcePolicy: queue.policy }, ...viaService(queue, deployment, 'sqs', keyActions)];
}

/** `GetSecretValue` on the deployed secret the local one stands for, and the Decrypt Secrets Manager asks for a customer managed key. */
export function secretsManagerIamRequests(operation: string, body: DynamoBody, deployment: DeploymentPermissions): IamRequest[] {
  const secretId = String(body.SecretId ?? '');
  const secret =
    (secretId === LOCAL_SECRET_ARNS.whatsApp ? deployment.secrets.whatsApp : secretId === LOCAL_SECRET_ARNS.crmWebhook ? deployment.secrets.crmWebhook : undefined) ?? { arn: secretId };
  return [{ action: `secretsmanager:${operation}`, resource: secret.arn, context: {} }, ...viaService(secret, deployment, 'secretsmanager', ['kms:Decrypt'])];
}

/** The End User Messaging operations the pipeline calls, by their REST route (the request's path without its query). */
const END_USER_MESSAGING_ROUTES: Readonly<Record<string, string>> = {
  '/v1/whatsapp/send': 'SendWhatsAppMessage',
  '/v1/whatsapp/media': 'PostWhatsAppMessageMedia',
  '/v1/whatsapp/template/list': 'ListWhatsAppMessageTemplates',
  '/v1/whatsapp/template': 'GetWhatsAppMessageTemplate',
  '/v1/whatsapp/media/get': 'GetWhatsAppMessageMedia',
};

/** The operation of an End User Messaging request (REST: by its route), and its input (the query's parameters with the JSON body's). */
export function endUserMessagingCall(path: string, body: DynamoBody): { readonly operation: string; readonly body: DynamoBody } {
  const url = new URL(path, 'http://127.0.0.1');
  return { operation: END_USER_MESSAGING_ROUTES[url.pathname] ?? url.pathname, body: { ...Object.fromEntries(url.searchParams), ...body } };
}

/**
 * `SendWhatsAppMessage`, `GetWhatsAppMessageMedia` and `PostWhatsAppMessageMedia` on the
 * origination phone number the request names; the template reads on the linked account (`id`).
 * The service moves media with the caller's permissions: a `destinationS3File` is also the caller's
 * `s3:PutObject` of the object it writes (the key given and the media id) in the deployed media
 * bucket with the key's `GenerateDataKey` through S3, a `sourceS3File` the caller's `s3:GetObject`
 * of the object it reads with the key's `Decrypt` through S3.
 */
export function endUserMessagingIamRequests(operation: string, body: DynamoBody, deployment: DeploymentPermissions): IamRequest[] {
  const arn = (resource: string, id: string) => `arn:aws:social-messaging:${deployment.region}:${deployment.account}:${resource}/${id}`;
  if (operation === 'ListWhatsAppMessageTemplates' || operation === 'GetWhatsAppMessageTemplate') {
    return [{ action: `social-messaging:${operation}`, resource: arn('waba', String(body.id ?? '').replace(/^waba-/, '')), context: {} }];
  }
  const id = String(body.originationPhoneNumberId ?? '').replace(/^phone-number-id-/, '');
  const onNumber: IamRequest = { action: `social-messaging:${NUMBER_MEDIA_OPERATIONS.has(operation) ? operation : 'SendWhatsAppMessage'}`, resource: arn('phone-number-id', id), context: {} };
  const destination = body.destinationS3File as { key?: unknown } | undefined;
  if (operation === 'GetWhatsAppMessageMedia' && destination !== undefined) {
    return [onNumber, ...callerMediaObjectRequests('PutObject', `${String(destination.key ?? '')}${String(body.mediaId ?? '')}`, deployment)];
  }
  const source = body.sourceS3File as { key?: unknown } | undefined;
  if (operation === 'PostWhatsAppMessageMedia' && source !== undefined) {
    return [onNumber, ...callerMediaObjectRequests('GetObject', String(source.key ?? ''), deployment)];
  }
  return [onNumber];
}

const NUMBER_MEDIA_OPERATIONS = new Set(['GetWhatsAppMessageMedia', 'PostWhatsAppMessageMedia']);

/** What an S3 request names: the bucket (as the local server calls it), the object, the listing's prefix, the keys of a DeleteObjects. */
export type S3Input = {
  readonly bucket: string;
  readonly key?: string;
  readonly prefix?: string;
  readonly keys?: readonly string[];
};

/**
 * The operation of a path-style S3 request (`/{bucket}/{key}?{query}`) and what it names: an
 * object's GET (or HEAD), PUT and DELETE; the bucket's listing (ListObjectsV2, with its prefix);
 * DeleteObjects (`POST ?delete`, the keys from its XML body); anything else on the bucket by method.
 */
export function s3Call(method: string, path: string, body = ''): { readonly operation: string; readonly body: S3Input } {
  const url = new URL(path, 'http://127.0.0.1');
  const [bucket, ...keySegments] = url.pathname.slice(1).split('/').map(decodeURIComponent);
  const key = keySegments.join('/');
  if (key !== '') return { operation: S3_OBJECT_OPERATIONS[method] ?? `${method}Object`, body: { bucket, key } };
  if (method === 'POST' && url.searchParams.has('delete')) {
    const keys = childrenOf(readXml(body), 'Object').map((object) => childOf(object, 'Key')?.text ?? '');
    return { operation: 'DeleteObjects', body: { bucket, keys } };
  }
  if (method === 'GET' || method === 'HEAD') return { operation: 'ListBucket', body: { bucket, prefix: url.searchParams.get('prefix') ?? undefined } };
  return { operation: S3_BUCKET_OPERATIONS[method] ?? `${method}Bucket`, body: { bucket } };
}

const S3_OBJECT_OPERATIONS: Readonly<Record<string, string>> = { GET: 'GetObject', HEAD: 'GetObject', PUT: 'PutObject', DELETE: 'DeleteObject' };
const S3_BUCKET_OPERATIONS: Readonly<Record<string, string>> = { PUT: 'CreateBucket', DELETE: 'DeleteBucket' };

/** What S3 asks KMS on the caller's behalf for an object under the bucket's customer managed key: a data key to store it, Decrypt to read it. */
const S3_KEY_ACTIONS: Readonly<Record<string, readonly string[]>> = { PutObject: ['kms:GenerateDataKey'], GetObject: ['kms:Decrypt'] };

/**
 * The IAM requests of one S3 call on the deployed media bucket the local one stands for (by the
 * local runtime's name, `…-media`): the object actions on `arn:aws:s3:::{bucket}/{key}`, a
 * DeleteObjects as `s3:DeleteObject` on each of its keys, a listing as `s3:ListBucket` on the
 * bucket with `s3:prefix`; each over TLS with the bucket policy (its deny of plain HTTP), and what
 * S3 asks KMS for an object under a customer managed key.
 */
export function s3IamRequests(operation: string, input: S3Input, deployment: DeploymentPermissions): IamRequest[] {
  const bucket = deployedBucket(input.bucket, deployment);
  const request = (action: string, resource: string, context: Record<string, string> = {}) => s3Request(bucket, action, resource, context);
  switch (operation) {
    case 'GetObject':
    case 'PutObject':
    case 'DeleteObject':
      return objectRequests(bucket, operation, input.key ?? '', deployment);
    case 'DeleteObjects':
      return (input.keys ?? []).map((key) => request('DeleteObject', `${bucket.arn}/${key}`));
    case 'ListBucket':
      return [request('ListBucket', bucket.arn, input.prefix === undefined ? {} : { 's3:prefix': input.prefix })];
    default:
      return [request(operation, bucket.arn)];
  }
}

/** One S3 request on `bucket`, over TLS, with the bucket's policy (its deny of plain HTTP). */
function s3Request(bucket: DeployedResource, action: string, resource: string, context: Record<string, string> = {}): IamRequest {
  return { action: `s3:${action}`, resource, context: { 'aws:SecureTransport': 'true', ...context }, resourcePolicy: bucket.policy };
}

/** An object's read, write or delete in `bucket`, with what S3 asks KMS for it under a customer managed key. */
function objectRequests(bucket: DeployedResource, operation: string, key: string, deployment: DeploymentPermissions): IamRequest[] {
  return [s3Request(bucket, operation, `${bucket.arn}/${key}`), ...viaService(bucket, deployment, 's3', S3_KEY_ACTIONS[operation] ?? [])];
}

/**
 * What a service that reads or writes a media object with the caller's permissions (End User
 * Messaging, Transcribe) is evaluated as: the caller's own request for that object of the deployed
 * media bucket.
 */
function callerMediaObjectRequests(operation: 'GetObject' | 'PutObject', key: string, deployment: DeploymentPermissions): IamRequest[] {
  return objectRequests(deployment.mediaBucket ?? { arn: 'arn:aws:s3:::no-media-bucket' }, operation, key, deployment);
}

/** The deployed media bucket a local bucket stands for; a bucket of no pipeline keeps its own name, which no role is granted. */
function deployedBucket(name: string, deployment: DeploymentPermissions): DeployedResource {
  if (/-media$/.test(name) && deployment.mediaBucket !== undefined) return deployment.mediaBucket;
  return { arn: `arn:aws:s3:::${name}` };
}

/** The Transcribe operations without a resource type in the Service Authorization Reference: IAM authorises them on `*`. */
const TRANSCRIBE_UNSCOPED = new Set(['StartTranscriptionJob', 'ListTranscriptionJobs']);

/**
 * A transcription job's call, on the job the request names (a start or a listing, on `*`). Transcribe reads the audio of a job it
 * starts with the caller's permissions: `s3:GetObject` on the object of the media bucket (the local
 * bucket stands for the deployed one) and, for a bucket under a customer managed key, the
 * `kms:Decrypt` S3 asks for it.
 */
export function transcribeIamRequests(operation: string, body: DynamoBody, deployment: DeploymentPermissions): IamRequest[] {
  const jobArn = `arn:aws:transcribe:${deployment.region}:${deployment.account}:transcription-job/${String(body.TranscriptionJobName ?? '')}`;
  const job: IamRequest = { action: `transcribe:${operation}`, resource: TRANSCRIBE_UNSCOPED.has(operation) ? '*' : jobArn, context: {} };
  const media = /^s3:\/\/[^/]+\/(.+)$/.exec(String((body.Media as { MediaFileUri?: unknown } | undefined)?.MediaFileUri ?? ''));
  if (operation !== 'StartTranscriptionJob' || media === null || deployment.mediaBucket === undefined) return [job];
  return [job, ...callerMediaObjectRequests('GetObject', media[1], deployment)];
}

/** The IAM requests of one call to `service`; `operation` is the target's operation (JSON protocols) or empty (REST). */
export function iamRequestsOf(service: EvaluatedService, operation: string, body: DynamoBody, deployment: DeploymentPermissions): IamRequest[] {
  switch (service) {
    case 'dynamodb':
      return dynamoDbIamRequests(operation, body, deployment);
    case 'sqs':
      return sqsIamRequests(operation, body, deployment);
    case 'secretsmanager':
      return secretsManagerIamRequests(operation, body, deployment);
    case 'social-messaging':
      return endUserMessagingIamRequests(operation, body, deployment);
    case 's3':
      return s3IamRequests(operation, body as S3Input, deployment);
    case 'transcribe':
      return transcribeIamRequests(operation, body, deployment);
    case 'lambda':
      return lambdaIamRequests(operation, body, deployment);
    case 'bedrock':
      return operation === 'Retrieve' ? knowledgeBaseIamRequests(operation, body, deployment) : bedrockIamRequests(operation, body, deployment);
  }
}

/** The deployed queue a local queue URL (or name) stands for; a queue of no pipeline keeps its own name, which no role is granted. */
function deployedQueue(urlOrName: string, deployment: DeploymentPermissions): DeployedResource {
  const name = urlOrName.split('/').pop() ?? urlOrName;
  if (/-debounce-dlq-[^/]*\.fifo$/.test(name)) return deployment.queues.deadLetter;
  if (/-debounce-[^/]*\.fifo$/.test(name)) return deployment.queues.turn;
  return { arn: `arn:aws:sqs:${deployment.region}:${deployment.account}:${name}` };
}

/** What a service asks KMS on the caller's behalf for a resource under a customer managed key, evaluated with the key policy. */
function viaService(resource: DeployedResource, deployment: DeploymentPermissions, service: string, actions: readonly string[]): IamRequest[] {
  const { keyArn } = resource;
  if (keyArn === undefined) return [];
  return actions.map((action) => ({ action, resource: keyArn, context: { 'kms:ViaService': `${service}.${deployment.region}.amazonaws.com` }, resourcePolicy: deployment.keyPolicies.get(keyArn) }));
}

function partitionOf(key: Key | undefined): string | undefined {
  return key?.[TABLE_SCHEMA.partitionKey]?.S;
}

function leadingKeys(values: readonly (string | undefined)[]): Record<string, string[]> {
  const present = [...new Set(values.filter((value): value is string => value !== undefined))];
  return present.length === 0 ? {} : { 'dynamodb:LeadingKeys': present };
}

/** The value the key condition's equality on `partitionAttribute` compares with (`#pk = :pk AND begins_with(…)`). */
function keyConditionPartition(body: DynamoBody, partitionAttribute: string): string | undefined {
  const names = (body.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const values = (body.ExpressionAttributeValues ?? {}) as Record<string, AttributeValue>;
  const attribute = (token: string) => names[token] ?? token;
  for (const clause of String(body.KeyConditionExpression ?? '').split(/\s+AND\s+/i)) {
    const match = /^\(?\s*([#:\w.]+)\s*=\s*([#:\w.]+)\s*\)?$/.exec(clause.trim());
    if (!match) continue;
    const [, left, right] = match;
    if (attribute(left) === partitionAttribute && right.startsWith(':')) return values[right]?.S;
    if (attribute(right) === partitionAttribute && left.startsWith(':')) return values[left]?.S;
  }
  return undefined;
}
