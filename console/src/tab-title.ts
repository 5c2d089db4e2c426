// The tab title has two authors: the shell names the screen, the attention counts the conversations
// waiting for a person. Each sets its own part here and the title is composed from both, so
// neither overwrites what the other said.

interface TabTitleParts {
  /** The console's name in the operator's language. */
  readonly app: string;
  /** The screen shown, when signed in. */
  readonly screen?: string;
  /** Conversations waiting for a person, counted while the console is open. */
  readonly waiting: number;
}

let parts: TabTitleParts = { app: '', waiting: 0 };

/** Changes one part of the tab title: `(2) Inbox · Operator console`. */
export function setTabTitle(change: Partial<TabTitleParts>): void {
  parts = { ...parts, ...change };
  const named = parts.screen === undefined ? parts.app : `${parts.screen} · ${parts.app}`;
  document.title = parts.waiting > 0 ? `(${parts.waiting}) ${named}` : named;
}
