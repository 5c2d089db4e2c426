import type { ConsentRecord } from '../../domain/admin';
import type { ConsentRepository, Page, PageRequest } from '../../ports/repositories';
import { consentFromItem, consentToItem } from './codecs/admin-codec';
import type { DynamoKit } from './dynamo-kit';
import { consentListPrefix } from './keys';
import { conditionally, IF_ABSENT, queryPrefixPage, toPage } from './repository-support';

/** Consent events as recorded (no expiry), newest first. */
export class DynamoConsentRepository implements ConsentRepository {
  constructor(private readonly kit: DynamoKit) {}

  async record(consent: ConsentRecord): Promise<void> {
    // A record is evidence: a retried write never replaces the first one.
    await conditionally(() => this.kit.put({ item: consentToItem(consent), ...IF_ABSENT }));
  }

  async listRecent(page?: PageRequest): Promise<Page<ConsentRecord>> {
    return toPage(await queryPrefixPage(this.kit, consentListPrefix(), page, { newestFirst: true }), consentFromItem);
  }
}
