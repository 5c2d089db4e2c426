import { createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidCursorError } from './dynamo-errors';
import { stableStringify } from '../../domain/stable-json';
import type { Item, QueryRequest } from './dynamo-kit-requests';

const CURSOR_MAC_BYTES = 16;

/** A fan-out query that has not been read yet. */
export const START = 'start';
/**
 * Where one query of a fan-out (one write shard) resumes: {@link START}, the key of the last item
 * it handed out (its ExclusiveStartKey), or `null` once it is exhausted.
 */
export type ShardPosition = typeof START | Item | null;

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
    return this.sign(lastEvaluatedKey, scope);
  }

  decode(cursor: string, scope: string): Item {
    const key = this.verify(cursor, scope);
    if (key === null || typeof key !== 'object' || Array.isArray(key)) throw new InvalidCursorError('unreadable payload');
    return key as Item;
  }

  /** Binds a fan-out cursor to every query of the fan-out, in order. */
  fanOutScope(requests: readonly QueryRequest[]): string {
    return stableStringify(requests.map((request) => this.scope(request)));
  }

  /** The cursor of a fan-out: where each of its queries resumes (see {@link ShardPosition}). */
  encodePositions(positions: readonly ShardPosition[], scope: string): string {
    return this.sign(positions, scope);
  }

  decodePositions(cursor: string, scope: string, queries: number): ShardPosition[] {
    const positions = this.verify(cursor, scope);
    const valid = (position: unknown) => position === null || position === START || (typeof position === 'object' && !Array.isArray(position));
    if (!Array.isArray(positions) || positions.length !== queries || !positions.every(valid)) throw new InvalidCursorError('unreadable payload');
    return positions as ShardPosition[];
  }

  private sign(value: unknown, scope: string): string {
    const payload = Buffer.from(JSON.stringify(value)).toString('base64url');
    return `${payload}.${this.mac(scope, payload).toString('base64url')}`;
  }

  private verify(cursor: string, scope: string): unknown {
    const [payload, signature, ...rest] = cursor.split('.');
    if (!payload || !signature || rest.length > 0) throw new InvalidCursorError('not a cursor issued by this table');
    const presented = Buffer.from(signature, 'base64url');
    const expected = this.mac(scope, payload);
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
      throw new InvalidCursorError('signature mismatch (altered, or issued for another query or table)');
    }
    try {
      return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown;
    } catch {
      throw new InvalidCursorError('unreadable payload');
    }
  }
}
