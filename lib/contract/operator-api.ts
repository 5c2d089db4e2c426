/**
 * The operator API (docs/OPERATOR-API.md): the body and the answer of every `/api/*` call, as the
 * operator function sends them and the console reads them. Types only, CDK-free and DOM-free: the
 * console imports it with `import type`, so no server code reaches the browser bundle, and the
 * function's routes are declared by their key in {@link OperatorApiCalls}, so an answer that misses
 * a field, or a body schema that misses one, does not compile.
 * Internal: not part of the jsii API.
 */

import type { DeliveryFailureClass } from './metrics';
import type { HandoffReport, UsageReport } from './usage-report';
import type { PromptVersion, PromptAnswer, PromptEdit, PromptRollback, ConfigAnswer, ConfigEdit, AuditEvent, Demand, ConsentEvent, CrmSyncRow, CrmProblems, CrmSyncAnswer, CrmResolution, DeadLetters, DeploymentAdmin, RedriveRequest, RedriveAnswer, CustomerExport, ErasureRequest, ErasureAnswer, TurnTraceView } from './operator-api-admin';
import type { Timestamp, JsonObject, Page, ConversationState, OperatorRole, MessageRole, CarriesChoices, ReplyRequest } from './operator-api-basics';
import type { MessageTemplate, TemplateRef, TemplateSendRequest, TemplateSyncAnswer } from './operator-api-templates';
import type { ConversationScenarioAnswer, DraftPublication, EvaluationAnswer, EvaluationList, EvaluationRequest, PromptDraftAnswer, PromptDraftEdit, ScenarioAnswer, ScenarioEdit, ScenarioRemoved, ScenarioSuite } from './operator-api-evaluation';

export type { AgentUsage, AwsEstimate, DailyAgentUsage, DailyHandoffs, HandoffFigures, HandoffReport, ModelUsage, UsageReport, UtcDay } from './usage-report';
export type { PromptVersion, PromptAnswer, PromptEdit, PromptRollback, ConfigSetting, ConfigAnswer, ConfigEdit, AuditEvent, Demand, ConsentEvent, CrmSyncStatus, CrmSyncRow, CrmProblems, CrmSyncAnswer, CrmResolution, ReplyRecord, DeadLetterInspection, DeadLetterReason, DeadLetterCard, DeadLetters, DeploymentAdmin, RedriveRequest, RedriveAnswer, CustomerExport, ErasureRequest, ErasureAnswer, TurnTraceView } from './operator-api-admin';
export type { Timestamp, JsonObject, StoredItem, Page, ApiErrorBody, ApiProblem, ConversationState, OperatorRole, MessageRole, CarriesChoices, HistoryInteractive, HistoryChoice, ReplyRequest } from './operator-api-basics';
export type { ConversationScenarioAnswer, DraftPublication, EvaluationAnswer, EvaluationList, EvaluationRequest, EvaluationRun, EvaluationStatus, PromptDraft, PromptDraftAnswer, PromptDraftEdit, ScenarioAnswer, ScenarioComparison, ScenarioEdit, ScenarioOutcome, ScenarioRemoved, ScenarioSuite, StoredScenario } from './operator-api-evaluation';
export type { MessageTemplate, TemplateButtonParameter, TemplateButtonValue, TemplateHeaderParameter, TemplateRef, TemplateSendRequest, TemplateSyncAnswer } from './operator-api-templates';

// ---- Signing in --------------------------------------------------------------------------------------

export interface SignInRequest {
  /** The part of the login link after `#`. */
  readonly token: string;
}

/** The signed-in operator: the answer of `POST` and `GET /api/session`, the console's boot call. */
export interface SignedInSession {
  readonly operator: { readonly phone: string; readonly name?: string };
  readonly role: OperatorRole;
  /** Sent back in `X-CSRF-Token` on every call that is not a `GET`. */
  readonly csrfToken: string;
  readonly expiresAt: Timestamp;
  /**
   * Whether the operator is available now, as the handoff notifications see it: declared today
   * (local day) and within `availability_ttl_hours`.
   */
  readonly available: boolean;
}

