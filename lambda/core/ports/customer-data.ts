/**
 * Everything the pipeline stores about one customer, found by key (never by Scan): what an
 * erasure deletes and an export returns.
 */

/** One stored item of the customer. `kind` is its entity type (docs/DESIGN.md#data-model). */
export interface CustomerRecord {
  readonly kind: string;
  /** The item's primary key (opaque to the application; handed back to `remove`). */
  readonly key: Readonly<Record<string, string>>;
  /** The item's attributes without its keys; present when the inventory was asked for contents. */
  readonly attributes?: Readonly<Record<string, unknown>>;
}

/**
 * The customer's items in the order an erasure must delete them: `dependents` are found only
 * through an anchor (a CRM row or a demand through the customer's reference to it), so they go
 * first; deleting an anchor before its dependents would orphan them if the erasure stopped
 * half-way.
 */
export interface CustomerInventory {
  readonly dependents: readonly CustomerRecord[];
  readonly anchors: readonly CustomerRecord[];
}

export interface CustomerDataRepository {
  /**
   * Reads every partition the customer owns (consistently) and follows its references. With
   * `contents` (an export), dependents are read too and only the existing ones are returned, the
   * references themselves are left out, and sign-in links and console sessions carry only when
   * they were made and end: no token hash or CSRF token leaves the table. Without, every item is
   * there, and a dependent may already be gone (deleting it again is harmless).
   */
  inventory(customerId: string, options?: { readonly contents?: boolean }): Promise<CustomerInventory>;
  /** Deletes the records; records already gone are fine. */
  remove(records: readonly CustomerRecord[]): Promise<void>;
  /** The per-deployment secret of customer pseudonyms, created on first use. */
  pseudonymSalt(): Promise<string>;
}
