import type { AdminAuditEvent } from '../../domain/admin';
import type { AdminAuditRepository, Page, PageRequest } from '../../ports/repositories';
import { auditEventFromItem, auditEventToItem } from './codecs/admin-codec';
import type { DynamoKit } from './dynamo-kit';
import { adminAuditListPrefix } from './keys';
import { conditionally, IF_ABSENT, queryPrefixPage, toPage } from './repository-support';

/** Append-only log of admin changes, newest first. */
export class DynamoAdminAuditRepository implements AdminAuditRepository {
  constructor(private readonly kit: DynamoKit) {}

  async record(event: AdminAuditEvent): Promise<void> {
    // Append-only: recording the same event again (a retry) leaves the first record untouched.
    await conditionally(() => this.kit.put({ item: auditEventToItem(event), ...IF_ABSENT }));
  }

  async listRecent(page?: PageRequest): Promise<Page<AdminAuditEvent>> {
    return toPage(await queryPrefixPage(this.kit, adminAuditListPrefix(), page, { newestFirst: true }), auditEventFromItem);
  }
}
