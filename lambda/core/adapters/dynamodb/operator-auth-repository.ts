import { OPERATOR_DEFAULTS } from '../../../../lib/contract';
import { nextLocalMidnight } from '../../domain/local-time';
import { assertTokenHash, isLiveLoginGrant, isLiveSession, type LoginGrant, loginGrantExpiryCeiling, type OperatorSession } from '../../domain/operator-auth';
import { isoMicros } from '../../domain/timestamps';
import type { Clock } from '../../ports/clock';
import type { OperatorAuthRepository, OperatorSessionInput, RevokedOperatorAccess } from '../../ports/repositories';
import {
  loginGrantFromItem,
  loginGrantToItem,
  OperatorAuthAttribute,
  operatorSessionFromItem,
  operatorSessionToItem,
} from './codecs/operator-auth-codec';
import type { DynamoKit, Item } from './dynamo-kit';
import { referencedKeys, referenceItem } from './customer-references';
import { customerAuthReferenceKey, customerAuthReferencePrefix, ENTITY_TYPE, EntityType, loginGrantKey, operatorSessionKey, PK, SK, type TableKey } from './keys';
import { conditionally, IF_ABSENT, ITEM_EXISTS, KEY_NAMES, queryPrefixPage } from './repository-support';
import { epochSeconds } from '../../domain/timestamps';

/**
 * Operator login grants and sessions, stored under the SHA-256 of their tokens (a raw token is
 * refused). Expiry is enforced here on every read and consume — against the lifetime the item may
 * have for when it was made, not only the expiry it carries; the TTL attribute only lets DynamoDB
 * clean up, which can lag by days.
 */
export class DynamoOperatorAuthRepository implements OperatorAuthRepository {
  constructor(
    private readonly kit: DynamoKit,
    private readonly clock: Clock,
    /** IANA zone whose midnight ends grants and sessions. */
    private readonly timeZone: string = OPERATOR_DEFAULTS.timeZone,
  ) {}

  async putLoginGrant(tokenHash: string, operatorPhone: string, expiresAt?: Date): Promise<LoginGrant> {
    assertTokenHash(tokenHash);
    const now = this.clock.now();
    const ceiling = loginGrantExpiryCeiling(now, this.timeZone);
    const effective = expiresAt && expiresAt < ceiling ? expiresAt : ceiling;
    if (effective <= now) throw new RangeError('A login grant must expire after it is issued');
    const grant: LoginGrant = { tokenHash, operatorPhone, createdAt: isoMicros(now), expiresAt: isoMicros(effective) };
    await this.putWithReference(loginGrantToItem(grant), loginGrantKey(tokenHash), operatorPhone, tokenHash, grant.expiresAt);
    return grant;
  }

  async consumeLoginGrant(tokenHash: string, now: Date): Promise<LoginGrant | undefined> {
    assertTokenHash(tokenHash);
    let consumed: LoginGrant | undefined;
    // One conditional delete: of two concurrent consumers only one gets the grant, and an expired
    // grant cannot be used even though TTL has not removed it yet.
    await conditionally(async () => {
      const item = await this.kit.delete({
        key: loginGrantKey(tokenHash),
        condition: `${ITEM_EXISTS} AND #expires > :now`,
        names: { '#pk': KEY_NAMES['#pk'], '#expires': OperatorAuthAttribute.expiresAt },
        values: { ':now': isoMicros(now) },
        returnDeleted: true,
      });
      consumed = item && loginGrantFromItem(item);
    });
    // A grant that claims a longer life than any this repository issues was not issued here: used up, and refused.
    return consumed && isLiveLoginGrant(consumed, now, this.timeZone) ? consumed : undefined;
  }

  async putSession(input: OperatorSessionInput): Promise<OperatorSession> {
    assertTokenHash(input.tokenHash);
    const now = this.clock.now();
    const session: OperatorSession = { ...input, createdAt: isoMicros(now), expiresAt: isoMicros(nextLocalMidnight(now, this.timeZone)) };
    await this.putWithReference(operatorSessionToItem(session), operatorSessionKey(input.tokenHash), input.operatorPhone, input.tokenHash, session.expiresAt);
    return session;
  }

  /** Exclusive create, with a reference in the operator's customer partition so an erasure finds it. */
  private async putWithReference(item: Record<string, unknown>, key: TableKey, operatorPhone: string, tokenHash: string, expiresAt: string): Promise<void> {
    const reference = referenceItem(customerAuthReferenceKey(operatorPhone, tokenHash), EntityType.authReference, [key], epochSeconds(expiresAt));
    await this.kit.transact([{ put: { item, ...IF_ABSENT } }, { put: { item: reference } }]);
  }

  async getSession(tokenHash: string, now: Date): Promise<OperatorSession | undefined> {
    assertTokenHash(tokenHash);
    const item = await this.kit.get({ key: operatorSessionKey(tokenHash), consistentRead: true });
    const session = item && operatorSessionFromItem(item);
    return session && isLiveSession(session, now, this.timeZone) ? session : undefined;
  }

  async deleteSession(tokenHash: string): Promise<void> {
    assertTokenHash(tokenHash);
    await this.kit.delete({ key: operatorSessionKey(tokenHash) });
  }

  /**
   * Every grant and session was written with a reference in the operator's `CUSTOMER#` partition
   * (for erasure): one consistent Query per 100 of them finds them all, a reference written before
   * the Query included. Each is deleted with the reference naming it.
   */
  async revokeAll(operatorPhone: string, now: Date): Promise<RevokedOperatorAccess> {
    const live = (item: Item | undefined, entityType: EntityType) => item?.[ENTITY_TYPE] === entityType && String(item[OperatorAuthAttribute.expiresAt]) > isoMicros(now);
    const deleted: (Item | undefined)[] = [];
    let cursor: string | undefined;
    do {
      const page = await queryPrefixPage(this.kit, customerAuthReferencePrefix(operatorPhone), { limit: 100, cursor }, { consistentRead: true });
      const targets = page.items.flatMap(referencedKeys);
      deleted.push(...(await Promise.all(targets.map((key) => this.kit.delete({ key, returnDeleted: true })))));
      await Promise.all(page.items.map((reference) => this.kit.delete({ key: { [PK]: String(reference[PK]), [SK]: String(reference[SK]) } })));
      cursor = page.cursor;
    } while (cursor !== undefined);
    return {
      sessions: deleted.filter((item) => live(item, EntityType.operatorSession)).length,
      loginGrants: deleted.filter((item) => live(item, EntityType.loginGrant)).length,
    };
  }
}
