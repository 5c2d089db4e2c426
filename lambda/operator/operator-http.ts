import { createHash, timingSafeEqual } from 'node:crypto';
import type { Logger } from '@aws-lambda-powertools/logger';
import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { CUSTOM_METRICS } from '../../lib/contract';
import type { SignedInSession } from '../../lib/contract/operator-api';
import { errorSummary } from '../core/adapters/observability/error-summary';
import type { ConversationOwnership } from '../core/application/operator/conversation-ownership';
import type { InboxFilter } from '../core/application/operator/conversation-views';
import type { OperatorAvailability } from '../core/application/operator/operator-availability';
import type { OperatorInbox } from '../core/application/operator/operator-inbox';
import type { OperatorReplies } from '../core/application/operator/operator-replies';
import { inboxSearchOf } from '../core/domain/inbox-summary';
import type { Operator } from '../core/domain/operator';
import type { OperatorSignIn, SignedInOperator } from '../core/application/operator/operator-sign-in';
import { isSessionState } from '../core/domain/session';
import type { Clock } from '../core/ports/clock';
import { contentSecurityPolicy, cookie, errorResponse, header, HttpError, refusalOf, requireNoBody, type HttpResponse } from './http-kit';
import { LoginRateLimiter } from './login-rate-limiter';
import { type Access, conditional, created, ok, pageOf, requireEmptyObjectOrNoBody, route, type Route, routeTable, signedInOf } from './router';
import type { ConsoleSite } from './static-console';
import { templateValuesOf } from './template-routes';

/** The session cookie: `__Host-` pins it to this origin, path `/`, Secure. */
export const SESSION_COOKIE = '__Host-op';
export const CSRF_HEADER = 'x-csrf-token';
const MAX_REPLY_CHARS = 4096;

export interface OperatorHttpDependencies {
  readonly signIn: OperatorSignIn;
  /** The inbox's reads. */
  readonly inbox: OperatorInbox;
  /** Claims, takeovers, releases and closes. */
  readonly ownership: ConversationOwnership;
  /** What an operator sends the customer. */
  readonly replies: OperatorReplies;
  readonly availability: OperatorAvailability;
  /** The web console's files, served outside `/api/`. */
  readonly console: ConsoleSite;
  /** Routes of other parts of the plane (the admin API). */
  readonly extraRoutes?: readonly Route[];
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** @default 10 failed attempts per minute per source address */
  readonly loginRateLimiter?: LoginRateLimiter;
  /**
   * Where the media bucket's presigned links point (`https://host`): the console's pages may show
   * images, audio and video from there.
   * @default - the console loads nothing from elsewhere
   */
  readonly mediaOrigin?: string;
}

/**
 * The operator plane's HTTP contract (docs/OPERATOR-API.md): a JSON API under `/api/`, the console
 * at `/`. Every `/api/` call but sign-in needs the session cookie (401), every call that changes
 * something also the session's CSRF token (403), admin calls the admin role (403).
 */
