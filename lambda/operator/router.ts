import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { AnswerOf, BodyOf, OperatorApiCall } from '../../lib/contract/operator-api';
import type { SignedInOperator } from '../core/application/operator/operator-sign-in';
import { type BodySchema, header, HttpError, json, jsonBody, notModified, type HttpResponse } from './http-kit';

/**
 * The operator API's routes: each declared by its call of the contract (docs/OPERATOR-API.md), with
 * who may call it, and matched against a request's method and path. The route files (the
 * conversations in operator-http.ts, admin-routes.ts, privacy-routes.ts) declare theirs with
 * {@link route}; the handler authenticates and dispatches.
 */

/** A path segment naming a customer or a resource: no separators, no encodings, not `.`/`..`. */
const ID_SEGMENT = /^(?!\.+$)[A-Za-z0-9_.-]{1,128}$/;
/**
 * A `:messageId` segment, percent-decoded: Meta's `wamid.…` ids are base64 (with `=`, `+`, `/`),
 * so the console encodes them; decoded they are still one id, never a path.
 */
const MESSAGE_ID = /^(?!\.+$)[A-Za-z0-9_.=+/-]{1,256}$/;
const MAX_PAGE = 100;

export type Access = 'public' | 'operator' | 'admin';

export interface RouteContext<Call extends OperatorApiCall> {
  readonly event: APIGatewayProxyEventV2;
  readonly params: Readonly<Record<string, string>>;
  /** Present on `operator` and `admin` routes (see {@link signedInOf}). */
  readonly signedIn?: SignedInOperator;
  /** The call's JSON body, read with `schema` (see `jsonBody`). */
  body(schema: BodySchema<BodyOf<Call>>): BodyOf<Call>;
}

/** The signed-in operator of an `operator` or `admin` route. */
export function signedInOf(context: { readonly signedIn?: SignedInOperator }): SignedInOperator {
  if (context.signedIn === undefined) throw new HttpError('not_signed_in', 'Sign in first');
  return context.signedIn;
}

/** What a route answers: the call's answer body, its status, the cookies and headers to set. */
export interface Answer<Body> {
  readonly statusCode: 200 | 201;
  readonly body: Body;
  readonly cookies?: string[];
  readonly headers?: Readonly<Record<string, string>>;
}

/** The answer the caller already has (`If-None-Match` named its `ETag`): `304`, no body. */
export interface NotModified {
  readonly statusCode: 304;
  readonly etag: string;
}

export function ok<Body>(body: Body, cookies?: string[]): Answer<Body> {
  return { statusCode: 200, body, cookies };
}

/**
 * `body` with its `ETag`, or `304` when the request's `If-None-Match` names it already: `answer` is
 * only built (and its items read) when the caller does not have it.
 */
export async function conditional<Body>(event: APIGatewayProxyEventV2, etag: string, answer: () => Promise<Body>): Promise<Answer<Body> | NotModified> {
  const known = (header(event, 'if-none-match') ?? '').split(',').map((tag) => tag.trim());
  if (known.includes(etag)) return { statusCode: 304, etag };
  return { statusCode: 200, body: await answer(), headers: { etag } };
}

export function created<Body>(body: Body): Answer<Body> {
  return { statusCode: 201, body };
}

/** One call of the operator API (see {@link route}). */
export interface Route {
  readonly call: OperatorApiCall;
  readonly access: Access;
  handle(event: APIGatewayProxyEventV2, params: Readonly<Record<string, string>>, signedIn: SignedInOperator | undefined): Promise<HttpResponse>;
}

/**
 * The route of `call` (docs/OPERATOR-API.md): its handler answers the call's answer type of the
 * operator API contract and reads the call's body type, so the compiler holds both to it.
 */
export function route<Call extends OperatorApiCall>(call: Call, access: Access, handle: (context: RouteContext<Call>) => Promise<Answer<AnswerOf<Call>> | NotModified>): Route {
  return {
    call,
    access,
    async handle(event, params, signedIn) {
      const answer = await handle({ event, params, signedIn, body: (schema) => jsonBody(event, schema) });
      if (answer.statusCode === 304) return notModified(answer.etag);
      return json(answer.statusCode, answer.body, { cookies: answer.cookies, headers: answer.headers });
    },
  };
}

/** `?limit=&cursor=` of a list call. */
export function pageOf(event: APIGatewayProxyEventV2): { limit: number; cursor?: string } {
  const query = event.queryStringParameters ?? {};
  const limit = query.limit === undefined ? 20 : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) throw new HttpError('bad_query', `limit must be a whole number from 1 to ${MAX_PAGE}`);
  const cursor = query.cursor;
  if (cursor !== undefined && (cursor === '' || cursor.length > 2048)) throw new HttpError('bad_query', 'cursor is not a cursor this API returned');
  return { limit, cursor };
}

/** Action calls take no fields: an empty body or `{}`. */
export function requireEmptyObjectOrNoBody(event: APIGatewayProxyEventV2): void {
  if ((event.body ?? '') !== '') jsonBody(event, {});
}

/** A route found for a request, with the values of its `:name` segments. */
export interface RouteMatch {
  readonly route: Route;
  readonly params: Readonly<Record<string, string>>;
}

/**
 * The routes by method and path: `match` finds the route of a request's method and the segments of
 * its path after `/api/` (404 for no such path, 405 with `Allow` for another method).
 */
export function routeTable(routes: readonly Route[]): { match(method: string, segments: readonly string[]): RouteMatch } {
  const compiled = routes.map((declared) => {
    const [method, path] = declared.call.split(' ');
    return { route: declared, method, segments: path.split('/') };
  });
  return {
    match(method, segments) {
      const matching = compiled.flatMap((candidate) => {
        const params = matchPath(candidate.segments, segments);
        return params === undefined ? [] : [{ ...candidate, params }];
      });
      if (matching.length === 0) throw new HttpError('not_found', 'No such API call');
      const found = matching.find((candidate) => candidate.method === method);
      if (found === undefined) {
        const allow = matching.map((candidate) => candidate.method).join(', ');
        throw new HttpError('method_not_allowed', `Use ${allow}`, { allow });
      }
      return { route: found.route, params: found.params };
    },
  };
}

/** Path parameters when `segments` match `pattern`; an id that is not a plain segment is a 400. */
function matchPath(pattern: readonly string[], segments: readonly string[]): Record<string, string> | undefined {
  if (pattern.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (const [index, part] of pattern.entries()) {
    const segment = segments[index];
    if (part === ':messageId') {
      const messageId = decodedSegment(segment);
      if (messageId === undefined || !MESSAGE_ID.test(messageId)) throw new HttpError('bad_id', "messageId must be a message's id as the history answers it, URL-encoded");
      params.messageId = messageId;
    } else if (part.startsWith(':')) {
      if (!ID_SEGMENT.test(segment)) throw new HttpError('bad_id', `${part.slice(1)} must be letters, digits, '.', '_' or '-' (at most 128)`);
      params[part.slice(1)] = segment;
    } else if (part !== segment) return undefined;
  }
  return params;
}

function decodedSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
