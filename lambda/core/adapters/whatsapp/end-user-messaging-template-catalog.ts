import { type AwsCallOptions, AwsApiError, type SignedAwsPost, signedAwsPost } from '../aws/signed-aws-post';
import { type TemplateCatalog, TemplateCatalogError } from '../../ports/template-catalog';
import { SOCIAL_MESSAGING } from './end-user-messaging-sender';

/** The service's largest page of `ListWhatsAppMessageTemplates`. */
const PAGE_SIZE = 100;
/**
 * The list has no body, so each template costs one `GetWhatsAppMessageTemplate`: a sync makes at
 * most `pages + templates` calls, and an account listing more than this is refused before any Get.
 */
const MAX_TEMPLATES = 500;
const MAX_PAGES = Math.ceil(MAX_TEMPLATES / PAGE_SIZE) + 1;
/** Gets in flight at once: well under the service's per-account rate, and a sync of 500 in seconds. */
const GET_CONCURRENCY = 4;

/** End User Messaging's id of a linked WhatsApp Business Account: `waba-` and its resource id. */
export const LINKED_ACCOUNT_ID_PATTERN = /^waba-([0-9a-zA-Z]{1,100})$/;

export interface EndUserMessagingTemplateCatalogOptions {
  /** The linked account's id in End User Messaging (`waba-…`), not Meta's numeric WABA id. */
  readonly businessAccountId: string;
  /** Default: the signed calls with the environment's region and credentials. */
  readonly call?: SignedAwsPost;
  /** For the default {@link call}: endpoint, credentials. */
  readonly aws?: AwsCallOptions;
}

/**
 * The linked account's templates through End User Messaging Social, with the function's role (no
 * Meta token): `ListWhatsAppMessageTemplates` (`GET /v1/whatsapp/template/list`, paged by
 * `nextToken`) for the summaries, then `GetWhatsAppMessageTemplate` (`GET /v1/whatsapp/template`)
 * for each one's definition — Meta's template object as JSON text — so the sync stores the same
 * template the Graph API catalog reads.
 */
export class EndUserMessagingTemplateCatalog implements TemplateCatalog {
  private readonly call: SignedAwsPost;

  constructor(private readonly options: EndUserMessagingTemplateCatalogOptions) {
    if (!LINKED_ACCOUNT_ID_PATTERN.test(options.businessAccountId)) throw new RangeError('The linked WhatsApp Business Account id must be End User Messaging\'s (waba-…)');
    this.call = options.call ?? signedAwsPost(SOCIAL_MESSAGING, options.aws);
  }

  async listTemplates(): Promise<readonly unknown[]> {
    const summaries = await this.summaries();
    const templates: unknown[] = new Array(summaries.length);
    let next = 0;
    const worker = async () => {
      for (let index = next++; index < summaries.length; index = next++) templates[index] = await this.definition(summaries[index]);
    };
    await Promise.all(Array.from({ length: Math.min(GET_CONCURRENCY, summaries.length) }, worker));
    return templates;
  }

  private async summaries(): Promise<readonly TemplateSummary[]> {
    const summaries: TemplateSummary[] = [];
    let nextToken: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const query: Record<string, string> = { id: this.options.businessAccountId, maxResults: String(PAGE_SIZE), ...(nextToken === undefined ? {} : { nextToken }) };
      const answer = (await this.get('ListWhatsAppMessageTemplates', '/v1/whatsapp/template/list', query)) as TemplatesPage;
      summaries.push(...(Array.isArray(answer.templates) ? answer.templates : []));
      if (summaries.length > MAX_TEMPLATES) break;
      nextToken = typeof answer.nextToken === 'string' && answer.nextToken !== '' ? answer.nextToken : undefined;
      if (nextToken === undefined) return summaries;
    }
    throw new TemplateCatalogError(`The account lists more than ${MAX_TEMPLATES} templates; none were stored`, false);
  }

  /** Meta's template object, its name, language, status and category as the summary gives them when the definition lacks them. */
  private async definition(summary: TemplateSummary): Promise<unknown> {
    if (typeof summary.metaTemplateId !== 'string') return summary;
    const answer = (await this.get('GetWhatsAppMessageTemplate', '/v1/whatsapp/template', { id: this.options.businessAccountId, metaTemplateId: summary.metaTemplateId })) as { template?: unknown };
    let template: unknown;
    try {
      template = typeof answer.template === 'string' ? JSON.parse(answer.template) : undefined;
    } catch {
      template = undefined;
    }
    // Not Meta's object: left to the sync to count as unreadable.
    if (template === null || typeof template !== 'object') return summary;
    return { name: summary.templateName, language: summary.templateLanguage, status: summary.templateStatus, category: summary.templateCategory, ...template, id: summary.metaTemplateId };
  }

  private async get(operation: string, path: string, query: Record<string, string>): Promise<unknown> {
    let payload: Uint8Array;
    try {
      ({ payload } = await this.call(path, { method: 'GET', query, headers: {} }));
    } catch (error) {
      if (error instanceof AwsApiError) throw new TemplateCatalogError(`End User Messaging refused ${operation}: ${error.name} (HTTP ${error.$metadata.httpStatusCode}) ${error.message}`, error.retryable, { cause: error });
      throw new TemplateCatalogError(`End User Messaging did not answer ${operation}`, true, { cause: error });
    }
    try {
      return JSON.parse(new TextDecoder().decode(payload)) ?? {};
    } catch (error) {
      throw new TemplateCatalogError(`End User Messaging answered ${operation} with something other than JSON`, true, { cause: error });
    }
  }
}

/** A `TemplateSummary` of `ListWhatsAppMessageTemplates` (the service's names). */
interface TemplateSummary {
  readonly templateName?: string;
  readonly metaTemplateId?: string;
  readonly templateStatus?: string;
  readonly templateQualityScore?: string;
  readonly templateLanguage?: string;
  readonly templateCategory?: string;
}

interface TemplatesPage {
  readonly templates?: TemplateSummary[];
  readonly nextToken?: string;
}