export function createOperatorHttpHandler(deps: OperatorHttpDependencies): (event: APIGatewayProxyEventV2) => Promise<HttpResponse> {
  const { logger, metrics, signIn, inbox, ownership, replies, availability } = deps;
  const limiter = deps.loginRateLimiter ?? new LoginRateLimiter(10, 60_000);

  const sessionCookie = (token: string, expiresAt: string): string => {
    const maxAge = Math.max(0, Math.floor((Date.parse(expiresAt) - deps.clock.now().getTime()) / 1000));
    return `${SESSION_COOKIE}=${token}; HttpOnly; Secure; SameSite=Strict; Path=/; Max-Age=${maxAge}`;
  };
  const clearedCookie = `${SESSION_COOKIE}=; HttpOnly; Secure; SameSite=Strict; Path=/; Max-Age=0`;
  /** The session's answer; the availability is the one the handoff notifications see, so the console's switch shows the truth after a reload. */
  const sessionAnswer = async ({ operator, session }: SignedInOperator): Promise<SignedInSession> => ({
    operator: { phone: operator.phone, name: operator.name },
    role: operator.role,
    csrfToken: session.csrfToken,
    expiresAt: session.expiresAt,
    available: await availability.isAvailable(operator),
  });

  /** Claim, take over, release and close take no body and answer the conversation as the transition left it. */
  const conversationTransition = (action: 'claim' | 'takeOver' | 'release' | 'close') =>
    route(`POST conversations/:customerId/${action === 'takeOver' ? 'take-over' : action}`, 'operator', async (context) => {
      requireEmptyObjectOrNoBody(context.event);
      return ok({ conversation: await ownership[action](signedInOf(context).operator, context.params.customerId) });
    });

  const routes: Route[] = [
    route('POST session', 'public', async ({ event, body }) => {
      const source = event.requestContext?.http?.sourceIp ?? 'unknown';
      const { token } = body({ token: { type: 'string', required: true, maxLength: 256 } });
      // An address over the limit may be an office or a carrier shared with operators: their valid
      // links still sign in, and only a failing attempt is refused as too many. A token that cannot
      // be one costs no read either way.
      const limited = limiter.retryAfter(source) !== undefined;
      const signedIn = await signIn.signIn(token);
      if (signedIn === undefined) {
        limiter.recordFailure(source);
        metrics.addMetric(CUSTOM_METRICS.operatorSignInRefused, MetricUnit.Count, 1);
        const retryAfter = limiter.retryAfter(source);
        if (limited && retryAfter !== undefined) throw new HttpError('too_many_attempts', 'Too many failed sign-in attempts; wait and use a fresh link', { 'retry-after': String(retryAfter) });
        throw new HttpError('invalid_token', 'The link is wrong, used or expired; send "login" on WhatsApp for a new one');
      }
      metrics.addMetric(CUSTOM_METRICS.operatorSignIn, MetricUnit.Count, 1);
      return ok(await sessionAnswer(signedIn), [sessionCookie(signedIn.sessionToken, signedIn.session.expiresAt)]);
    }),
    route('GET session', 'operator', async (context) => ok(await sessionAnswer(signedInOf(context)))),
    route('DELETE session', 'operator', async (context) => {
      await signIn.signOut(signedInOf(context));
      return ok({ signedOut: true }, [clearedCookie]);
    }),
    route('GET conversations', 'operator', async (context) => {
      const state = context.event.queryStringParameters?.state ?? 'AWAITING_HUMAN';
      if (!isSessionState(state)) throw new HttpError('bad_query', 'state must be one of NEW, QUALIFYING, AWAITING_HUMAN, HUMAN_ACTIVE, CLOSED');
      // Checked before anything is read: a refused query costs no read.
      const filter = inboxFilterOf(context.event);
      const page = pageOf(context.event);
      const { operator } = signedInOf(context);
      const etag = listTag(await inbox.listVersion(operator, state), operator, context.event.rawQueryString ?? '');
      return conditional(context.event, etag, () => inbox.list(operator, state, page, filter));
    }),
    route('GET conversations/:customerId', 'operator', async (context) => {
      const { conversation, history } = await inbox.get(signedInOf(context).operator, context.params.customerId, pageOf(context.event));
      return ok({ conversation, messages: history.items, cursor: history.cursor });
    }),
    conversationTransition('claim'),
    conversationTransition('takeOver'),
    route('POST conversations/:customerId/messages', 'operator', async (context) => {
      const { text, buttons = [] } = context.body({ text: { type: 'string', required: true, maxLength: MAX_REPLY_CHARS }, buttons: { type: 'any' } });
      if (text.trim() === '') throw new HttpError('bad_field', 'Field "text" must not be blank');
      if (!Array.isArray(buttons) || !buttons.every((title) => typeof title === 'string')) throw new HttpError('bad_field', 'Field "buttons" must be a list of button titles');
      return created({ message: await replies.reply(signedInOf(context).operator, context.params.customerId, text, buttons) });
    }),
    route('POST conversations/:customerId/templates', 'operator', async (context) => {
      const { name, language, ...values } = context.body({
        name: { type: 'string', required: true, maxLength: 512 },
        language: { type: 'string', required: true, maxLength: 16 },
        values: { type: 'any', required: true },
        header: { type: 'string', maxLength: 2048 },
        buttons: { type: 'any' },
      });
      return created({ message: await replies.sendTemplate(signedInOf(context).operator, context.params.customerId, { name, language, values: templateValuesOf(values) }) });
    }),
    conversationTransition('release'),
    conversationTransition('close'),
    route('PUT me/availability', 'operator', async (context) => {
      const { available } = context.body({ available: { type: 'boolean', required: true } });
      return ok(await availability.setAvailability(signedInOf(context).operator, available));
    }),
    ...(deps.extraRoutes ?? []),
  ];
  const table = routeTable(routes);

  async function authenticate(event: APIGatewayProxyEventV2, method: string, access: Access): Promise<SignedInOperator> {
    const signedIn = await signIn.authenticate(cookie(event, SESSION_COOKIE), { requireCurrentRole: access === 'admin' });
    if (signedIn === undefined) throw new HttpError('not_signed_in', 'Sign in first: send "login" to the business number on WhatsApp');
    if (method !== 'GET' && !sameSecret(header(event, CSRF_HEADER), signedIn.session.csrfToken)) {
      throw new HttpError('bad_csrf_token', `Send the session's CSRF token in the ${CSRF_HEADER} header`);
    }
    if (access === 'admin' && signedIn.operator.role !== 'admin') throw new HttpError('admin_only', 'Only admins may do this');
    return signedIn;
  }

  async function serveApi(event: APIGatewayProxyEventV2, method: string, segments: string[]): Promise<HttpResponse> {
    const found = table.match(method, segments);
    if (method === 'GET' || method === 'DELETE') requireNoBody(event);
    const signedIn = found.route.access === 'public' ? undefined : await authenticate(event, method, found.route.access);
    return found.route.handle(event, found.params, signedIn);
  }

  return async (event) => {
    const method = event.requestContext?.http?.method ?? 'GET';
    const path = event.rawPath ?? '/';
    try {
      if (path === '/api' || path.startsWith('/api/')) return await serveApi(event, method, path.slice('/api/'.length).split('/'));
      const page = deps.console.serve({ method, path, acceptEncoding: header(event, 'accept-encoding'), ifNoneMatch: header(event, 'if-none-match') });
      if (page === undefined) throw new HttpError('not_found', 'No such page');
      return deps.mediaOrigin === undefined ? page : { ...page, headers: { ...page.headers, 'content-security-policy': contentSecurityPolicy(deps.mediaOrigin) } };
    } catch (error) {
      const refusal = refusalOf(error);
      if (refusal !== undefined) {
        logger.info('operator_request_refused', { statusCode: refusal.statusCode, code: refusal.code, method });
        return errorResponse(refusal);
      }
      metrics.addMetric(CUSTOM_METRICS.operatorRequestFailed, MetricUnit.Count, 1);
      logger.error('operator_request_failed', { method, ...errorSummary(error) });
      return errorResponse(new HttpError('internal_error', 'Something went wrong; try again'));
    }
  };
}

/**
 * The `ETag` of a conversation list: what its rows are made of besides the sessions (the inbox's
 * version and the rest, see `OperatorInbox.listVersion`), who asks (what they may read) and what
 * (the query).
 */
function listTag(version: readonly unknown[], operator: Operator, query: string): string {
  return `"${createHash('sha256').update(JSON.stringify([version, operator.phone, operator.role, query])).digest('base64url').slice(0, 27)}"`;
}

/** `?assigned=me` and `?search=` of the conversation list (docs/OPERATOR-API.md). */
function inboxFilterOf(event: APIGatewayProxyEventV2): InboxFilter {
  const { assigned, search } = event.queryStringParameters ?? {};
  if (assigned !== undefined && assigned !== 'me') throw new HttpError('bad_query', 'assigned must be "me" (or left out)');
  if (search === undefined) return { mine: assigned === 'me' };
  const parsed = inboxSearchOf(search);
  if ('refusal' in parsed) throw new HttpError('bad_query', parsed.refusal);
  return { mine: assigned === 'me', search: parsed };
}

function sameSecret(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