export interface SignedOut {
  readonly signedOut: true;
}

// ---- Conversations -----------------------------------------------------------------------------------

/** One row of the inbox: what the session item says, no history read per row. */
export interface ConversationSummary {
  readonly customerId: string;
  /** The customer's name as the agent learned it (`cadastralData.name`, qualification `name`/`nome`). */
  readonly displayName?: string;
  /** The customer's WhatsApp profile name, as their last message carried it. */
  readonly profileName?: string;
  readonly state: ConversationState;
  readonly assignedTo?: string;
  /** The name the operators list gives `assignedTo` (absent for a deploy-time admin the list does not name). */
  readonly assignedToName?: string;
  readonly waitingSince?: Timestamp;
  /** While people have it (`AWAITING_HUMAN`, `HUMAN_ACTIVE`): why the agent handed it over, in its words (at most 500 characters). */
  readonly handoffReason?: string;
  /** The customer's last message (never the agent's, an operator's or the pipeline's), cut to 120 characters on a word boundary. */
  readonly lastMessage?: { readonly role: 'user'; readonly preview: string; readonly at: Timestamp };
  /** The last activity: the session's last write. */
  readonly updatedAt: Timestamp;
  /** The customer wrote since the operator asking last opened the conversation (or they never opened it). */
  readonly unread: boolean;
}

/** The customer's active session. */
export interface ConversationView extends Omit<ConversationSummary, 'lastMessage' | 'unread'> {
  readonly sessionId: string;
  readonly qualificationData: JsonObject;
  /** The customer's registration data the agent recorded (`name`, `email`, `document_id`, `company`, `city`). */
  readonly cadastralData: JsonObject;
  /** The customer segment the agent recorded. */
  readonly segment?: string;
  /** What the customer wants, as the agent recorded it. */
  readonly intent?: string;
  /** With `AgentBackend.stages()`: the stage that has the conversation. */
  readonly currentAgent?: string;
  readonly createdAt: Timestamp;
  /** WhatsApp's 24-hour window since the customer's last message: free text only while it is open; templates always. */
  readonly serviceWindow: ServiceWindow;
}

export interface ServiceWindow {
  readonly open: boolean;
  /** When it closes (open) or closed (closed); absent when the customer never wrote. */
  readonly closesAt?: Timestamp;
}

/** One message of the customer's history (across sessions). */
export interface HistoryEntry extends CarriesChoices {
  readonly messageId: string;
  readonly sessionId: string;
  readonly direction: 'inbound' | 'outbound';
  /** `system`: texts the pipeline sent, such as "nobody is available". */
  readonly role: MessageRole;
  readonly text: string;
  readonly at: Timestamp;
  /**
   * `superseded` replies were never sent; `maybe_sent` ones may have reached the customer (an
   * attempt died between the send and its record) and were not sent again.
   */
  readonly deliveryStatus?: 'pending_send' | 'sent' | 'superseded' | 'failed_permanent' | 'maybe_sent';
  /** What WhatsApp last reported of a sent message (its ticks): absent until the first status. */
  readonly receipt?: 'sent' | 'delivered' | 'read' | 'failed';
  /** When WhatsApp reported `receipt`. */
  readonly receiptAt?: Timestamp;
  /**
   * Present when WhatsApp could not deliver the message. `window-closed` (131047): only a template
   * reaches the customer now.
   */
  readonly deliveryFailure?: DeliveryFailure;
  readonly operatorPhone?: string;
  /** The operator's name, as the operators list has it now (absent when it names none). */
  readonly operatorName?: string;
  /** Sent as this approved template; `text` is its body as the customer read it. */
  readonly template?: TemplateRef;
  /** The emoji the customer reacted to this message with (their latest reaction; none once removed). */
  readonly reaction?: string;
  /** The customer edited this message: `text` is the edited text. */
  readonly editedAt?: Timestamp;
  /** The customer deleted this message: `text` is empty and no attachment is listed. */
  readonly revokedAt?: Timestamp;
  /** The message's attachment; `GET …/messages/:messageId/media?at=` links to a stored one. */
  readonly media?: HistoryMedia;
  /** What Meta charges for it, once a status of it said how Meta bills it. */
  readonly metaFee?: MetaFee;
  /** An agent reply's estimated cost, in admins' reads only: its turn's model calls and the pipeline's AWS share. */
  readonly agentCost?: AgentReplyCost;
  /** An agent's reply: the customer message it answers, which names its turn (admins read the turn's trace by it). */
  readonly replyTo?: string;
  /** An agent reply's knowledge-base sources: the documents (S3 URIs, URLs…) of the passages its searches found. */
  readonly knowledgeSources?: readonly string[];
}

