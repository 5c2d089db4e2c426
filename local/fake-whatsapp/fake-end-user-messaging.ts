import type { IncomingMessage, ServerResponse } from 'node:http';
import { signedAwsPost } from '../../lambda/core/adapters/aws/signed-aws-post';
import { type LoopbackServer, serveOnLoopback } from '../fake-aws/loopback-server';
import type { AwsPermissionCheck } from '../fake-aws/permission-check';
import { readBody } from '../fake-aws/request-body';
import { sendRestJsonError } from '../fake-aws/service-answers';
import type { FakeGraphApi, FakeMessageTemplate } from './fake-graph-api';

/** The routes of the operations served (REST-JSON, as the service's API reference documents them). */
const ROUTES = {
  'POST /v1/whatsapp/send': 'SendWhatsAppMessage',
  'POST /v1/whatsapp/media': 'PostWhatsAppMessageMedia',
  'GET /v1/whatsapp/template/list': 'ListWhatsAppMessageTemplates',
  'GET /v1/whatsapp/template': 'GetWhatsAppMessageTemplate',
  'POST /v1/whatsapp/media/get': 'GetWhatsAppMessageMedia',
} as const;
type Operation = (typeof ROUTES)[keyof typeof ROUTES];

/** The id of the linked account the local runtime syncs templates from; it stands for the fake Meta's WABA. */
export const LOCAL_LINKED_BUSINESS_ACCOUNT_ID = 'waba-0123456789abcdef0123456789abcdef';
/** More than any test declares: the fake reads Meta's whole list in one page. */
const META_LIST_LIMIT = 10_000;

export interface FakeEndUserMessagingOptions {
  /** Meta behind the service: every send is passed through to it, so its recording and failure injection apply. */
  readonly meta: FakeGraphApi;
  /** End User Messaging phone number id (`phone-number-id-…`) → Meta phone number id. */
  readonly phoneNumbers: ReadonlyMap<string, string>;
  /** The linked account (`waba-…`) whose templates are Meta's account's. Default {@link LOCAL_LINKED_BUSINESS_ACCOUNT_ID}. */
  readonly businessAccountId?: string;
  /** The S3 server `GetWhatsAppMessageMedia` writes attachments into (`destinationS3File`) and `PostWhatsAppMessageMedia` reads its `sourceS3File` from. Default: `AWS_ENDPOINT_URL_S3`. */
  readonly s3Endpoint?: string;
  /** Checks each request as IAM would. Default: everything is allowed. */
  readonly permissions?: AwsPermissionCheck;
  /** Default: a free port. */
  readonly port?: number;
}

/**
 * A stand-in for AWS End User Messaging Social on 127.0.0.1, as far as the pipeline uses it:
 * `SendWhatsAppMessage`, `PostWhatsAppMessageMedia` (from an S3 object, uploaded to the fake Meta),
 * `ListWhatsAppMessageTemplates` (paged by `nextToken`) with `GetWhatsAppMessageTemplate` over the
 * fake Meta's templates, and `GetWhatsAppMessageMedia` over the fake Meta's media (its metadata, or
 * the file written into the local S3 server). Like the real service it sits in front of Meta: it resolves the linked
 * number, passes the Cloud API message object through to the fake Graph API, and answers with the
 * service's shapes — `{messageId}`, or a typed exception (`x-amzn-errortype`) whose message carries
 * Meta's `(#code)` — so the SDK client and the real adapter run unchanged against it, and the
 * tests keep asserting on (and injecting failures into) the one fake Meta of both channels.
 */
export class FakeEndUserMessaging {
  static async start(options: FakeEndUserMessagingOptions): Promise<FakeEndUserMessaging> {
    const fake = new FakeEndUserMessaging(options);
    fake.http = await serveOnLoopback(
      (request, response) => fake.handle(request, response),
      (response, error) => sendRestJsonError(response, 500, 'InternalServiceException', `Fake End User Messaging failure: ${String(error)}`),
      options.port,
    );
    return fake;
  }

