// Entry point of the idle sweeper: a schedule runs it every 15 minutes to close the conversations
// the agent serves that nobody wrote in for `conversationIdleTimeout` (../composition/idle-sweeper.ts).
import { composedOnFirstInvocation } from '../composition/compose-function';
import { composeIdleSweeper } from '../composition/idle-sweeper';
import { readIdleSweeperSettings, toldToThisFunction } from '../composition/read-settings';

export const handler = composedOnFirstInvocation(() => composeIdleSweeper(readIdleSweeperSettings(toldToThisFunction(__dirname))));
