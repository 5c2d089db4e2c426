import type { TemplateRef, TemplateStatus, WhatsAppTemplate } from '../../domain/whatsapp-template';
import type { IsoTimestamp } from '../../domain/timestamps';
import type { Page, PageRequest } from './paging';

/** The business's WhatsApp message templates as the table holds them (one item per translation). */
export interface MessageTemplateRepository {
  /** In name, then language, order. */
  list(page?: PageRequest): Promise<Page<WhatsAppTemplate>>;
  get(ref: TemplateRef): Promise<WhatsAppTemplate | undefined>;
  /** Writes the template as Meta described it, replacing what was stored. */
  save(template: WhatsAppTemplate): Promise<void>;
  /** Forgets a template Meta no longer lists. */
  remove(ref: TemplateRef): Promise<void>;
  /**
   * Meta's status notification: the stored template's new status and reason. `false` when no such
   * template is stored (the next sync brings it), or a later change is already stored.
   */
  updateStatus(ref: TemplateRef, change: { readonly status: TemplateStatus; readonly reason?: string; readonly at: IsoTimestamp }): Promise<boolean>;
}
