/**
 * The decisions an agent takes during a turn. An agent never acts itself: it returns these, and the
 * turn applies them durably only after its latest-message guard (see docs/DESIGN.md#turn-protocol).
 */
export type AgentAction =
  | RecordOutOfPortfolioDemandAction
  | UpdateQualificationAction
  | RequestHumanHandoffAction
  | CloseSessionAction;

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
