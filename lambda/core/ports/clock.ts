/** The current instant. Injected so tests control time (midnight expiry, TTLs, ordering). */
export interface Clock {
  now(): Date;
}

/** Fresh unique ids (sessions, outbound messages, audit events, locks). Injected for deterministic tests. */
export interface IdGenerator {
  newId(): string;
}