/** What an agent reply cost besides Meta's fee: estimates, never a bill. */
export interface AgentReplyCost {
  /** USD of the turn's model calls (the memory's fold included) at the admin's `model_prices` over the packaged ones; absent when no model of it has a price. */
  readonly modelUsd?: number;
  /** USD of the pipeline's AWS resources for the reply: the measured usage per reply and the orchestrator's wait on the model (`aws-cost-estimate.ts`). */
  readonly awsUsd: number;
}

/** A message's fee at the documented rate table (`meta-message-rates.ts`): an estimate, never a bill. */
export interface MetaFee {
  /** Meta's pricing category (`marketing`, `utility`, `authentication`, `service`, …). */
  readonly category: string;
  /** The rate card market of the customer's calling code (`rest-of-world` when none or no phone). */
  readonly market: string;
  /** USD; 0 when Meta did not bill it; absent when the table has no rate for the category. */
  readonly usd?: number;
}

/** An attachment as the console shows it: what it is and whether it can be opened (`state: 'stored'`). */
export interface HistoryMedia {
  readonly kind: 'image' | 'video' | 'audio' | 'document' | 'sticker';
  readonly state: 'pending' | 'stored' | 'refused' | 'failed';
  readonly mimeType?: string;
  readonly filename?: string;
  readonly caption?: string;
  readonly sizeBytes?: number;
  /** A voice note (not an audio file shared). */
  readonly voice?: boolean;
  readonly transcript?: string;
}

/** A short-lived link that reads one stored attachment. */
export interface MediaLink {
  readonly url: string;
  readonly expiresAt: Timestamp;
  readonly kind: HistoryMedia['kind'];
  readonly mimeType?: string;
  readonly filename?: string;
}

/** Why WhatsApp could not deliver a message: Meta's error code, and what it means for what to do next. */
export interface DeliveryFailure {
  /** Meta's error code (`errors[0].code` of the `failed` status), when it gave one. */
  readonly code?: number;
  readonly reason: DeliveryFailureClass;
}

export interface ConversationDetail {
  readonly conversation: ConversationView;
  /** Newest first, paginated. */
  readonly messages: readonly HistoryEntry[];
  readonly cursor?: string;
}

/** The answer of claim, release and close: the conversation as the transition left it. */
export interface ConversationAnswer {
  readonly conversation: ConversationView;
}

export interface ReplyAnswer {
  readonly message: HistoryEntry;
}

/** What an operator wrote about a conversation for the other operators: never sent to the customer, never shown to the agent. */
export interface OperatorNote {
  readonly noteId: string;
  /** The session the conversation was in when it was written. */
  readonly sessionId: string;
  readonly author: { readonly phone: string; readonly name?: string };
  readonly text: string;
  readonly at: Timestamp;
}

export interface NoteRequest {
  /** 1–2000 characters, not blank (kept trimmed). */
  readonly text: string;
}

export interface NoteAnswer {
  readonly note: OperatorNote;
}

/** A text an admin prepared, which an operator inserts in a reply with `/` (and may change before sending). */
export interface QuickReply {
  /** 1–40 lower-case letters, digits, `_`, `-`: what the operator types after `/`. */
  readonly id: string;
  readonly title: string;
  /** `{name}` takes the customer's name when inserted. */
  readonly text: string;
  readonly updatedBy: string;
  readonly updatedAt: Timestamp;
}

export interface QuickReplyList {
  /** Every quick reply, in id order (at most 200). */
  readonly items: readonly QuickReply[];
}