  private http!: LoopbackServer;

  private constructor(private readonly options: FakeEndUserMessagingOptions) {}

  /** The endpoint to give the SDK client (`endpoint`), e.g. `http://127.0.0.1:43210`. */
  get endpoint(): string {
    return this.http.endpoint;
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const rawBody = await readBody(request);
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const operation: Operation | undefined = ROUTES[`${request.method} ${url.pathname}` as keyof typeof ROUTES];
    if (operation === undefined) {
      sendRestJsonError(response, 404, 'ResourceNotFoundException', `Unsupported ${request.method} request to ${request.url}`);
      return;
    }
    if (!request.headers.authorization?.startsWith('AWS4-HMAC-SHA256 ')) {
      sendRestJsonError(response, 403, 'AccessDeniedException', 'The request was not signed with AWS credentials');
      return;
    }
    const refusal = await this.options.permissions?.({ service: 'social-messaging', method: request.method ?? 'POST', path: request.url ?? url.pathname, headers: request.headers, body: rawBody });
    if (refusal !== undefined) {
      sendRestJsonError(response, 403, 'AccessDeniedException', refusal);
      return;
    }
    if (operation === 'SendWhatsAppMessage') await this.send(rawBody, response);
    else if (operation === 'GetWhatsAppMessageMedia') await this.getMedia(rawBody, response);
    else if (operation === 'PostWhatsAppMessageMedia') await this.postMedia(rawBody, response);
    else await this.readTemplates(operation, url.searchParams, response);
  }

  /**
   * The attachment's metadata from Meta (`fileSize` in KB, as the service reports it) and, unless
   * `metadataOnly`, its bytes from Meta's download URL written to `destinationS3File`: at the key
   * given with the media id appended, as the service names the object.
   */
  private async getMedia(rawBody: string, response: ServerResponse): Promise<void> {
    const input = parseMediaInput(rawBody);
    if (typeof input === 'string') {
      sendRestJsonError(response, 400, 'InvalidParametersException', input);
      return;
    }
    if (!this.options.phoneNumbers.has(input.originationPhoneNumberId)) {
      sendRestJsonError(response, 404, 'ResourceNotFoundException', `Phone number ${input.originationPhoneNumberId} is not linked to this account`);
      return;
    }
    const authorization = { authorization: `Bearer ${this.options.meta.accessToken}` };
    const metadata = await fetch(`${this.options.meta.baseUrl}/${encodeURIComponent(input.mediaId)}`, { headers: authorization });
    const described = (await metadata.json().catch(() => ({}))) as { url?: string; mime_type?: string; file_size?: number; error?: { code?: unknown; message?: unknown } };
    if (!metadata.ok || described.url === undefined) {
      const [status, exception] = exceptionFor(metadata.status);
      sendRestJsonError(response, status, exception, `(#${String(described.error?.code ?? 'unknown')}) ${String(described.error?.message ?? 'Meta refused the media')}`);
      return;
    }
    const answer = { mimeType: described.mime_type, fileSize: Math.ceil(Number(described.file_size ?? 0) / 1024) };
    if (input.destinationS3File === undefined) {
      sendJson(response, 200, answer);
      return;
    }
    const download = await fetch(described.url, { headers: authorization }).catch(() => undefined);
    if (download === undefined || !download.ok) {
      await download?.body?.cancel();
      const [status, exception] = exceptionFor(download?.status ?? 500);
      sendRestJsonError(response, status, exception, 'Meta did not deliver the media file');
      return;
    }
    const { bucketName, key } = input.destinationS3File;
    const objectPath = `${key}${input.mediaId}`.split('/').map(encodeURIComponent).join('/');
    const stored = await fetch(`${this.s3Endpoint}/${encodeURIComponent(bucketName)}/${objectPath}`, {
      method: 'PUT',
      headers: { 'content-type': described.mime_type ?? 'application/octet-stream' },
      body: new Uint8Array(await download.arrayBuffer()),
    });
    if (!stored.ok) {
      sendRestJsonError(response, stored.status === 403 ? 403 : 500, stored.status === 403 ? 'AccessDeniedException' : 'InternalServiceException', `The media file could not be written to ${bucketName}: HTTP ${stored.status}`);
      return;
    }
    sendJson(response, 200, answer);
  }

