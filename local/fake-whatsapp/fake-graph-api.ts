import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AcceptedInteractive, checkInteractive } from './fake-interactive';
import { FakePaceRefusals } from './fake-pace-refusals';
import { type AcceptedTemplate, checkTemplateSend, type FakeTemplateComponent, parseTemplateSend } from './fake-template-send';

/**
 * A stand-in for Meta's WhatsApp Cloud API on 127.0.0.1, speaking the same HTTP API as far as the
 * pipeline uses it: `POST /{version}/{phoneNumberId}/messages` for text messages (`to` or
 * `recipient`), template messages and read receipts, and `GET /{version}/{wabaId}/message_templates`
 * (paged like Meta: `limit`, `after`, `paging.cursors`, `paging.next`), with a bearer token. It
 * validates requests the way Meta does and answers with Meta's JSON shapes — including Graph API
 * error objects — so the real sender runs unchanged against it in tests, in the local runtime and
 * in end-to-end tests.
 *
 * It also plays the Meta app the set-up command connects ({@link FakeMetaBusiness}):
 * `GET /debug_token`, `GET /{phoneNumberId}`, `POST /{wabaId}/subscribed_apps` and
 * `POST /{appId}/subscriptions`, which runs the webhook's verification handshake as Meta does.
 *
 * Templates are the business's, as {@link setTemplates} declares them: a template send is checked
 * against them component by component — header, body, buttons — as fake-template-send.ts
 * describes (132001, 132015/132016, 132000, 132012, 132018). A free text to a customer
 * whose service window {@link closeServiceWindow} closed is refused with 131047, as Meta does after
 * 24 hours without a customer message.
 *
 * Failure injection acts on the next well-formed, authorized text and template sends, in the order scheduled
 * (read receipts always succeed): {@link failNext}, {@link delayNext}, {@link answerNext},
 * {@link acceptThenDropConnection}.
 *
 * Delivery statuses: once told where to deliver them ({@link reportStatusesTo}), it reports any
 * status for any message as Meta does — a `statuses` notification echoing the message's
 * `biz_opaque_callback_data`, with `errors[]` for `failed` — by hand ({@link reportStatus}) or
 * for every message it accepts ({@link reportAutomatically}); each message's record keeps the last.
 */
export class FakeGraphApi {
  /** Starts listening on 127.0.0.1 (port 0 picks a free port). */
  static async start(options: FakeGraphApiOptions = {}): Promise<FakeGraphApi> {
    const api = new FakeGraphApi(options);
    await new Promise<void>((resolve, reject) => {
      api.server.once('error', reject);
      api.server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
    });
    return api;
  }

  private token: string;
  private readonly apiVersion: string;
  private readonly server: Server;
  private readonly accepted: Mutable<AcceptedWhatsAppMessage>[] = [];
  private readonly receipts: AcceptedReadReceipt[] = [];
  private readonly scripted: ScriptedAnswer[] = [];
  /** Refuses sends to a customer for their pace (131056, 130429), as Meta does: fake-pace-refusals.ts. */
  readonly paceRefusals = new FakePaceRefusals();
  private readonly waiters: Array<{ count: number; resolve: () => void }> = [];
  private templates: FakeMessageTemplate[] = [];
  private readonly closedWindows = new Set<string>();
  private readonly businessAccountId: string;
  private readonly listeners = new Set<(message: AcceptedWhatsAppMessage) => void>();
  private readonly statusListeners = new Set<(message: AcceptedWhatsAppMessage) => void>();
  private statusSink?: StatusSink;
  private automaticStatuses: readonly { readonly status: ReportableStatus; readonly afterMs: number }[] = [];
  private received = 0;
  private readonly business: Required<FakeMetaBusiness>;
  private readonly wabaSubscriptions: WabaSubscription[] = [];
  private readonly webhookSubscriptions: AppWebhookSubscription[] = [];
  private readonly media = new Map<string, FakeMedia>();
  private readonly mediaFailures: { readonly step: FakeMediaStep; readonly status: number }[] = [];
  private readonly mediaRequestCounts: Record<FakeMediaStep, number> = { metadata: 0, download: 0 };
  private readonly uploadedMedia: FakeUpload[] = [];
  /** Scripted answers still waiting to go out: closing cancels them, so nothing outlives the server. */
  private readonly delayedAnswers = new Set<NodeJS.Timeout>();

  private constructor(options: FakeGraphApiOptions) {
    this.token = options.accessToken ?? 'fake-whatsapp-access-token';
    this.apiVersion = options.apiVersion ?? 'v23.0';
    this.business = { ...DEFAULT_BUSINESS, ...options.business };
    this.businessAccountId = options.businessAccountId ?? this.business.businessAccountId;
    this.server = createServer((request, response) => {
      this.handle(request, response).catch((error: unknown) => {
        if (!response.headersSent) graphError(response, 500, { code: 1, message: `Fake Graph API failure: ${String(error)}` });
      });
    });
  }

  /**
   * An attachment a customer sent, as Meta keeps it: `GET /{mediaId}` answers its metadata and a
   * short-lived URL on this server, whose `GET` with the token answers the bytes.
   */
  registerMedia(mediaId: string, media: FakeMedia): void {
    this.media.set(mediaId, media);
  }

  /** The next `times` requests of `step` of any attachment answer `status` (or drop the connection with `status` 0). */
  failMedia(step: FakeMediaStep, times: number, status = 500): void {
    for (let index = 0; index < times; index++) this.mediaFailures.push({ step, status });
  }

  /** The files the business uploaded (`POST /{phoneNumberId}/media`), in order, with the bytes received. */
  uploads(): FakeUpload[] {
    return [...this.uploadedMedia];
  }

  /** Media requests received per step (metadata lookups and downloads), valid or not. */
  mediaRequests(step: FakeMediaStep): number {
    return this.mediaRequestCounts[step];
  }

