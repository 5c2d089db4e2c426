import type { ConsentRecord } from '../../domain/admin';
import { InvalidCursorError } from '../../domain/errors';
import type { ConsentRepository, Page, PageRequest } from '../../ports/repositories';
import { consentFromItem, consentToItem } from './codecs/admin-codec';
import type { DynamoKit, QueryPageResult } from './dynamo-kit';
import { CONSENT_TIMELINE_PARTITION, customerConsentPrefix, ENTITY_TYPE, EntityType, GSI1, GSI1PK, legacyConsentListPrefix } from './keys';
import { conditionally, IF_ABSENT, KEY_NAMES, pageLimit, queryPrefixPage } from './repository-support';

// A page of the newer layout, then pages of the seed's layout (whose events are all older).
const CURRENT = 'c:';
const LEGACY = 'l:';

/**
 * Consent events as recorded (no expiry), newest first. Each is written in the customer's own
 * partition (one Query reads a customer's events) and indexed on GSI1 for the admin's timeline.
 * Events written in the seed's layout (one time-keyed partition) are still read after the newer
 * ones; finding one customer's events there reads the whole partition, so it only happens for
 * exports and erasures, never per message.
 */
export class DynamoConsentRepository implements ConsentRepository {
  constructor(private readonly kit: DynamoKit) {}

  async record(consent: ConsentRecord): Promise<void> {
    // A record is evidence: a retried write never replaces the first one.
    await conditionally(() => this.kit.put({ item: consentToItem(consent), ...IF_ABSENT }));
  }

  listRecent(page?: PageRequest): Promise<Page<ConsentRecord>> {
    return this.inTwoLayouts(page, (request) =>
      this.kit.queryPage({
        indexName: GSI1,
        keyCondition: '#gsi1pk = :timeline',
        filter: '#type = :consent',
        names: { '#gsi1pk': GSI1PK, '#type': ENTITY_TYPE },
        values: { ':timeline': CONSENT_TIMELINE_PARTITION, ':consent': EntityType.consent },
        newestFirst: true,
        limit: pageLimit(request),
        cursor: request.cursor,
      }),
    );
  }

  listForCustomer(customerId: string, page?: PageRequest): Promise<Page<ConsentRecord>> {
    return this.inTwoLayouts(
      page,
      (request) => queryPrefixPage(this.kit, customerConsentPrefix(customerId), request, { newestFirst: true, consistentRead: true }),
      customerId,
    );
  }

  /** The customer's newest event for `purpose` in the current layout (one Query, usually one page). */
  async latestFor(customerId: string, purpose: string): Promise<ConsentRecord | undefined> {
    let cursor: string | undefined;
    do {
      const page = await queryPrefixPage(this.kit, customerConsentPrefix(customerId), { limit: 20, cursor }, { newestFirst: true, consistentRead: true });
      const match = page.items.map(consentFromItem).find((consent) => consent.purpose === purpose);
      if (match) return match;
      cursor = page.cursor;
    } while (cursor !== undefined);
    return undefined;
  }

  private async inTwoLayouts(page: PageRequest | undefined, current: (request: PageRequest) => Promise<QueryPageResult>, customerId?: string): Promise<Page<ConsentRecord>> {
    const limit = pageLimit(page);
    const cursor = page?.cursor ?? CURRENT;
    const inner = cursor.slice(CURRENT.length) || undefined;
    if (cursor.startsWith(LEGACY)) return this.legacyPage(limit, inner, customerId);
    if (!cursor.startsWith(CURRENT)) throw new InvalidCursorError('not a consent cursor');
    const newer = await current({ limit, cursor: inner });
    const items = newer.items.map(consentFromItem);
    if (newer.cursor !== undefined) return { items, cursor: `${CURRENT}${newer.cursor}` };
    // The newer layout is exhausted: the page continues with the seed's layout (all older).
    if (items.length >= limit) return { items, cursor: LEGACY };
    const older = await this.legacyPage(limit - items.length, undefined, customerId);
    return older.cursor === undefined ? { items: [...items, ...older.items] } : { items: [...items, ...older.items], cursor: older.cursor };
  }

  private async legacyPage(limit: number, cursor: string | undefined, customerId: string | undefined): Promise<Page<ConsentRecord>> {
    const prefix = legacyConsentListPrefix();
    const result = await this.kit.queryPage({
      keyCondition: '#pk = :pk AND begins_with(#sk, :prefix)',
      ...(customerId === undefined
        ? { names: KEY_NAMES, values: { ':pk': prefix.partition, ':prefix': prefix.sortKeyPrefix } }
        : { filter: '#phone = :phone', names: { ...KEY_NAMES, '#phone': 'phone_number' }, values: { ':pk': prefix.partition, ':prefix': prefix.sortKeyPrefix, ':phone': customerId } }),
      newestFirst: true,
      limit,
      cursor,
    });
    const items = result.items.map(consentFromItem);
    return result.cursor === undefined ? { items } : { items, cursor: `${LEGACY}${result.cursor}` };
  }
}
