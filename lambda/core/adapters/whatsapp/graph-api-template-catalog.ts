import type { WhatsAppCredentialsProvider } from '../../ports/credentials';
import { type TemplateCatalog, TemplateCatalogError } from '../../ports/template-catalog';
import { classifyGraphApiError } from './graph-api-errors';
import { fetchSafely, type DestinationRule, UnsafeDestinationError } from '../outbound/safe-destination';
import { graphApiRoot, graphApiRule } from './graph-api-root';

const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
/** Meta's largest page of the templates list. */
const PAGE_SIZE = 100;
/** 50 pages of 100: far beyond the templates a business keeps, and a bound on a paging loop. */
const MAX_PAGES = 50;
const FIELDS = 'name,language,status,category,components,parameter_format,id';

export interface GraphApiTemplateCatalogOptions {
  /** Graph API root including the version, e.g. `https://graph.facebook.com/v23.0`. */
  readonly baseUrl: string;
  readonly credentials: WhatsAppCredentialsProvider;
  /** The WhatsApp Business Account id whose templates are read. */
  readonly businessAccountId: string;
  /** Per HTTP request. Default 10 s. */
  readonly requestTimeoutMs?: number;
}

/**
 * `GET {baseUrl}/{waba-id}/message_templates`, page after page with Meta's `after` cursor until an
 * answer has no `paging.next`. The next page is asked of the configured root, never of the URL in
 * Meta's answer: the token only ever goes where the deployment sends it.
 */
export class GraphApiTemplateCatalog implements TemplateCatalog {
  private readonly baseUrl: string;
  private readonly destinations: DestinationRule;

  constructor(private readonly options: GraphApiTemplateCatalogOptions) {
    if (!/^\d{1,32}$/.test(options.businessAccountId)) throw new RangeError('The WhatsApp Business Account id must be Meta\'s numeric id');
    this.baseUrl = graphApiRoot(options.baseUrl);
    this.destinations = graphApiRule(options.baseUrl);
  }

  async listTemplates(): Promise<readonly unknown[]> {
    const { accessToken } = await this.options.credentials.get();
    const templates: unknown[] = [];
    let after: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const url = new URL(`${this.baseUrl}/${encodeURIComponent(this.options.businessAccountId)}/message_templates`);
      url.searchParams.set('fields', FIELDS);
      url.searchParams.set('limit', String(PAGE_SIZE));
      if (after !== undefined) url.searchParams.set('after', after);
      const answer = await this.get(url, accessToken);
      templates.push(...(Array.isArray(answer.data) ? answer.data : []));
      after = answer.paging?.cursors?.after;
      if (answer.paging?.next === undefined || typeof after !== 'string') return templates;
    }
    throw new TemplateCatalogError(`The account lists more than ${MAX_PAGES * PAGE_SIZE} templates; none were stored`, false);
  }

  private async get(url: URL, accessToken: string): Promise<TemplatesPage> {
    let response: Response;
    let body: unknown;
    try {
      response = await fetchSafely(url, this.destinations, { headers: { authorization: `Bearer ${accessToken}` }, signal: AbortSignal.timeout(this.options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS) });
      body = await response.json();
    } catch (error) {
      if (error instanceof UnsafeDestinationError) throw new TemplateCatalogError(`The templates list was refused: ${error.message}`, false, { cause: error });
      throw new TemplateCatalogError('The Graph API did not answer the templates list', true, { cause: error });
    }
    if (response.ok) return (body ?? {}) as TemplatesPage;
    const code = (body as { error?: { code?: unknown } } | undefined)?.error?.code;
    const treatment = classifyGraphApiError(response.status, typeof code === 'number' ? code : undefined);
    throw new TemplateCatalogError(`The Graph API refused the templates list: ${treatment.title} (HTTP ${response.status}${typeof code === 'number' ? `, code ${code}` : ''})`, treatment.retryable);
  }
}

interface TemplatesPage {
  readonly data?: unknown;
  readonly paging?: { readonly cursors?: { readonly after?: string }; readonly next?: string };
}
