/**
 * A company's documents the agent searches when a customer asks what they answer (an Amazon Bedrock
 * knowledge base through Retrieve). A read: searching has no side effect, so the agent may search
 * in a turn that a newer message later makes obsolete.
 */
export interface KnowledgeBase {
  /** The passages that best answer `query`, best first, each bounded; at most the configured number. */
  search(query: string, abortSignal: AbortSignal): Promise<readonly KnowledgePassage[]>;
}

export interface KnowledgePassage {
  readonly text: string;
  /** Where the passage comes from (an S3 URI, a web page's URL…): what the operator is shown. Absent when Retrieve names none. */
  readonly source?: string;
  readonly score?: number;
}
