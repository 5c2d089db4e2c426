// Entry point of the CRM sync worker: a schedule runs it every minute to publish due projections
// (../composition/crm-sync.ts; the use case is core/application/sync-crm-projections.ts).
import { composedOnFirstInvocation } from '../composition/compose-function';
import { composeCrmSync } from '../composition/crm-sync';
import { readCrmSyncSettings, toldToThisFunction } from '../composition/read-settings';

export const handler = composedOnFirstInvocation(() => composeCrmSync(readCrmSyncSettings(toldToThisFunction(__dirname))));