  /** Graph API root to configure the sender with, e.g. `http://127.0.0.1:43210/v23.0`. */
  get baseUrl(): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}/${this.apiVersion}`;
  }

  /** POST requests received on the messages endpoint, valid or not (read receipts included). */
  get requestCount(): number {
    return this.received;
  }

  /** The bearer token the fake accepts. */
  get accessToken(): string {
    return this.token;
  }

  /** Accept another token from now on (the old one is rejected with code 190), like a rotation. */
  setAccessToken(token: string): void {
    this.token = token;
  }

  /** The WhatsApp Business Account whose templates `GET /{wabaId}/message_templates` lists. */
  get wabaId(): string {
    return this.businessAccountId;
  }

  /** The business's templates from now on, in the order Meta lists them (each translation its own entry). */
  setTemplates(templates: readonly FakeMessageTemplate[]): void {
    this.templates = templates.map((template, index) => ({ id: template.id ?? String(900_000_000_000 + index), ...template }));
  }

  /** Free text to `recipient` is refused with 131047 from now on (more than 24 hours since they wrote). */
  closeServiceWindow(recipient: string): void {
    this.closedWindows.add(recipient);
  }

  /** The customer wrote again: free text reaches them. */
  openServiceWindow(recipient: string): void {
    this.closedWindows.delete(recipient);
  }

  /** Text and template messages Meta would have accepted, in arrival order, each with the last status reported. */
  sent(): AcceptedWhatsAppMessage[] {
    return this.accepted.map((message) => ({ ...message }));
  }

  /** Where statuses go: the pipeline's webhook (signed, as Meta POSTs), or its End User Messaging topic. */
  reportStatusesTo(sink: StatusSink): void {
    this.statusSink = sink;
  }

  /**
   * Reports `status` for the message `providerMessageId` — one the fake accepted (its callback data
   * echoed, its record updated) or any other wamid (a message the pipeline did not send).
   */
  async reportStatus(providerMessageId: string, status: ReportableStatus, options: StatusOptions = {}): Promise<void> {
    if (this.statusSink === undefined) throw new Error('Fake Graph API: reportStatusesTo() first');
    const message = this.accepted.find((candidate) => candidate.providerMessageId === providerMessageId);
    const notification = statusNotification({
      businessPhoneNumberId: message?.businessPhoneNumberId ?? options.businessPhoneNumberId ?? '',
      providerMessageId,
      recipient: message?.recipient ?? options.recipient ?? '',
      status,
      callbackData: message?.callbackData,
      pricingCategory: message?.template && this.templates.find((template) => template.name === message.template?.name && template.language === message.template.language)?.category.toLowerCase(),
      errorCode: status === 'failed' ? (options.errorCode ?? 131026) : undefined,
      at: options.at ?? new Date(),
      ...(options.pricing !== undefined && { pricing: options.pricing }),
    });
    await this.statusSink(notification);
    if (message !== undefined) {
      message.status = status;
      for (const listener of this.statusListeners) listener({ ...message });
    }
  }

  /**
   * From now on, reports these statuses for every text message accepted, each `afterMs` after the
   * acceptance (e.g. sent at 200 ms, delivered at 600 ms, read at 1,500 ms); an empty list stops it.
   */
  reportAutomatically(statuses: readonly { readonly status: ReportableStatus; readonly afterMs: number }[]): void {
    this.automaticStatuses = statuses;
  }

  /** Calls `listener` with a message each time a status of it is reported; returns what stops it. */
  onStatus(listener: (message: AcceptedWhatsAppMessage) => void): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  readReceipts(): AcceptedReadReceipt[] {
    return [...this.receipts];
  }

  /** Resolves with {@link sent} once at least `count` text messages were accepted. */
  async waitForSent(count: number, timeoutMs = 5_000): Promise<AcceptedWhatsAppMessage[]> {
    if (this.accepted.length < count) {
      await new Promise<void>((resolve, reject) => {
        const waiter = { count, resolve: () => (clearTimeout(timer), resolve()) };
        const timer = setTimeout(() => {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          reject(new Error(`Fake Graph API: ${this.accepted.length} of ${count} messages after ${timeoutMs} ms`));
        }, timeoutMs);
        this.waiters.push(waiter);
      });
    }
    return this.sent();
  }

  /** Calls `listener` with each text message accepted from now on, as it is recorded; returns what stops it. */
  onSent(listener: (message: AcceptedWhatsAppMessage) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The Meta app, WhatsApp Business Account and phone numbers the set-up endpoints know. */
  get metaBusiness(): Required<FakeMetaBusiness> {
    return this.business;
  }

  /** Apps subscribed to a WhatsApp Business Account's webhooks (`POST /{wabaId}/subscribed_apps`), in order. */
  subscribedApps(): WabaSubscription[] {
    return [...this.wabaSubscriptions];
  }

  /** Webhook callbacks an app set (`POST /{appId}/subscriptions`) after a passed verification handshake, in order. */
  webhookCallbacks(): AppWebhookSubscription[] {
    return [...this.webhookSubscriptions];
  }

  /** The next `count` sends are rejected with Meta's error object (nothing is recorded). */
  failNext(count: number, failure: GraphApiFailure): void {
    this.schedule(count, { kind: 'fail', failure });
  }

  /**
   * The next `count` text sends are accepted (recorded) at once but answered only after `ms` —
   * a client that times out meanwhile faces an unknown outcome, like with the real API.
   */
  delayNext(count: number, ms: number): void {
    this.schedule(count, { kind: 'delay', ms });
  }

  /**
   * The next `count` text sends get this exact HTTP answer (e.g. a recorded Meta response, or a
   * malformed body). A 2xx answer still records the message: Meta accepted it.
   */
  answerNext(count: number, answer: RawGraphApiAnswer): void {
    this.schedule(count, { kind: 'raw', answer });
  }

  /** The next `count` text sends are accepted (recorded), then the connection is destroyed unanswered. */
  acceptThenDropConnection(count: number): void {
    this.schedule(count, { kind: 'drop' });
  }

  /** Forgets recorded messages, receipts, templates, closed windows, subscriptions and scheduled behaviour; keeps the token and the port. */
  reset(): void {
    this.wabaSubscriptions.length = 0;
    this.webhookSubscriptions.length = 0;
    this.templates = [];
    this.closedWindows.clear();
    this.accepted.length = 0;
    this.receipts.length = 0;
    this.scripted.length = 0;
    this.paceRefusals.reset();
    this.received = 0;
    this.uploadedMedia.length = 0;
  }

  async close(): Promise<void> {
    for (const timer of this.delayedAnswers) clearTimeout(timer);
    this.delayedAnswers.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve, reject) => this.server.close((error) => (error ? reject(error) : resolve())));
  }

  private schedule(count: number, answer: ScriptedAnswer): void {
    for (let index = 0; index < count; index++) this.scripted.push(answer);
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (this.handleMedia(request, response)) return;
    if (await this.handleUpload(request, response)) return;
    if (await this.handleAppSetup(request, response)) return;
    const route = new RegExp(`^/${escapeRegExp(this.apiVersion)}/([^/?]+)/messages(?:\\?.*)?$`).exec(request.url ?? '');
    const templatesRoute = new RegExp(`^/${escapeRegExp(this.apiVersion)}/([^/?]+)/message_templates(?:\\?.*)?$`).exec(request.url ?? '');
    const rawBody = await readBody(request);
    if (request.method === 'GET' && templatesRoute) {
      this.listTemplates(decodeURIComponent(templatesRoute[1]), request, response);
      return;
    }
    if (request.method !== 'POST' || !route) {
      graphError(response, 400, { code: 100, message: `Unsupported ${request.method} request to ${request.url}` });
      return;
    }
    this.received++;
    if (request.headers.authorization !== `Bearer ${this.token}`) {
      graphError(response, 401, { code: 190, message: 'Invalid OAuth access token - Cannot parse access token' });
      return;
    }
    const businessPhoneNumberId = decodeURIComponent(route[1]);
    const parsed = parseRequest(rawBody);
    if ('problem' in parsed) {
      graphError(response, 400, { code: parsed.code, message: parsed.message, details: parsed.problem });
      return;
    }
    if (parsed.kind === 'read') {
      this.receipts.push({ businessPhoneNumberId, ...parsed.receipt, receivedAt: new Date().toISOString() });
      sendJson(response, 200, { success: true });
      return;
    }
    if (parsed.kind === 'template') {
      const checked = checkTemplateSend(this.templates, parsed.template);
      if ('problem' in checked) {
        graphError(response, 400, { code: checked.code, message: checked.message, details: checked.problem });
        return;
      }
      this.answerText(businessPhoneNumberId, { ...parsed.message, text: checked.text, template: parsed.template }, response);
      return;
    }
    if (parsed.message.media !== undefined && !this.uploadedMedia.some(({ mediaId }) => mediaId === parsed.message.media?.mediaId)) {
      // Meta reports an unknown media id later, in a failed status; refusing it at once is stricter.
      graphError(response, 400, { code: 131053, message: '(#131053) Media upload error', details: `No uploaded media has the id ${parsed.message.media.mediaId}.` });
      return;
    }
    if (this.closedWindows.has(parsed.message.recipient)) {
      graphError(response, 400, {
        code: 131047,
        message: '(#131047) Re-engagement message',
        details: 'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
      });
      return;
    }
    this.answerText(businessPhoneNumberId, parsed.message, response);
  }

  /**
   * `POST /{version}/{phoneNumberId}/media`: a multipart upload of one file, answered with its id as
   * Meta does (`{"id": …}`); false for any other request.
   */
  private async handleUpload(request: IncomingMessage, response: ServerResponse): Promise<boolean> {
    const route = new RegExp(`^/${escapeRegExp(this.apiVersion)}/([^/?]+)/media$`).exec(request.url ?? '');
    if (request.method !== 'POST' || !route) return false;
    const raw = await readRawBody(request, MAX_UPLOAD_BYTES);
    if (request.headers.authorization !== `Bearer ${this.token}`) {
      graphError(response, 401, { code: 190, message: 'Invalid OAuth access token - Cannot parse access token' });
      return true;
    }
    const contentType = request.headers['content-type'] ?? '';
    if (!contentType.startsWith('multipart/form-data')) {
      graphError(response, 400, { code: 100, message: '(#100) Invalid parameter', details: 'An upload is multipart/form-data.' });
      return true;
    }
    const form = await new Response(raw, { headers: { 'content-type': contentType } }).formData().catch(() => undefined);
    const file = form?.get('file');
    const type = form?.get('type');
    if (form?.get('messaging_product') !== 'whatsapp') {
      graphError(response, 400, { code: 100, message: '(#100) Invalid parameter', details: 'The parameter messaging_product is required and must be "whatsapp".' });
      return true;
    }
    if (typeof type !== 'string' || !UPLOAD_TYPES.has(type)) {
      graphError(response, 400, { code: 100, message: '(#100) Invalid parameter', details: `Param type must be one of the supported media types, not ${String(type)}.` });
      return true;
    }
    if (file === null || file === undefined || typeof file === 'string') {
      graphError(response, 400, { code: 100, message: '(#100) Invalid parameter', details: 'The parameter file is required.' });
      return true;
    }
    // Meta's media ids are numeric strings.
    const mediaId = String(randomBytes(6).readUIntBE(0, 6));
    this.uploadedMedia.push({ businessPhoneNumberId: decodeURIComponent(route[1]), mediaId, mimeType: type, fileName: file.name, bytes: new Uint8Array(await file.arrayBuffer()) });
    sendJson(response, 200, { id: mediaId });
    return true;
  }

  /**
   * `GET /{version}/{mediaId}` of a registered attachment, and its download URL
   * (`/media-download/{mediaId}`); false for any other request.
   */
  private handleMedia(request: IncomingMessage, response: ServerResponse): boolean {
    if (request.method !== 'GET') return false;
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const [first, second, ...rest] = url.pathname.split('/').slice(1).map(decodeURIComponent);
    const step: FakeMediaStep | undefined = first === 'media-download' ? 'download' : first === this.apiVersion && this.media.has(second) ? 'metadata' : undefined;
    if (step === undefined || rest.length > 0) return false;
    this.mediaRequestCounts[step]++;
    const failure = this.mediaFailures.findIndex((candidate) => candidate.step === step);
    if (failure !== -1) {
      const [{ status }] = this.mediaFailures.splice(failure, 1);
      if (status === 0) response.destroy();
      else graphError(response, status, { code: 131016, message: `Fake ${step} failure` });
      return true;
    }
    if (request.headers.authorization !== `Bearer ${this.token}`) {
      graphError(response, 401, { code: 190, message: 'Invalid OAuth access token - Cannot parse access token' });
      return true;
    }
    const media = this.media.get(second);
    if (media === undefined) {
      graphError(response, 404, { code: 100, message: 'Unknown media' });
      return true;
    }
    if (step === 'metadata') {
      const { port } = this.server.address() as AddressInfo;
      sendJson(response, 200, {
        messaging_product: 'whatsapp',
        url: `http://127.0.0.1:${port}/media-download/${encodeURIComponent(second)}`,
        mime_type: media.mimeType,
        sha256: createHash('sha256').update(media.bytes).digest('hex'),
        file_size: media.fileSize ?? media.bytes.byteLength,
        id: second,
      });
      return true;
    }
    response.writeHead(200, { 'content-type': media.mimeType, 'content-length': String(media.bytes.byteLength) });
    response.end(Buffer.from(media.bytes));
    return true;
  }

  /** The endpoints of connecting the app (the set-up command's calls); false for any other request. */
  private async handleAppSetup(request: IncomingMessage, response: ServerResponse): Promise<boolean> {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const [version, node, edge, ...rest] = url.pathname.split('/').slice(1).map(decodeURIComponent);
    if (version !== this.apiVersion || node === undefined || rest.length > 0) return false;
    const route = `${request.method} ${edge === undefined ? (node === 'debug_token' ? 'debug_token' : 'node') : edge}`;
    const bearer = request.headers.authorization?.replace(/^Bearer /, '');
    const appToken = `${this.business.appId}|${this.business.appSecret}`;
    const unknownObject = () =>
      graphError(response, 400, {
        code: 100,
        subcode: 33,
        type: 'GraphMethodException',
        message: `Unsupported ${request.method?.toLowerCase()} request. Object with ID '${node}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
      });
    switch (route) {
      case 'GET debug_token': {
        // Read with the app's own token (`{app-id}|{app-secret}`): only the right app secret gets an answer.
        if (bearer !== appToken) return invalidAppToken(response);
        const valid = url.searchParams.get('input_token') === this.token;
        sendJson(response, 200, {
          data: valid
            ? {
                app_id: this.business.appId,
                type: 'SYSTEM_USER',
                application: this.business.appName,
                expires_at: 0,
                is_valid: true,
                issued_at: Math.floor(Date.now() / 1000),
                scopes: this.business.scopes,
                granular_scopes: this.business.scopes.map((scope) => ({ scope, target_ids: [this.business.businessAccountId] })),
                user_id: '100000000000099',
              }
            : { error: { code: 190, message: 'Invalid OAuth access token.' }, is_valid: false, scopes: [] },
        });
        return true;
      }
      case 'GET node': {
        if (bearer !== this.token) return invalidAccessToken(response);
        const phone = this.business.phoneNumbers[node];
        if (phone === undefined) return (unknownObject(), true);
        const known: Record<string, string> = { id: node, display_phone_number: phone.displayPhoneNumber, verified_name: phone.verifiedName };
        const fields = (url.searchParams.get('fields') ?? 'id').split(',');
        sendJson(response, 200, Object.fromEntries(Object.entries(known).filter(([field]) => field === 'id' || fields.includes(field))));
        return true;
      }
      case 'POST subscribed_apps': {
        await readBody(request);
        if (bearer !== this.token) return invalidAccessToken(response);
        if (node !== this.business.businessAccountId) return (unknownObject(), true);
        this.wabaSubscriptions.push({ businessAccountId: node, appId: this.business.appId, receivedAt: new Date().toISOString() });
        sendJson(response, 200, { success: true });
        return true;
      }
      case 'POST subscriptions': {
        const parameters = new URLSearchParams(await readBody(request));
        if (bearer !== appToken) return invalidAppToken(response);
        if (node !== this.business.appId) return (unknownObject(), true);
        await this.subscribeWebhook(parameters, response);
        return true;
      }
      default:
        return false;
    }
  }

  /** Meta checks the callback before it keeps it: a GET with `hub.challenge`, which must come back as the body. */
  private async subscribeWebhook(parameters: URLSearchParams, response: ServerResponse): Promise<void> {
    const invalid = (details: string) => graphError(response, 400, { code: 100, message: `(#100) ${details}` });
    const [object, callbackUrl, verifyToken] = ['object', 'callback_url', 'verify_token'].map((name) => parameters.get(name) ?? '');
    const fields = (parameters.get('fields') ?? '').split(',').filter((field) => field !== '');
    if (object !== 'whatsapp_business_account') return invalid('Param object must be one of {user, page, permissions, whatsapp_business_account, ...}');
    if (fields.length === 0) return invalid('Param fields is required');
    if (callbackUrl === '' || verifyToken === '') return invalid('Params callback_url and verify_token are required');
    const verification = await verifyCallback(callbackUrl, verifyToken);
    if (verification !== undefined) {
      graphError(response, 400, { code: 2200, type: 'GraphMethodException', message: `(#2200) Callback verification failed with the following errors: ${verification}` });
      return;
    }
    this.webhookSubscriptions.push({ appId: this.business.appId, object, callbackUrl, verifyToken, fields, receivedAt: new Date().toISOString() });
    sendJson(response, 200, { success: true });
  }

  /** `GET /{wabaId}/message_templates?limit=&after=`: Meta's page of templates, its cursors and the next page's URL. */
  private listTemplates(wabaId: string, request: IncomingMessage, response: ServerResponse): void {
    if (request.headers.authorization !== `Bearer ${this.token}`) {
      graphError(response, 401, { code: 190, message: 'Invalid OAuth access token - Cannot parse access token' });
      return;
    }
    if (wabaId !== this.businessAccountId) {
      graphError(response, 400, { code: 100, subcode: 33, type: 'GraphMethodException', message: `Unsupported get request. Object with ID '${wabaId}' does not exist` });
      return;
    }
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const limit = Number(url.searchParams.get('limit') ?? TEMPLATE_PAGE_SIZE);
    const after = url.searchParams.get('after');
    const start = after === null ? 0 : Number.parseInt(Buffer.from(after, 'base64url').toString('utf8'), 10);
    if (!Number.isInteger(limit) || limit < 1 || !Number.isInteger(start) || start < 0) {
      graphError(response, 400, { code: 100, message: '(#100) Invalid parameter', details: 'limit must be a positive integer and after a cursor this API returned.' });
      return;
    }
    const data = this.templates.slice(start, start + limit);
    const cursor = (index: number) => Buffer.from(String(index), 'utf8').toString('base64url');
    const more = start + limit < this.templates.length;
    const next = new URL(url.pathname, this.baseUrl);
    next.searchParams.set('limit', String(limit));
    next.searchParams.set('after', cursor(start + limit));
    sendJson(response, 200, {
      data,
      paging: { cursors: { before: cursor(start), after: cursor(start + data.length) }, ...(more ? { next: next.toString() } : {}) },
    });
  }

  private answerText(businessPhoneNumberId: string, message: ParsedTextMessage, response: ServerResponse): void {
    const paced = this.paceRefusals.take(message.recipient);
    if (paced !== undefined) {
      graphError(response, paced.httpStatus, paced);
      return;
    }
    const scripted = this.scripted.shift();
    if (scripted?.kind === 'fail') {
      graphError(response, scripted.failure.httpStatus, scripted.failure);
      return;
    }
    if (scripted?.kind === 'raw' && !isSuccess(scripted.answer.httpStatus)) {
      sendRaw(response, scripted.answer);
      return;
    }

    const accepted = this.record(businessPhoneNumberId, message);
    const success = {
      messaging_product: 'whatsapp',
      contacts: [message.recipientKind === 'phone' ? { input: message.recipient, wa_id: message.recipient } : { input: message.recipient, user_id: message.recipient }],
      messages: [{ id: accepted.providerMessageId }],
    };
    switch (scripted?.kind) {
      case 'raw':
        sendRaw(response, scripted.answer);
        return;
      case 'drop':
        response.socket?.destroy();
        return;
      case 'delay': {
        const timer = setTimeout(() => {
          this.delayedAnswers.delete(timer);
          if (!response.destroyed) sendJson(response, 200, success);
        }, scripted.ms);
        this.delayedAnswers.add(timer);
        return;
      }
      default:
        sendJson(response, 200, success);
    }
  }

  private record(businessPhoneNumberId: string, message: ParsedTextMessage): AcceptedWhatsAppMessage {
    const accepted: Mutable<AcceptedWhatsAppMessage> = {
      businessPhoneNumberId,
      ...message,
      providerMessageId: `wamid.${randomBytes(24).toString('base64url')}`,
      receivedAt: new Date().toISOString(),
    };
    this.accepted.push(accepted);
    for (const { status, afterMs } of this.automaticStatuses) {
      const timer = setTimeout(() => {
        this.delayedAnswers.delete(timer);
        // Best effort, as Meta's: a status the pipeline cannot take now is simply not seen.
        this.reportStatus(accepted.providerMessageId, status).catch(() => undefined);
      }, afterMs);
      this.delayedAnswers.add(timer);
    }
    for (const listener of this.listeners) listener(accepted);
    for (const waiter of this.waiters.filter((candidate) => candidate.count <= this.accepted.length)) {
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    return accepted;
  }
}

/** An attachment registered with {@link FakeGraphApi.registerMedia}. */
export interface FakeMedia {
  readonly bytes: Uint8Array;
  readonly mimeType: string;
  /** The size the metadata reports, when it should differ from the bytes (a provider that lies). */
  readonly fileSize?: number;
}

/** A file received by the upload endpoint. */
export interface FakeUpload {
  readonly businessPhoneNumberId: string;
  /** The id answered, which a media message names. */
  readonly mediaId: string;
  /** The form's `type`. */
  readonly mimeType: string;
  /** The file part's file name. */
  readonly fileName: string;
  readonly bytes: Uint8Array;
}

/** The upload types Meta documents for images and documents (the ones the pipeline sends). */
const UPLOAD_TYPES: ReadonlySet<string> = new Set([
  'image/jpeg',
  'image/png',
  'text/plain',
  'application/pdf',
  'application/vnd.ms-powerpoint',
  'application/msword',
  'application/vnd.ms-excel',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
]);

/** The two requests of a Cloud API download: the metadata lookup, then the URL it names. */
export type FakeMediaStep = 'metadata' | 'download';

export interface FakeGraphApiOptions {
  /** Bearer token to accept. Default `fake-whatsapp-access-token`. */
  readonly accessToken?: string;
  /** The Meta app and business the set-up endpoints play. Default: {@link DEFAULT_BUSINESS}'s, field by field. */
  readonly business?: FakeMetaBusiness;
  /** First path segment of the base URL. Default `v23.0`. */
  readonly apiVersion?: string;
  /** Default 0 (a free port). */
  readonly port?: number;
  /** The WhatsApp Business Account id whose templates are served. Default: the business's (`business.businessAccountId`). */
  readonly businessAccountId?: string;
}

/** Meta's default page size of the templates list. */
const TEMPLATE_PAGE_SIZE = 25;

export interface AcceptedWhatsAppMessage {
  /** The business phone number id from the URL. */
  readonly businessPhoneNumberId: string;
  /** The customer: `to` (a phone) or `recipient` (a business-scoped user id). */
  readonly recipient: string;
  readonly recipientKind: 'phone' | 'user_id';
  /** The text, or the template's body as delivered (its values filled in). */
  readonly text: string;
  /** Present for a template message. */
  readonly template?: AcceptedTemplate;
  /** Present for an image or a document message (`text` is its caption, or empty). */
  readonly media?: AcceptedMedia;
  /** Present for an interactive message, as sent (`text` is its body). */
  readonly interactive?: AcceptedInteractive;
  readonly previewUrl?: boolean;
  readonly contextMessageId?: string;
  /** `biz_opaque_callback_data` of the send, echoed in the message's statuses. */
  readonly callbackData?: string;
  /** The `wamid.` id answered to the client. */
  readonly providerMessageId: string;
  readonly receivedAt: string;
  /** The last status reported for it; absent until the first. */
  readonly status?: ReportableStatus;
}

/** The media object of an image or document message, as sent. */
export interface AcceptedMedia {
  readonly kind: 'image' | 'document';
  readonly mediaId: string;
  readonly caption?: string;
  readonly filename?: string;
}

/** A Meta app with the WhatsApp product, as far as connecting it goes. */
export interface FakeMetaBusiness {
  readonly appId?: string;
  /** Signs the app's own token (`{app-id}|{app-secret}`) — and, deployed, every webhook request. */
  readonly appSecret?: string;
  readonly appName?: string;
  /** The WhatsApp Business Account (WABA) the phone numbers belong to. */
  readonly businessAccountId?: string;
  /** Phone number id → what `GET /{phoneNumberId}` tells of it. */
  readonly phoneNumbers?: Readonly<Record<string, { readonly displayPhoneNumber: string; readonly verifiedName: string }>>;
  /** The permissions the access token carries (`debug_token`'s scopes). */
  readonly scopes?: readonly string[];
}

/** The fake's Meta app: the local runtime's business number (local/runtime/meta-notification.ts). */
export const DEFAULT_BUSINESS: Required<FakeMetaBusiness> = {
  appId: '100000000000000',
  appSecret: 'fake-meta-app-secret',
  appName: 'Local WhatsApp Agent',
  businessAccountId: '100000000000001',
  phoneNumbers: { '100000000000002': { displayPhoneNumber: '+1 555-000-0000', verifiedName: 'Local Test Business' } },
  scopes: ['whatsapp_business_messaging', 'whatsapp_business_management'],
};

/** `POST /{wabaId}/subscribed_apps`: the app receives the account's webhooks. */
export interface WabaSubscription {
  readonly businessAccountId: string;
  readonly appId: string;
  readonly receivedAt: string;
}

/** `POST /{appId}/subscriptions`: where the app's webhooks go, for which fields. */
export interface AppWebhookSubscription {
  readonly appId: string;
  readonly object: string;
  readonly callbackUrl: string;
  readonly verifyToken: string;
  readonly fields: readonly string[];
  readonly receivedAt: string;
}

/** The statuses Meta reports for a message the business sent. */
export type ReportableStatus = 'sent' | 'delivered' | 'read' | 'failed';

/** Delivers one `statuses` notification to the pipeline; rejects when the pipeline did not take it. */
export type StatusSink = (notification: StatusNotification) => Promise<void>;

export interface StatusOptions {
  /** Meta's error code of a `failed` status. Default 131026 (undeliverable). */
  readonly errorCode?: number;
  /** When the status happened. Default: now. */
  readonly at?: Date;
  /** For a wamid the fake did not accept: the business number and recipient to name. */
  readonly businessPhoneNumberId?: string;
  readonly recipient?: string;
  /**
   * Meta's `pricing` object as the status should carry it. Default: what Meta sends for the message
   * — its template's category, billed; a free-form reply as a free customer-service message.
   */
  readonly pricing?: StatusPricing;
}

/** The `pricing` object of a status, in Meta's field names. */
export interface StatusPricing {
  readonly billable: boolean;
  readonly pricing_model: string;
  readonly category: string;
  readonly type?: string;
}

/** Meta's notification of delivery statuses (the `messages` field with `statuses[]`). */
export interface StatusNotification {
  readonly object: 'whatsapp_business_account';
  readonly entry: readonly object[];
}

/** One status of one message, as {@link statusNotification} reports it. */
export interface StatusReport {
  readonly businessPhoneNumberId: string;
  readonly providerMessageId: string;
  readonly recipient: string;
  readonly status: ReportableStatus;
  readonly at: Date;
  readonly callbackData?: string;
  readonly errorCode?: number;
  /** The template's category (`marketing`, `utility`, `authentication`) for a template message; a free-form message is `service`. */
  readonly pricingCategory?: string;
  /** Wins over the pricing `pricingCategory` gives. */
  readonly pricing?: StatusPricing;
}

/** Titles Meta gives the error codes a status of the pipeline's replies may carry. */
const ERROR_TITLES: Readonly<Record<number, string>> = {
  131047: 'Re-engagement message',
  131026: 'Message undeliverable',
  131049: 'This message was not delivered to maintain healthy ecosystem engagement.',
  131051: 'Unsupported message type',
};

/**
 * One status as Meta's webhook reports it: `id`, `status`, `timestamp`, `recipient_id`, the
 * send's `biz_opaque_callback_data`, and for `failed` an `errors[]` of `{code, title, message,
 * error_data.details, href}`; `conversation` and `pricing {billable, pricing_model, category, type}`
 * on `sent` and `delivered`: a free-form reply in the customer's window is free (`service`,
 * `free_customer_service`), a template billed at its category (`regular`).
 */
export function statusNotification(report: StatusReport): StatusNotification {
  const title = report.errorCode === undefined ? undefined : (ERROR_TITLES[report.errorCode] ?? 'Generic user error');
  const billed = report.status === 'sent' || report.status === 'delivered';
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: DEFAULT_BUSINESS.businessAccountId,
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550000000', phone_number_id: report.businessPhoneNumberId },
              statuses: [
                {
                  id: report.providerMessageId,
                  status: report.status,
                  timestamp: String(Math.floor(report.at.getTime() / 1000)),
                  recipient_id: report.recipient,
                  ...(report.callbackData !== undefined && { biz_opaque_callback_data: report.callbackData }),
                  ...(billed && {
                    conversation: { id: randomBytes(16).toString('hex'), origin: { type: 'service' } },
                    pricing: report.pricing ?? statusPricing(report.pricingCategory),
                  }),
                  ...(report.errorCode !== undefined && {
                    errors: [
                      {
                        code: report.errorCode,
                        title,
                        message: title,
                        error_data: { details: title },
                        href: 'https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes/',
                      },
                    ],
                  }),
                },
              ],
            },
          },
        ],
      },
    ],
  };
}

