import type { CursorKeySource } from './dynamo-kit';
import { cursorSigningKey, EntityType } from './keys';
import { secretCreatedOnce } from './repository-support';

/**
 * The deployment's key of the page cursors that leave the process (the operator API hands them to
 * the console, and another instance may take them back): 32 random bytes in the table, created on
 * first use, read once per process. Not derived from anything public, so only a principal that may
 * read that item can sign a cursor; deleting the item replaces the key (outstanding cursors are then
 * refused, and the console starts again from the first page).
 */
export const deploymentCursorKey: CursorKeySource = async (kit) =>
  Buffer.from(await secretCreatedOnce(kit, cursorSigningKey(), EntityType.cursorSigningKey, 'key'), 'hex');
