import { KNOWLEDGE_BASE_LIMITS, type RetrievalFilter } from '../../../../lib/contract';
import type { KnowledgeBase, KnowledgePassage } from '../../ports/knowledge-base';
import { type AwsCallOptions, encodePathSegment, signedAwsPost } from '../aws/signed-aws-post';

const BEDROCK_AGENT_RUNTIME = { endpointPrefix: 'bedrock-agent-runtime', signingName: 'bedrock', endpointVariable: 'AWS_ENDPOINT_URL_BEDROCK_AGENT_RUNTIME' };

export interface BedrockKnowledgeBaseOptions extends AwsCallOptions {
  readonly knowledgeBaseId: string;
  /** Passages per search. */
  readonly numberOfResults: number;
  /** Retrieve's metadata filter. Default: none. */
  readonly filter?: RetrievalFilter;
}

/** One result of Retrieve, as documented: the chunk's text, where it is, and its score. */
interface RetrievalResult {
  readonly content?: { readonly text?: string };
  readonly location?: Readonly<Record<string, unknown>> & { readonly type?: string };
  readonly metadata?: Readonly<Record<string, unknown>>;
  readonly score?: number;
}

/** The metadata attribute Bedrock sets on every chunk to the document it was cut from. */
const SOURCE_URI_METADATA = 'x-amz-bedrock-kb-source-uri';

/**
 * An Amazon Bedrock knowledge base searched with Bedrock Agent Runtime's `Retrieve`
 * (`POST /knowledgebases/{id}/retrieve`), as one signed POST (signed-aws-post.ts) rather than the
 * Bedrock Agent Runtime client, which would add its agent and flow operations to the orchestrator's
 * bundle for this one JSON call. Each passage is cut to `maxPassageCharacters`, so what a search adds
 * to the prompt is bounded by the number of results whatever the chunking.
 */
export class BedrockKnowledgeBase implements KnowledgeBase {
  private readonly post;
  private readonly path: string;
  private readonly retrievalConfiguration: object;

  constructor(options: BedrockKnowledgeBaseOptions) {
    const { knowledgeBaseId, numberOfResults, filter, ...call } = options;
    this.post = signedAwsPost(BEDROCK_AGENT_RUNTIME, call);
    this.path = `/knowledgebases/${encodePathSegment(knowledgeBaseId)}/retrieve`;
    this.retrievalConfiguration = { vectorSearchConfiguration: { numberOfResults, ...(filter === undefined ? {} : { filter }) } };
  }

  async search(query: string, abortSignal: AbortSignal): Promise<readonly KnowledgePassage[]> {
    const body = JSON.stringify({ retrievalQuery: { text: query.slice(0, KNOWLEDGE_BASE_LIMITS.maxQueryCharacters) }, retrievalConfiguration: this.retrievalConfiguration });
    const answer = await this.post(this.path, { headers: { 'content-type': 'application/json' }, body: new TextEncoder().encode(body) }, abortSignal);
    const { retrievalResults = [] } = JSON.parse(new TextDecoder().decode(answer.payload)) as { retrievalResults?: readonly RetrievalResult[] };
    return retrievalResults.flatMap(passageOf);
  }
}

function passageOf(result: RetrievalResult): KnowledgePassage[] {
  const text = result.content?.text?.trim();
  if (!text) return [];
  const source = sourceOf(result);
  const bounded = text.length > KNOWLEDGE_BASE_LIMITS.maxPassageCharacters ? `${text.slice(0, KNOWLEDGE_BASE_LIMITS.maxPassageCharacters - 1)}…` : text;
  return [{ text: bounded, ...(source === undefined ? {} : { source }), ...(typeof result.score === 'number' ? { score: result.score } : {}) }];
}

/**
 * Where the passage is: the URI or URL of its location (`s3Location.uri`, `webLocation.url`,
 * `confluenceLocation.url`…, whichever the location's type names), else the source-URI metadata
 * Bedrock puts on every chunk.
 */
function sourceOf({ location, metadata }: RetrievalResult): string | undefined {
  const located = Object.values(location ?? {}).find((value): value is Record<string, unknown> => typeof value === 'object' && value !== null);
  const address = located?.uri ?? located?.url ?? located?.id ?? metadata?.[SOURCE_URI_METADATA];
  return typeof address === 'string' && address !== '' ? address.slice(0, KNOWLEDGE_BASE_LIMITS.maxSourceCharacters) : undefined;
}
