import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type LoopbackServer, serveOnLoopback } from '../fake-aws/loopback-server';
import { type AwsPermissionCheck, restRefusal } from '../fake-aws/permission-check';
import { readBody } from '../fake-aws/request-body';

/** The knowledge base the tests search, and the one every deployment the permission check synthesizes grants. */
export const LOCAL_KNOWLEDGE_BASE_ID = 'KBLOCAL001';

/** A document of the fake knowledge base: one chunk, where it is, and its metadata attributes. */
export interface KnowledgeDocument {
  /** An `s3://…` URI or an `https://…` URL: what Retrieve reports as its location. */
  readonly location: string;
  readonly text: string;
  readonly metadata?: Readonly<Record<string, string | number | boolean | readonly string[]>>;
}

export interface FakeKnowledgeBaseOptions {
  /** The id Retrieve is asked by (`/knowledgebases/{id}/retrieve`); any other id is not found. Default: any id. */
  readonly knowledgeBaseId?: string;
  readonly documents: readonly KnowledgeDocument[];
  /** Checks each signed request as IAM would. Default: everything is allowed. */
  readonly permissions?: AwsPermissionCheck;
}

/** A Retrieve request as the fake received it. */
export interface ReceivedRetrieve {
  readonly query: string;
  readonly numberOfResults?: number;
  readonly filter?: unknown;
}

const DEFAULT_NUMBER_OF_RESULTS = 5;

/**
 * A stand-in for a Bedrock knowledge base on 127.0.0.1, answering Bedrock Agent Runtime's
 * `Retrieve` (`POST /knowledgebases/{id}/retrieve`) in its documented shape: `retrievalResults` of
 * `{content: {text, type}, location: {type, s3Location | webLocation}, metadata, score}`, best
 * first, at most `numberOfResults`. The score is the share of the query's words (of three letters
 * or more) the document holds, so tests choose what a search finds by its words; documents without
 * any are not returned. The metadata `filter` is applied as Retrieve's grammar says.
 */
export class FakeKnowledgeBase {
  static async start(options: FakeKnowledgeBaseOptions): Promise<FakeKnowledgeBase> {
    const fake = new FakeKnowledgeBase(options);
    fake.http = await serveOnLoopback(
      (request, response) => fake.handle(request, response),
      (response, error) => sendJson(response, 500, { message: String(error) }, 'InternalServerException'),
    );
    return fake;
  }

  /** Every Retrieve answered, in order. */
  readonly received: ReceivedRetrieve[] = [];
  private http!: LoopbackServer;

  private constructor(private readonly options: FakeKnowledgeBaseOptions) {}

  get endpoint(): string {
    return this.http.endpoint;
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readBody(request);
    const path = request.url ?? '/';
    const match = /^\/knowledgebases\/([^/]+)\/retrieve$/.exec(path);
    if (request.method !== 'POST' || match === null) return void sendJson(response, 404, { message: `No route for ${request.method} ${path}` }, 'ResourceNotFoundException');
    const refusal = await restRefusal('bedrock', request, body, this.options.permissions);
    if (refusal !== undefined) return void sendJson(response, 403, { message: refusal.message }, refusal.type);
    const { knowledgeBaseId } = this.options;
    if (knowledgeBaseId !== undefined && decodeURIComponent(match[1]) !== knowledgeBaseId) return void sendJson(response, 404, { message: `Knowledge base ${match[1]} does not exist` }, 'ResourceNotFoundException');
    const input = JSON.parse(body || '{}') as { retrievalQuery?: { text?: string }; retrievalConfiguration?: { vectorSearchConfiguration?: { numberOfResults?: number; filter?: unknown } } };
    const query = input.retrievalQuery?.text ?? '';
    if (query.trim() === '') return void sendJson(response, 400, { message: 'retrievalQuery.text must not be empty' }, 'ValidationException');
    const { numberOfResults, filter } = input.retrievalConfiguration?.vectorSearchConfiguration ?? {};
    this.received.push({ query, ...(numberOfResults === undefined ? {} : { numberOfResults }), ...(filter === undefined ? {} : { filter }) });
    const results = this.options.documents
      .filter((document) => filter === undefined || matches(filter, document.metadata ?? {}))
      .map((document) => ({ document, score: scoreOf(query, document.text) }))
      .filter(({ score }) => score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, numberOfResults ?? DEFAULT_NUMBER_OF_RESULTS);
    sendJson(response, 200, { retrievalResults: results.map(({ document, score }) => retrievalResultOf(document, score)) });
  }
}

function retrievalResultOf(document: KnowledgeDocument, score: number): object {
  const web = /^https?:\/\//.test(document.location);
  return {
    content: { text: document.text, type: 'TEXT' },
    location: web ? { type: 'WEB', webLocation: { url: document.location } } : { type: 'S3', s3Location: { uri: document.location } },
    metadata: { 'x-amz-bedrock-kb-source-uri': document.location, ...document.metadata },
    score,
  };
}

function wordsOf(text: string): string[] {
  return text.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '').match(/\p{L}{3,}|\d+/gu) ?? [];
}

function scoreOf(query: string, text: string): number {
  const asked = new Set(wordsOf(query));
  if (asked.size === 0) return 0;
  const held = new Set(wordsOf(text));
  return [...asked].filter((word) => held.has(word)).length / asked.size;
}

/** Whether `metadata` passes a `RetrievalFilter` (lib/contract/knowledge-base.ts has its grammar). */
function matches(filter: unknown, metadata: KnowledgeDocument['metadata'] & object): boolean {
  const [[operator, operand]] = Object.entries(filter as Record<string, unknown>);
  if (operator === 'andAll') return (operand as unknown[]).every((inner) => matches(inner, metadata));
  if (operator === 'orAll') return (operand as unknown[]).some((inner) => matches(inner, metadata));
  const { key, value } = operand as { key: string; value: unknown };
  const held = metadata[key];
  switch (operator) {
    case 'equals':
      return held === value;
    case 'notEquals':
      return held !== value;
    case 'in':
      return (value as unknown[]).includes(held);
    case 'notIn':
      return !(value as unknown[]).includes(held);
    case 'startsWith':
      return typeof held === 'string' && held.startsWith(String(value));
    case 'stringContains':
      return typeof held === 'string' && held.includes(String(value));
    case 'listContains':
      return Array.isArray(held) && held.includes(value as string);
    default:
      return compare(operator, held, value);
  }
}

function compare(operator: string, held: unknown, value: unknown): boolean {
  if (typeof held !== 'number' || typeof value !== 'number') return false;
  return { greaterThan: held > value, greaterThanOrEquals: held >= value, lessThan: held < value, lessThanOrEquals: held <= value }[operator] ?? false;
}

function sendJson(response: ServerResponse, status: number, body: object, errorType?: string): void {
  response.writeHead(status, { 'content-type': 'application/json', 'x-amzn-requestid': randomUUID(), ...(errorType === undefined ? {} : { 'x-amzn-errortype': errorType }) });
  response.end(JSON.stringify(body));
}