  private get s3Endpoint(): string {
    const endpoint = this.options.s3Endpoint ?? process.env.AWS_ENDPOINT_URL_S3;
    if (endpoint === undefined) throw new Error('The fake End User Messaging has no S3 server to write media to: pass s3Endpoint');
    return endpoint.replace(/\/$/, '');
  }

  /**
   * The list pages Meta's list (its `after` cursor is the `nextToken`), summarised as the service
   * does — no components; the Get answers Meta's template object as JSON text.
   */
  private async readTemplates(operation: Exclude<Operation, 'SendWhatsAppMessage' | 'GetWhatsAppMessageMedia' | 'PostWhatsAppMessageMedia'>, query: URLSearchParams, response: ServerResponse): Promise<void> {
    if (query.get('id') !== (this.options.businessAccountId ?? LOCAL_LINKED_BUSINESS_ACCOUNT_ID)) {
      sendRestJsonError(response, 404, 'ResourceNotFoundException', `WhatsApp Business Account ${query.get('id')} is not linked to this account`);
      return;
    }
    const list = operation === 'ListWhatsAppMessageTemplates';
    const maxResults = Number(query.get('maxResults') ?? 50);
    if (list && (!Number.isInteger(maxResults) || maxResults < 1 || maxResults > 100)) {
      sendRestJsonError(response, 400, 'InvalidParametersException', 'maxResults must be from 1 to 100');
      return;
    }
    const metaQuery = new URLSearchParams({ limit: String(list ? maxResults : META_LIST_LIMIT), ...(list && query.has('nextToken') ? { after: query.get('nextToken')! } : {}) });
    const answer = await fetch(`${this.options.meta.baseUrl}/${this.options.meta.wabaId}/message_templates?${metaQuery}`, { headers: { authorization: `Bearer ${this.options.meta.accessToken}` } });
    const page = (await answer.json()) as { data?: FakeMessageTemplate[]; paging?: { cursors?: { after?: string }; next?: string }; error?: { code?: unknown; message?: unknown } };
    if (!answer.ok) {
      const [status, exception] = exceptionFor(answer.status);
      sendRestJsonError(response, status, exception, `(#${String(page.error?.code ?? 'unknown')}) ${String(page.error?.message ?? 'Meta refused the templates list')}`);
      return;
    }
    const templates = page.data ?? [];
    if (list) {
      sendJson(response, 200, {
        templates: templates.map((template) => ({ templateName: template.name, metaTemplateId: template.id, templateStatus: template.status, templateLanguage: template.language, templateCategory: template.category })),
        ...(page.paging?.next !== undefined && page.paging.cursors?.after !== undefined ? { nextToken: page.paging.cursors.after } : {}),
      });
      return;
    }
    const template = templates.find(({ id }) => id === query.get('metaTemplateId'));
    if (template === undefined) {
      sendRestJsonError(response, 404, 'ResourceNotFoundException', `Template ${query.get('metaTemplateId')} does not exist`);
      return;
    }
    sendJson(response, 200, { template: JSON.stringify(template) });
  }

