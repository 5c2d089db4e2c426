import { createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidCursorError } from '../../domain/errors';
import { stableStringify } from '../../domain/stable-json';
import type { Item, QueryRequest } from './dynamo-kit-requests';

const CURSOR_MAC_BYTES = 16;

/**
 * The opaque, tamper-evident cursor of `queryPage`: the last evaluated key, signed together with the
 * table and the query that issued it, so an edited, truncated or foreign cursor is refused.
 */
export class PageCursors {
  constructor(
    private readonly tableName: string,
    private readonly cursorKey: Buffer,
  ) {}

  /** Binds a cursor to the query that issued it: another query's cursor does not verify. */
  scope(request: QueryRequest): string {
    const { cursor: _cursor, limit: _limit, ...shape } = request;
    return stableStringify(shape);
  }

  private mac(scope: string, payload: string): Buffer {
    return createHmac('sha256', this.cursorKey).update(`${this.tableName}\0${scope}\0${payload}`).digest().subarray(0, CURSOR_MAC_BYTES);
  }

  encode(lastEvaluatedKey: Item, scope: string): string {
    const payload = Buffer.from(JSON.stringify(lastEvaluatedKey)).toString('base64url');
    return `${payload}.${this.mac(scope, payload).toString('base64url')}`;
  }

  decode(cursor: string, scope: string): Item {
    const [payload, signature, ...rest] = cursor.split('.');
    if (!payload || !signature || rest.length > 0) throw new InvalidCursorError('not a cursor issued by this table');
    const presented = Buffer.from(signature, 'base64url');
    const expected = this.mac(scope, payload);
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
      throw new InvalidCursorError('signature mismatch (altered, or issued for another query or table)');
    }
    try {
      const key: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      if (key === null || typeof key !== 'object' || Array.isArray(key)) throw new Error('not an object');
      return key as Item;
    } catch {
      throw new InvalidCursorError('unreadable payload');
    }
  }
}
