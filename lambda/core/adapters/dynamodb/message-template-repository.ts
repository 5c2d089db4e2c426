import type { TemplateRef, TemplateStatus, WhatsAppTemplate } from '../../domain/whatsapp-template';
import { isoMicros, type IsoTimestamp } from '../../domain/timestamps';
import type { MessageTemplateRepository, Page, PageRequest } from '../../ports/repositories';
import { messageTemplateFromItem, messageTemplateToItem, TemplateAttribute as T } from './codecs/message-template-codec';
import type { DynamoKit } from './dynamo-kit';
import { messageTemplateKey, messageTemplateListPrefix } from './keys';
import { conditionally, ITEM_EXISTS, KEY_NAMES, queryPrefixPage, toPage } from './repository-support';

/** The business's templates, one item per translation in the `ADMIN#TEMPLATES` partition. */
export class DynamoMessageTemplateRepository implements MessageTemplateRepository {
  constructor(private readonly kit: DynamoKit) {}

  async list(page?: PageRequest): Promise<Page<WhatsAppTemplate>> {
    return toPage(await queryPrefixPage(this.kit, messageTemplateListPrefix(), page, { consistentRead: true }), messageTemplateFromItem);
  }

  async get(ref: TemplateRef): Promise<WhatsAppTemplate | undefined> {
    const item = await this.kit.get({ key: messageTemplateKey(ref.name, ref.language), consistentRead: true });
    return item && messageTemplateFromItem(item);
  }

  async save(template: WhatsAppTemplate): Promise<void> {
    await this.kit.put({ item: messageTemplateToItem(template) });
  }

  async remove(ref: TemplateRef): Promise<void> {
    await this.kit.delete({ key: messageTemplateKey(ref.name, ref.language) });
  }

  /** Only over an older write: Meta's notifications may arrive out of order, or after a sync read a newer status. */
  async updateStatus(ref: TemplateRef, change: { readonly status: TemplateStatus; readonly reason?: string; readonly at: IsoTimestamp }): Promise<boolean> {
    const at = isoMicros(change.at);
    return conditionally(() =>
      this.kit.update({
        key: messageTemplateKey(ref.name, ref.language),
        update: change.reason === undefined ? 'SET #status = :status, #updated = :at REMOVE #reason' : 'SET #status = :status, #updated = :at, #reason = :reason',
        condition: `${ITEM_EXISTS} AND #updated < :at`,
        names: { '#pk': KEY_NAMES['#pk'], '#status': T.status, '#updated': T.updatedAt, '#reason': T.statusReason },
        values: { ':status': change.status, ':at': at, ...(change.reason === undefined ? {} : { ':reason': change.reason }) },
      }),
    );
  }
}