  /** Reads the object the request names from S3, with its content type, and uploads it to Meta from the linked number: `{mediaId}`. */
  private async postMedia(rawBody: string, response: ServerResponse): Promise<void> {
    const input = parseJsonObject(rawBody) as { originationPhoneNumberId?: unknown; sourceS3File?: { bucketName?: unknown; key?: unknown }; sourceS3PresignedUrl?: unknown } | undefined;
    const file = input?.sourceS3File;
    if (typeof input?.originationPhoneNumberId !== 'string' || typeof file?.bucketName !== 'string' || typeof file.key !== 'string' || input.sourceS3PresignedUrl !== undefined) {
      sendRestJsonError(response, 400, 'InvalidParametersException', 'originationPhoneNumberId and exactly one of sourceS3File and sourceS3PresignedUrl are required');
      return;
    }
    const metaPhoneNumberId = this.options.phoneNumbers.get(input.originationPhoneNumberId);
    if (metaPhoneNumberId === undefined) {
      sendRestJsonError(response, 404, 'ResourceNotFoundException', `Phone number ${input.originationPhoneNumberId} is not linked to this account`);
      return;
    }
    const object = await this.readObject(file.bucketName, file.key).catch(() => undefined);
    if (object === undefined) {
      sendRestJsonError(response, 404, 'ResourceNotFoundException', `The object ${file.key} of bucket ${file.bucketName} could not be read`);
      return;
    }
    const form = new FormData();
    form.set('messaging_product', 'whatsapp');
    form.set('type', object.contentType);
    form.set('file', new Blob([object.bytes], { type: object.contentType }), file.key.split('/').pop() ?? 'file');
    const answer = await fetch(`${this.options.meta.baseUrl}/${metaPhoneNumberId}/media`, { method: 'POST', headers: { authorization: `Bearer ${this.options.meta.accessToken}` }, body: form });
    const body = (await answer.json()) as { id?: unknown; error?: { code?: unknown; message?: unknown } };
    if (answer.ok && typeof body.id === 'string') {
      sendJson(response, 200, { mediaId: body.id });
      return;
    }
    const [status, exception] = exceptionFor(answer.status);
    sendRestJsonError(response, status, exception, `(#${String(body.error?.code ?? 'unknown')}) ${String(body.error?.message ?? 'Meta refused the upload')}`);
  }

  private async readObject(bucketName: string, key: string): Promise<{ readonly bytes: Uint8Array; readonly contentType: string }> {
    const get = signedAwsPost(
      { endpointPrefix: 's3', signingName: 's3', endpointVariable: 'AWS_ENDPOINT_URL_S3', uriEscapePath: false },
      { endpoint: `${this.s3Endpoint.replace(/\/$/, '')}/${bucketName}`, region: 'us-east-1', credentials: async () => ({ accessKeyId: 'local', secretAccessKey: 'local' }) },
    );
    const answer = await get(`/${key.split('/').map(encodeURIComponent).join('/')}`, { method: 'GET', headers: {} });
    return { bytes: answer.payload, contentType: answer.headers.get('content-type') ?? 'application/octet-stream' };
  }

  private async send(rawBody: string, response: ServerResponse): Promise<void> {
    const input = parseInput(rawBody);
    if (typeof input === 'string') {
      sendRestJsonError(response, 400, 'ValidationException', input);
      return;
    }
    const metaPhoneNumberId = this.options.phoneNumbers.get(input.originationPhoneNumberId);
    if (metaPhoneNumberId === undefined) {
      sendRestJsonError(response, 404, 'ResourceNotFoundException', `Phone number ${input.originationPhoneNumberId} is not linked to this account`);
      return;
    }
    let answer: Response;
    let body: unknown;
    try {
      answer = await fetch(`${this.options.meta.baseUrl}/${metaPhoneNumberId}/messages`, {
        method: 'POST',
        headers: { 'authorization': `Bearer ${this.options.meta.accessToken}`, 'content-type': 'application/json' },
        body: input.message,
      });
      body = JSON.parse(await answer.text()) as unknown;
    } catch {
      // Meta cut the connection after accepting: so does the service, the outcome stays unknown.
      response.destroy();
      return;
    }
    if (answer.ok) {
      const id = (body as { messages?: Array<{ id?: unknown }> } | null)?.messages?.[0]?.id;
      sendJson(response, 200, typeof id === 'string' ? { messageId: id } : {});
      return;
    }
    const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
    const message = `(#${String(error?.code ?? 'unknown')}) ${String(error?.message ?? 'Meta refused the message')}`;
    const [status, exception] = exceptionFor(answer.status);
    sendRestJsonError(response, status, exception, message);
  }
}

