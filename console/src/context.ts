import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { OperatorApi } from './api';
import type { SignedInSession } from '../../lib/contract/operator-api';
import type { Language, Translate } from './i18n';

/** What every screen of a signed-in console reads: words, the API, who is signed in. */
export interface ConsoleContextValue {
  readonly t: Translate;
  readonly language: Language;
  readonly api: OperatorApi;
  readonly session: SignedInSession;
}

export const ConsoleContext = createContext<ConsoleContextValue | undefined>(undefined);

export function useConsole(): ConsoleContextValue {
  const value = useContext(ConsoleContext);
  if (value === undefined) throw new Error('useConsole outside a signed-in console');
  return value;
}