function statusPricing(templateCategory: string | undefined): StatusPricing {
  return templateCategory === undefined
    ? { billable: false, pricing_model: 'PMP', category: 'service', type: 'free_customer_service' }
    : { billable: true, pricing_model: 'PMP', category: templateCategory, type: 'regular' };
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export type { AcceptedTemplate } from './fake-template-send';

/** A template as `GET /{wabaId}/message_templates` returns it (the fields the pipeline reads). */
export interface FakeMessageTemplate {
  readonly name: string;
  readonly language: string;
  readonly status: string;
  readonly category: string;
  /** Default: an id of Meta's shape. */
  readonly id?: string;
  /** `NAMED` for `{{first_name}}` parameters; default positional. */
  readonly parameter_format?: 'POSITIONAL' | 'NAMED';
  readonly components: readonly FakeTemplateComponent[];
}

export interface AcceptedReadReceipt {
  readonly businessPhoneNumberId: string;
  readonly messageId: string;
  readonly typingIndicator: boolean;
  readonly receivedAt: string;
}

/** A Graph API error answer: `{error: {message, type, code, error_subcode?, error_data?, fbtrace_id}}`. */
export interface GraphApiFailure {
  readonly httpStatus: number;
  readonly code: number;
  readonly message?: string;
  readonly subcode?: number;
  /** `error_data.details`. */
  readonly details?: string;
  /** Default `OAuthException`, as Meta answers for Cloud API errors. */
  readonly type?: string;
}

export interface RawGraphApiAnswer {
  readonly httpStatus: number;
  readonly body: string;
  /** Default `application/json`. */
  readonly contentType?: string;
}

type ScriptedAnswer =
  | { readonly kind: 'fail'; readonly failure: GraphApiFailure }
  | { readonly kind: 'delay'; readonly ms: number }
  | { readonly kind: 'raw'; readonly answer: RawGraphApiAnswer }
  | { readonly kind: 'drop' };

type ParsedTextMessage = Omit<AcceptedWhatsAppMessage, 'businessPhoneNumberId' | 'providerMessageId' | 'receivedAt' | 'status'>;

type ParsedRequest =
  | { readonly kind: 'text'; readonly message: ParsedTextMessage }
  | { readonly kind: 'template'; readonly message: Omit<ParsedTextMessage, 'text'>; readonly template: AcceptedTemplate }
  | { readonly kind: 'read'; readonly receipt: Pick<AcceptedReadReceipt, 'messageId' | 'typingIndicator'> }
  | { readonly problem: string; readonly code: number; readonly message: string };

const TEXT_BODY_LIMIT = 4096;
const PHONE_PATTERN = /^\+?\d{6,20}$/;
/** Business-scoped user ids: a country code, a period and an alphanumeric id (`US.13491208655302741918`). */
const USER_ID_PATTERN = /^[A-Z]{2}(\.[A-Z]+)?\.[A-Za-z0-9]+$/;

/** Meta's request validation, as far as the pipeline's requests go. */
function parseRequest(rawBody: string): ParsedRequest {
  const invalid = (problem: string, code = 100, message = '(#100) Invalid parameter') => ({ problem, code, message });
  let body: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(rawBody);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return invalid('The request body must be a JSON object.');
    body = parsed as Record<string, unknown>;
  } catch {
    return invalid('The request body is not valid JSON.');
  }
  if (body.messaging_product !== 'whatsapp') {
    return invalid('The parameter messaging_product is required and must be "whatsapp".');
  }

  if (body.status !== undefined) {
    if (body.status !== 'read' || typeof body.message_id !== 'string' || body.message_id === '') {
      return invalid('A read receipt needs status "read" and a message_id.');
    }
    const typing = body.typing_indicator as { type?: unknown } | undefined;
    if (typing !== undefined && typing?.type !== 'text') return invalid('typing_indicator.type must be "text".');
    return { kind: 'read', receipt: { messageId: body.message_id, typingIndicator: typing !== undefined } };
  }

  if (body.recipient_type !== undefined && body.recipient_type !== 'individual') {
    return invalid('recipient_type must be "individual".');
  }
  const hasTo = body.to !== undefined;
  const hasRecipient = body.recipient !== undefined;
  if (hasTo === hasRecipient) return invalid('Exactly one of the parameters to and recipient is required.');
  if (hasTo && (typeof body.to !== 'string' || !PHONE_PATTERN.test(body.to))) {
    return invalid('The parameter to must be a phone number.');
  }
  if (hasRecipient && (typeof body.recipient !== 'string' || !USER_ID_PATTERN.test(body.recipient))) {
    return invalid('The parameter recipient must be a business-scoped user id.');
  }
  const callbackData = body.biz_opaque_callback_data;
  if (callbackData !== undefined && (typeof callbackData !== 'string' || callbackData.length > 512)) {
    return invalid('Param biz_opaque_callback_data must be a string of at most 512 characters.');
  }
  const recipient = {
    recipient: (hasTo ? body.to : body.recipient) as string,
    recipientKind: hasTo ? ('phone' as const) : ('user_id' as const),
    ...(callbackData === undefined ? {} : { callbackData }),
  };
  if (body.type === 'template') {
    const template = parseTemplateSend(body.template);
    return 'problem' in template ? invalid(template.problem) : { kind: 'template', message: recipient, template };
  }
  if (body.type === 'image' || body.type === 'document') {
    const media = body[body.type] as { id?: unknown; link?: unknown; caption?: unknown; filename?: unknown } | undefined;
    if (typeof media?.id !== 'string' || media.id === '') return invalid(`The parameter ${body.type}['id'] is required (the pipeline sends uploads, never links).`);
    if (media.caption !== undefined && (typeof media.caption !== 'string' || media.caption.length > 1024)) return invalid(`Param ${body.type}['caption'] must be a string of at most 1024 characters.`);
    if (media.filename !== undefined && (body.type !== 'document' || typeof media.filename !== 'string')) return invalid("Param filename is only for a document, and must be a string.");
    const accepted: AcceptedMedia = {
      kind: body.type,
      mediaId: media.id,
      ...(media.caption === undefined ? {} : { caption: media.caption as string }),
      ...(media.filename === undefined ? {} : { filename: media.filename as string }),
    };
    return { kind: 'text', message: { ...recipient, text: accepted.caption ?? '', media: accepted } };
  }
  if (body.type === 'interactive') {
    const interactive = checkInteractive(body.interactive);
    return 'problem' in interactive ? interactive : { kind: 'text', message: { ...recipient, text: interactive.body.text, interactive } };
  }
  if (body.type !== 'text') return invalid(`Message type ${String(body.type)} is not supported here.`, 131051, '(#131051) Unsupported message type');

  const text = body.text as { body?: unknown; preview_url?: unknown } | undefined;
  if (typeof text?.body !== 'string' || text.body.length === 0) return invalid("The parameter text['body'] is required.");
  if (text.body.length > TEXT_BODY_LIMIT) return invalid(`Param text['body'] must be at most ${TEXT_BODY_LIMIT} characters long.`);
  if (text.preview_url !== undefined && typeof text.preview_url !== 'boolean') return invalid("Param text['preview_url'] must be a boolean.");

  const context = body.context as { message_id?: unknown } | undefined;
  if (context !== undefined && (typeof context?.message_id !== 'string' || context.message_id === '')) {
    return invalid("Param context['message_id'] must be a message id.");
  }

  return {
    kind: 'text',
    message: {
      ...recipient,
      text: text.body,
      ...(text.preview_url === undefined ? {} : { previewUrl: text.preview_url }),
      ...(context ? { contextMessageId: context.message_id as string } : {}),
    },
  };
}