/** How the service reports Meta's answer (its exceptions and their HTTP statuses, from the SDK's model). */
function exceptionFor(metaStatus: number): [number, string] {
  if (metaStatus === 429) return [429, 'ThrottledRequestException'];
  if (metaStatus >= 500) return [502, 'DependencyException'];
  if (metaStatus === 401 || metaStatus === 403) return [403, 'AccessDeniedByMetaException'];
  return [400, 'ValidationException'];
}

interface SendInput {
  readonly originationPhoneNumberId: string;
  /** The decoded Cloud API message object, as JSON text. */
  readonly message: string;
}

function parseInput(rawBody: string): SendInput | string {
  let parsed: { originationPhoneNumberId?: unknown; message?: unknown; metaApiVersion?: unknown };
  try {
    parsed = JSON.parse(rawBody) as typeof parsed;
  } catch {
    return 'The request body is not JSON';
  }
  if (typeof parsed.originationPhoneNumberId !== 'string') return 'originationPhoneNumberId is required';
  if (typeof parsed.metaApiVersion !== 'string' || !/^v\d+\.\d+$/.test(parsed.metaApiVersion)) return 'metaApiVersion must look like v20.0';
  if (typeof parsed.message !== 'string' || parsed.message === '') return 'message is required';
  return { originationPhoneNumberId: parsed.originationPhoneNumberId, message: Buffer.from(parsed.message, 'base64').toString('utf8') };
}

interface MediaInput {
  readonly mediaId: string;
  readonly originationPhoneNumberId: string;
  readonly destinationS3File?: { readonly bucketName: string; readonly key: string };
}

/** The request as the API reference constrains it: a destination unless `metadataOnly`, never both kinds of destination. */
function parseMediaInput(rawBody: string): MediaInput | string {
  let parsed: { mediaId?: unknown; originationPhoneNumberId?: unknown; metadataOnly?: unknown; destinationS3File?: { bucketName?: unknown; key?: unknown }; destinationS3PresignedUrl?: unknown };
  try {
    parsed = JSON.parse(rawBody) as typeof parsed;
  } catch {
    return 'The request body is not JSON';
  }
  if (typeof parsed.mediaId !== 'string' || !/^[A-Za-z0-9]{1,100}$/.test(parsed.mediaId)) return 'mediaId must be 1 to 100 letters and digits';
  if (typeof parsed.originationPhoneNumberId !== 'string') return 'originationPhoneNumberId is required';
  if (parsed.destinationS3File !== undefined && parsed.destinationS3PresignedUrl !== undefined) return 'Use either destinationS3File or destinationS3PresignedUrl';
  if (parsed.metadataOnly === true) return { mediaId: parsed.mediaId, originationPhoneNumberId: parsed.originationPhoneNumberId };
  const { bucketName, key } = parsed.destinationS3File ?? {};
  if (typeof bucketName !== 'string' || typeof key !== 'string') return 'destinationS3File with a bucketName and a key is required (the fake serves no presigned destination)';
  return { mediaId: parsed.mediaId, originationPhoneNumberId: parsed.originationPhoneNumberId, destinationS3File: { bucketName, key } };
}

function parseJsonObject(rawBody: string): unknown {
  try {
    return JSON.parse(rawBody) as unknown;
  } catch {
    return undefined;
  }
}

function sendJson(response: ServerResponse, httpStatus: number, body: unknown): void {
  response.writeHead(httpStatus, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}
