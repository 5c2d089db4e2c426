import type { TokenUsage } from '../domain/customer-budget';
import type { WindowMessage } from '../domain/conversation-memory';

/** The model that folds a conversation's older messages into its summary (docs/DESIGN.md#memory). */
export interface ConversationSummarizer {
  /** The model that writes the summaries, recorded with their tokens. */
  readonly model: string;
  /**
   * The summary of `previousSummary` followed by `messages`, written before `deadline` (epoch ms);
   * rejects when it cannot (the deadline came, the model failed or answered nothing).
   */
  summarize(request: SummaryRequest): Promise<{ readonly summary: string; readonly usage: TokenUsage }>;
}

export interface SummaryRequest {
  readonly previousSummary?: string;
  readonly messages: readonly WindowMessage[];
  readonly deadline: number;
}
