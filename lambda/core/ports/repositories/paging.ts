/**
 * Every list is paginated with an opaque cursor: pass back `Page.cursor` unchanged; a tampered or
 * foreign cursor is refused (an error of code `invalid_cursor`).
 */
export interface PageRequest {
  /** Items to evaluate per page (a filtered page may hold fewer). */
  readonly limit?: number;
  /** `Page.cursor` of the previous page of the same list. */
  readonly cursor?: string;
}

export interface Page<T> {
  readonly items: readonly T[];
  /** Present while more items may follow. */
  readonly cursor?: string;
}
