import { PipelineError } from '../domain/errors';

/**
 * Where the business's approved templates are read from: the WhatsApp Business Account, through
 * the Graph API (`GET /{waba-id}/message_templates`) or End User Messaging's template API.
 */
export interface TemplateCatalog {
  /**
   * Every template translation of the account, as Meta describes it (`name`, `language`, `status`,
   * `category`, `components`, `parameter_format`, `id`), all pages read. Throws
   * {@link TemplateCatalogError}.
   */
  listTemplates(): Promise<readonly unknown[]>;
}

/** The account's templates could not be read; nothing stored is changed. */
export class TemplateCatalogError extends PipelineError {
  override readonly name = 'TemplateCatalogError';
  override readonly code = 'template_catalog_failed';

  constructor(
    message: string,
    override readonly retryable: boolean,
    options?: { readonly cause?: unknown },
  ) {
    super(message, options);
  }
}
