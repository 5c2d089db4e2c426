import type { MessageTemplateRepository, Page, PageRequest } from '../ports/repositories';
import type { Clock } from '../ports/clock';
import type { TemplateCatalog } from '../ports/template-catalog';
import { isoMicros } from '../domain/timestamps';
import { templateFromMeta, type TemplateRef, type TemplateStatusUpdate, type WhatsAppTemplate } from '../domain/whatsapp-template';

const LIST_PAGE_SIZE = 100;

export interface MessageTemplatesDependencies {
  readonly templates: MessageTemplateRepository;
  /** Where the account's templates are read; absent when no WhatsApp Business Account is configured. */
  readonly catalog?: TemplateCatalog;
  readonly clock: Clock;
}

/** What one sync did. */
export interface TemplateSyncReport {
  /** Template translations written as Meta described them. */
  readonly stored: number;
  /** Stored translations Meta no longer lists, removed. */
  readonly removed: number;
  /** Entries of Meta's list that are not a template the pipeline can read (counted, never stored). */
  readonly unreadable: number;
}

/**
 * The business's templates in the table: read from the account on demand (the admin's sync) and on
 * the schedule, listed for the console, and kept current between syncs by Meta's status
 * notifications.
 */
export class MessageTemplates {
  constructor(private readonly deps: MessageTemplatesDependencies) {}

  /** Whether a WhatsApp Business Account is configured, so that {@link sync} can read it. */
  get canSync(): boolean {
    return this.deps.catalog !== undefined;
  }

  /**
   * Stores every template Meta lists and removes the stored ones it no longer lists. A failed read
   * of the account changes nothing (the catalog throws before anything is written).
   */
  async sync(): Promise<TemplateSyncReport> {
    if (this.deps.catalog === undefined) throw new RangeError('No WhatsApp Business Account is configured: set messageTemplates.businessAccountId');
    const described = await this.deps.catalog.listTemplates();
    const now = isoMicros(this.deps.clock.now());
    const current = described.map((raw) => templateFromMeta(raw, now)).filter((template): template is WhatsAppTemplate => template !== undefined);
    for (const template of current) await this.deps.templates.save(template);
    const listed = new Set(current.map(refKey));
    const stale = (await this.all()).filter((stored) => !listed.has(refKey(stored)));
    for (const template of stale) await this.deps.templates.remove(template);
    return { stored: current.length, removed: stale.length, unreadable: described.length - current.length };
  }

  list(page?: PageRequest): Promise<Page<WhatsAppTemplate>> {
    return this.deps.templates.list(page);
  }

  get(ref: TemplateRef): Promise<WhatsAppTemplate | undefined> {
    return this.deps.templates.get(ref);
  }

  /** `false` when the template is not stored (the next sync brings it) or a newer change already is. */
  applyStatusUpdate(update: TemplateStatusUpdate): Promise<boolean> {
    return this.deps.templates.updateStatus(update, { status: update.status, reason: update.reason, at: update.at });
  }

  private async all(): Promise<WhatsAppTemplate[]> {
    const templates: WhatsAppTemplate[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.deps.templates.list({ limit: LIST_PAGE_SIZE, cursor });
      templates.push(...page.items);
      cursor = page.cursor;
    } while (cursor !== undefined);
    return templates;
  }
}

const refKey = (ref: TemplateRef) => `${ref.name}#${ref.language}`;
