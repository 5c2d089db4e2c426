import type { LoginGrant, OperatorSession } from '../../../domain/operator-auth';
import { epochSeconds, isoMicros } from '../../../domain/timestamps';
import type { Item } from '../dynamo-kit';
import { ENTITY_TYPE, EntityType, loginGrantKey, operatorSessionKey, TTL } from '../keys';
import { ItemReader, withUnknownAttributes } from './item-reader';

export const OperatorAuthAttribute = { expiresAt: 'expires_at' } as const;

/** DynamoDB's TTL only cleans up (up to ~2 days late); expiry itself is enforced in code. */
export function loginGrantToItem(grant: LoginGrant): Item {
  return withUnknownAttributes(grant, {
    ...loginGrantKey(grant.tokenHash),
    [ENTITY_TYPE]: EntityType.loginGrant,
    token_hash: grant.tokenHash,
    operator_phone: grant.operatorPhone,
    created_at: isoMicros(grant.createdAt),
    expires_at: isoMicros(grant.expiresAt),
    [TTL]: epochSeconds(grant.expiresAt),
  });
}

export function loginGrantFromItem(item: Item): LoginGrant {
  const read = new ItemReader(item, EntityType.loginGrant);
  read.raw(TTL);
  return {
    tokenHash: read.string('token_hash'),
    operatorPhone: read.string('operator_phone'),
    createdAt: read.timestamp('created_at'),
    expiresAt: read.timestamp('expires_at'),
    ...read.unknownAttributes(),
  };
}

export function operatorSessionToItem(session: OperatorSession): Item {
  return withUnknownAttributes(session, {
    ...operatorSessionKey(session.tokenHash),
    [ENTITY_TYPE]: EntityType.operatorSession,
    token_hash: session.tokenHash,
    operator_phone: session.operatorPhone,
    csrf_token: session.csrfToken,
    created_at: isoMicros(session.createdAt),
    expires_at: isoMicros(session.expiresAt),
    [TTL]: epochSeconds(session.expiresAt),
  });
}

export function operatorSessionFromItem(item: Item): OperatorSession {
  const read = new ItemReader(item, EntityType.operatorSession);
  read.raw(TTL);
  return {
    tokenHash: read.string('token_hash'),
    operatorPhone: read.string('operator_phone'),
    csrfToken: read.string('csrf_token'),
    createdAt: read.timestamp('created_at'),
    expiresAt: read.timestamp('expires_at'),
    ...read.unknownAttributes(),
  };
}
