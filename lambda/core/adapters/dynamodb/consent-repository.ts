import type { ConsentRecord } from '../../domain/admin';
import { ConditionFailedError, type ConsentRepository, type Page, type PageRequest } from '../../ports/repositories';
import { InvalidCursorError } from './dynamo-errors';
import { isoMicros } from '../../domain/timestamps';
import { consentFromItem, consentStateFromItem, consentStateToItem, consentToItem } from './codecs/admin-codec';
import type { DynamoKit, QueryPageResult } from './dynamo-kit';
import { CONSENT_TIMELINE_PARTITION, consentStateKey, ENTITY_TYPE, EntityType, GSI1, GSI1PK, legacyConsentListPrefix } from './keys';
import { conditionally, IF_ABSENT, KEY_NAMES, pageLimit } from './repository-support';

// A page of the newer layout, then pages of the seed's layout (whose events are all older).
const CURRENT = 'c:';
const LEGACY = 'l:';

/**
 * Consent events as recorded (no expiry), newest first. Each is written in the customer's own
 * partition (one Query reads a customer's events) and indexed on GSI1 for the admin's timeline.
 * Events written in the seed's layout (one time-keyed partition) are still read after the newer
 * ones; finding one customer's events there reads the whole partition, so only an export's or an
 * erasure's inventory does it (customer-data-repository.ts), never per message. Beside the events, the customer's current consent per
 * purpose (`consentStateKey`) is what the turn reads, by key, on every message.
 */
export class DynamoConsentRepository implements ConsentRepository {
  constructor(private readonly kit: DynamoKit) {}

  /**
   * The event (put if absent: a record is evidence, a retried write never replaces the first) and,
   * in the same transaction, the customer's current consent for its purpose — unless that already
   * holds a newer event (an old message redriven late), which then stays current.
   */
  async record(consent: ConsentRecord): Promise<void> {
    try {
      await this.kit.transact([
        { put: { item: consentToItem(consent), ...IF_ABSENT } },
        {
          put: {
            item: consentStateToItem(consent),
            condition: 'attribute_not_exists(#recorded) OR #recorded <= :recorded',
            names: { '#recorded': 'recorded_at' },
            values: { ':recorded': isoMicros(consent.recordedAt) },
          },
        },
      ]);
    } catch (error) {
      if (!(error instanceof ConditionFailedError)) throw error;
      // Recorded by an earlier attempt, whose transaction also settled the current consent.
      if (error.failedAt(0)) return;
      // A newer event is current; this one is still evidence.
      await conditionally(() => this.kit.put({ item: consentToItem(consent), ...IF_ABSENT }));
    }
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

  /** The customer's newest event for `purpose`: the current consent written with it, read by key. */
  async latestFor(customerId: string, purpose: string): Promise<ConsentRecord | undefined> {
    const item = await this.kit.get({ key: consentStateKey(customerId, purpose), consistentRead: true });
    return item && consentStateFromItem(item);
  }

  private async inTwoLayouts(page: PageRequest | undefined, current: (request: PageRequest) => Promise<QueryPageResult>): Promise<Page<ConsentRecord>> {
    const limit = pageLimit(page);
    const cursor = page?.cursor ?? CURRENT;
    const inner = cursor.slice(CURRENT.length) || undefined;
    if (cursor.startsWith(LEGACY)) return this.legacyPage(limit, inner);
    if (!cursor.startsWith(CURRENT)) throw new InvalidCursorError('not a consent cursor');
    const newer = await current({ limit, cursor: inner });
    const items = newer.items.map(consentFromItem);
    if (newer.cursor !== undefined) return { items, cursor: `${CURRENT}${newer.cursor}` };
    // The newer layout is exhausted: the page continues with the seed's layout (all older).
    if (items.length >= limit) return { items, cursor: LEGACY };
    const older = await this.legacyPage(limit - items.length, undefined);
    return older.cursor === undefined ? { items: [...items, ...older.items] } : { items: [...items, ...older.items], cursor: older.cursor };
  }

  private async legacyPage(limit: number, cursor: string | undefined): Promise<Page<ConsentRecord>> {
    const prefix = legacyConsentListPrefix();
    const result = await this.kit.queryPage({
      keyCondition: '#pk = :pk AND begins_with(#sk, :prefix)',
      names: KEY_NAMES,
      values: { ':pk': prefix.partition, ':prefix': prefix.sortKeyPrefix },
      newestFirst: true,
      limit,
      cursor,
    });
    const items = result.items.map(consentFromItem);
    return result.cursor === undefined ? { items } : { items, cursor: `${LEGACY}${result.cursor}` };
  }
}