const MAX_REQUEST_BYTES = 1024 * 1024;
/** Meta takes documents up to 100 MB; more than the pipeline ever uploads. */
const MAX_UPLOAD_BYTES = 32 * 1024 * 1024;

async function readBody(request: IncomingMessage): Promise<string> {
  return (await readRawBody(request)).toString('utf8');
}

async function readRawBody(request: IncomingMessage, limit = MAX_REQUEST_BYTES): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new Error('request body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function graphError(response: ServerResponse, httpStatus: number, failure: Omit<GraphApiFailure, 'httpStatus'>): void {
  sendJson(response, httpStatus, {
    error: {
      message: failure.message ?? `(#${failure.code}) Error`,
      type: failure.type ?? 'OAuthException',
      code: failure.code,
      ...(failure.subcode === undefined ? {} : { error_subcode: failure.subcode }),
      ...(failure.details === undefined ? {} : { error_data: { messaging_product: 'whatsapp', details: failure.details } }),
      fbtrace_id: randomBytes(12).toString('base64url'),
    },
  });
}

function invalidAccessToken(response: ServerResponse): true {
  graphError(response, 401, { code: 190, message: 'Invalid OAuth access token - Cannot parse access token' });
  return true;
}

function invalidAppToken(response: ServerResponse): true {
  graphError(response, 400, { code: 190, message: 'Invalid OAuth access token signature.' });
  return true;
}

