/**
 * The persistence ports the use cases depend on, one module per concept. Every list is paginated
 * with an opaque cursor (`paging.ts`). Writes that can lose a race say so in their result
 * (`boolean`) or throw ConditionFailedError (`errors.ts`); infrastructure failures (throttling,
 * unavailability, access denied) always throw.
 */
export * from './paging';
export * from './errors';
export * from './sessions';
export * from './messages';
export * from './inbound-receipts';
export * from './legacy-debounce';
export * from './turn-ledger';
export * from './customer-budget';
export * from './crm-sync';
export * from './administration';
export * from './consent';
export * from './operator-auth';
export * from './message-templates';
export * from './operator-notes';
export * from './handoff-report';