export interface QuickReplyEdit {
  /** 1–60 characters, not blank. */
  readonly title: string;
  /** 1–1024 characters, not blank. */
  readonly text: string;
}

export interface QuickReplyAnswer {
  readonly quickReply: QuickReply;
}

export interface QuickReplyRemoved {
  readonly removed: true;
}

export interface AvailabilityRequest {
  readonly available: boolean;
}

export interface Availability {
  readonly available: boolean;
  /** When the operator declared it (only while available). */
  readonly since?: Timestamp;
}

// ---- Every call -----------------------------------------------------------------------------------------

/**
 * Every call, keyed `'<METHOD> <path after /api/>'` (`:name` is one path segment), with its body
 * when it takes one and its answer. The operator function declares its routes by these keys.
 */
export interface OperatorApiCalls {
  'POST session': { readonly body: SignInRequest; readonly answer: SignedInSession };
  'GET session': { readonly answer: SignedInSession };
  'DELETE session': { readonly answer: SignedOut };
  /**
   * `?state=` (default `AWAITING_HUMAN`), `?limit=`, `?cursor=`: the state's sessions, oldest first;
   * `?assigned=me`: only the caller's; `?search=`: a phone's first digits or a part of a name. Answers
   * carry an `ETag`; `If-None-Match` with it answers `304` when nothing changed.
   */
  'GET conversations': { readonly answer: Page<ConversationSummary> };
  /** `?limit=`, `?cursor=` page the history. */
  'GET conversations/:customerId': { readonly answer: ConversationDetail };
  'POST conversations/:customerId/claim': { readonly answer: ConversationAnswer };
  /** An admin takes a conversation the agent is serving (`NEW`, `QUALIFYING`): handed to people and assigned to her. */
  'POST conversations/:customerId/take-over': { readonly answer: ConversationAnswer };
  /** Answers 201. */
  'POST conversations/:customerId/messages': { readonly body: ReplyRequest; readonly answer: ReplyAnswer };
  /** `?at=` the message's `at`: a presigned link to its stored attachment, for whoever may read the conversation. */
  'GET conversations/:customerId/messages/:messageId/media': { readonly answer: MediaLink };
  /**
   * Answers 201. The body is the file (an image or a PDF; `content-type` its type, `x-file-name`
   * its name, URL-encoded), inside the 24-hour window, by the conversation's operator.
   */
  'POST conversations/:customerId/attachments': { readonly answer: ReplyAnswer };
  /** Answers 201. Inside the window or outside it: the one way to re-engage a customer who wrote more than 24 hours ago. */
  'POST conversations/:customerId/templates': { readonly body: TemplateSendRequest; readonly answer: ReplyAnswer };
  /** `?limit=`, `?cursor=`: the conversation's notes, newest first. */
  'GET conversations/:customerId/notes': { readonly answer: Page<OperatorNote> };
  /** Admins only: the trace of the turn that answered `messageId` (404 `not_found` when it has none). */
  'GET conversations/:customerId/turns/:messageId/trace': { readonly answer: { readonly trace: TurnTraceView } };
  /** Answers 201. Whoever may read the conversation adds a note to it. */
  'POST conversations/:customerId/notes': { readonly body: NoteRequest; readonly answer: NoteAnswer };
  'POST conversations/:customerId/release': { readonly answer: ConversationAnswer };
  'POST conversations/:customerId/close': { readonly answer: ConversationAnswer };
  'PUT me/availability': { readonly body: AvailabilityRequest; readonly answer: Availability };
  'GET quick-replies': { readonly answer: QuickReplyList };
  /** Creates or replaces the quick reply `:id`. */
  'PUT admin/quick-replies/:id': { readonly body: QuickReplyEdit; readonly answer: QuickReplyAnswer };
  'DELETE admin/quick-replies/:id': { readonly answer: QuickReplyRemoved };
  /** `?limit=`, `?cursor=`: the stored templates in name order, every status. */
  'GET templates': { readonly answer: Page<MessageTemplate> };
  /** Reads the WhatsApp Business Account's templates into the table now (409 when no account is configured). */
  'POST admin/templates/sync': { readonly answer: TemplateSyncAnswer };
  'GET admin/prompts': { readonly answer: Page<PromptVersion> };
  'GET admin/prompts/:id': { readonly answer: PromptAnswer };
  'GET admin/prompts/:id/versions': { readonly answer: Page<PromptVersion> };
  'PUT admin/prompts/:id': { readonly body: PromptEdit; readonly answer: PromptAnswer };
  'POST admin/prompts/:id/rollback': { readonly body: PromptRollback; readonly answer: PromptAnswer };
  'GET admin/prompts/:id/draft': { readonly answer: PromptDraftAnswer };
  'PUT admin/prompts/:id/draft': { readonly body: PromptDraftEdit; readonly answer: PromptDraftAnswer };
  /** Publishes the draft as the prompt's next version; 409 `evaluation_regression` / `not_evaluated` without an override. */
  'POST admin/prompts/:id/draft/publish': { readonly body: DraftPublication; readonly answer: PromptAnswer };
  /** Starts a run of the suite against the draft and the current version: 201, the run `running`; poll it. */
  'POST admin/prompts/:id/evaluations': { readonly body: EvaluationRequest; readonly answer: EvaluationAnswer };
  'GET admin/prompts/:id/evaluations': { readonly answer: EvaluationList };
  'GET admin/prompts/:id/evaluations/:runId': { readonly answer: EvaluationAnswer };
  'GET admin/scenarios': { readonly answer: ScenarioSuite };
  'PUT admin/scenarios/:id': { readonly body: ScenarioEdit; readonly answer: ScenarioAnswer };
  'DELETE admin/scenarios/:id': { readonly answer: ScenarioRemoved };
  /** Drafts a scenario from the customer's conversation, pseudonymised; nothing is stored. */
  'POST admin/conversations/:customerId/scenario': { readonly answer: ConversationScenarioAnswer };
  'GET admin/config/:key': { readonly answer: ConfigAnswer };
  'PUT admin/config/:key': { readonly body: ConfigEdit; readonly answer: ConfigAnswer };
  'GET admin/audit': { readonly answer: Page<AuditEvent> };
  'GET admin/demands': { readonly answer: Page<Demand> };
  'GET admin/consents': { readonly answer: Page<ConsentEvent> };
  /** `?from=&to=` (UTC days, `YYYY-MM-DD`; default the last 7, today included; at most 31). */
  'GET admin/reports/usage': { readonly answer: UsageReport };
  /** `?from=&to=` as the usage report: per UTC day, the handoffs, their claims and the medians of the customer's wait. */
  'GET admin/reports/handoffs': { readonly answer: HandoffReport };
  'GET admin/crm': { readonly answer: CrmProblems };
  'GET admin/crm/:status': { readonly answer: Page<CrmSyncRow> };
  'POST admin/crm/:sessionId/retry': { readonly answer: CrmSyncAnswer };
  'POST admin/crm/:sessionId/resolve': { readonly body: CrmResolution; readonly answer: CrmSyncAnswer };
  'GET admin/dead-letters': { readonly answer: DeadLetters };
  'POST admin/dead-letters/refresh': { readonly answer: DeadLetters };
  /** The admins the deployment names (`operatorPlane.adminPhoneNumbers`): not removable in the console. */
  'GET admin/deployment-admins': { readonly answer: { readonly items: readonly DeploymentAdmin[] } };
  'POST admin/dead-letters/redrive': { readonly body: RedriveRequest; readonly answer: RedriveAnswer };
  'GET admin/customers/:customerId/export': { readonly answer: CustomerExport };
  'POST admin/customers/:customerId/erase': { readonly body: ErasureRequest; readonly answer: ErasureAnswer };
}

export type OperatorApiCall = keyof OperatorApiCalls;

/** The answer of a call. */
export type AnswerOf<Call extends OperatorApiCall> = OperatorApiCalls[Call]['answer'];

/** The body of a call; `never` for a call that takes none (actions take no body or `{}`). */
export type BodyOf<Call extends OperatorApiCall> = OperatorApiCalls[Call] extends { readonly body: infer Body } ? Body : never;
