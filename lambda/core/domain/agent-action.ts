/**
 * The decisions an agent takes during a turn. An agent never acts itself: it returns these, and the
 * turn applies them durably only after its latest-message guard (see docs/DESIGN.md#turn-protocol).
 */
export type AgentAction =
  | RecordOutOfPortfolioDemandAction
  | UpdateQualificationAction
  | RequestHumanHandoffAction
  | CloseSessionAction
  | UpdateCadastralDataAction
  | SetSegmentAction
  | SetIntentAction
  | HandoverToAgentAction;

export type AgentActionType = AgentAction['type'];

/** The customer asked for a service the business does not offer. */
export interface RecordOutOfPortfolioDemandAction {
  readonly type: 'record_out_of_portfolio_demand';
  readonly requestedService: string;
  readonly estimatedSegment?: string;
  readonly notes?: string;
}

/** New or corrected qualification fields; merged into the session's qualification data. */
export interface UpdateQualificationAction {
  readonly type: 'update_qualification';
  readonly data: Readonly<Record<string, string>>;
}

/** Hand the conversation to a human operator (the session moves to the human-owned state). */
export interface RequestHumanHandoffAction {
  readonly type: 'request_human_handoff';
  readonly reason: string;
}

export interface CloseSessionAction {
  readonly type: 'close_session';
  readonly reason: string;
}

/** Registration data fields the agent may record (docs/DESIGN.md#what-the-agent-learns). */
export const CADASTRAL_FIELDS = ['name', 'email', 'document_id', 'company', 'city'] as const;
export type CadastralField = (typeof CADASTRAL_FIELDS)[number];

/** New or corrected registration data of the customer; merged into the session's cadastral data. */
export interface UpdateCadastralDataAction {
  readonly type: 'update_cadastral_data';
  readonly data: Readonly<Partial<Record<CadastralField, string>>>;
}

/** The customer's segment (e.g. clinic, laboratory, individual); replaces the session's. */
export interface SetSegmentAction {
  readonly type: 'set_segment';
  readonly segment: string;
}

/** What the customer wants (e.g. buy, quote, support); replaces the session's. */
export interface SetIntentAction {
  readonly type: 'set_intent';
  readonly intent: string;
}

/** Hand the conversation to another of the configured agents (stages); it answers from then on. */
export interface HandoverToAgentAction {
  readonly type: 'handover_to_agent';
  readonly agent: string;
  readonly reason: string;
}