/**
 * Meta's verification request to a callback URL: `undefined` once it answered the challenge, else
 * what went wrong. Only loopback callbacks are called: the fake never reaches beyond this machine.
 */
async function verifyCallback(callbackUrl: string, verifyToken: string): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(callbackUrl);
  } catch {
    return "The URL couldn't be validated.";
  }
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) return `The fake Graph API calls loopback callbacks only, not ${url.host}.`;
  const challenge = String(randomBytes(4).readUInt32BE());
  url.searchParams.set('hub.mode', 'subscribe');
  url.searchParams.set('hub.challenge', challenge);
  url.searchParams.set('hub.verify_token', verifyToken);
  try {
    const answer = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    const body = await answer.text();
    if (answer.status !== 200) return `HTTP Status Code = ${answer.status}; HTTP Message = ${answer.statusText}`;
    return body === challenge ? undefined : `The URL couldn't be validated. Response does not match challenge, expected value="${challenge}", received="${body.slice(0, 40)}"`;
  } catch (error) {
    return `The URL couldn't be reached: ${(error as Error).message}`;
  }
}

function sendJson(response: ServerResponse, httpStatus: number, body: unknown): void {
  sendRaw(response, { httpStatus, body: JSON.stringify(body) });
}

function sendRaw(response: ServerResponse, answer: RawGraphApiAnswer): void {
  response.writeHead(answer.httpStatus, { 'content-type': answer.contentType ?? 'application/json' });
  response.end(answer.body);
}

function isSuccess(httpStatus: number): boolean {
  return httpStatus >= 200 && httpStatus < 300;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
