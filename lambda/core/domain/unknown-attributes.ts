/**
 * Attributes a stored row carries that this version of the code does not model (written by an
 * older or newer release). Readers keep them here and writers put them back, so a read-modify-write
 * never silently drops data it does not understand.
 */
export interface CarriesUnknownAttributes {
  readonly unknownAttributes?: Readonly<Record<string, unknown>>;
}
