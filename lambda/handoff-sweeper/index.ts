// Entry point of the handoff sweeper: an EventBridge schedule runs it every minute to re-notify
// operators about waiting conversations and remind their customers once (../composition/handoff-sweeper.ts).
import { composedOnFirstInvocation } from '../composition/compose-function';
import { composeHandoffSweeper } from '../composition/handoff-sweeper';
import { readHandoffSweeperSettings, toldToThisFunction } from '../composition/read-settings';

export const handler = composedOnFirstInvocation(() => composeHandoffSweeper(readHandoffSweeperSettings(toldToThisFunction(__dirname))));
