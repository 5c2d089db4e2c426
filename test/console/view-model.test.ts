import type { ConversationSummary, HistoryEntry } from '../../lib/contract/operator-api';
import { formatDuration, LANGUAGES, languageOfTag, storedLanguage, storeLanguage, translator, type PreferenceStore } from '../../console/src/i18n';
import { Locale } from '../../lib/contract';
import { startPolling, type VisibilitySource } from '../../console/src/polling';
import { durationOf, explain, hrefOf, inboxTabs, lineDiff, loginTokenOf, parseRoute, serviceWindowOf, type Route } from '../../console/src/view-model';
import { addEveryDictionary } from '../support/console-dictionaries';

const summary = (customerId: string, state: ConversationSummary['state'], at: string, extra: Partial<ConversationSummary> = {}): ConversationSummary => ({
  customerId,
  state,
  updatedAt: at,
  unread: false,
  ...extra,
});

// The console loads a language before it speaks it; these tests speak all three.
beforeAll(addEveryDictionary);

describe('routes', () => {
  it.each<[string, Route]>([
    ['', { kind: 'inbox', tab: 'waiting' }],
    ['#/inbox/mine', { kind: 'inbox', tab: 'mine' }],
    ['#/inbox/open', { kind: 'inbox', tab: 'open' }],
    ['#/conversations/5511999990000', { kind: 'conversation', customerId: '5511999990000' }],
    ['#/admin/dead-letters', { kind: 'admin', screen: 'dead-letters' }],
    ['#/admin/customers', { kind: 'admin', screen: 'customers' }],
  ])('reads %j', (hash, route) => {
    expect(parseRoute(hash)).toEqual(route);
    expect(parseRoute(hrefOf(route))).toEqual(route);
  });

  it.each(['#/conversations/..', '#/conversations/a%2Fb', '#/admin/secrets', '#/inbox/everything', '#/nowhere'])('sends %j to the waiting inbox', (hash) => {
    expect(parseRoute(hash)).toEqual({ kind: 'inbox', tab: 'waiting' });
  });

  it('finds the login token only in the fragment of /login', () => {
    expect(loginTokenOf('/login', '#abc_DEF-123')).toBe('abc_DEF-123');
    expect(loginTokenOf('/login', '')).toBeUndefined();
    expect(loginTokenOf('/', '#abc')).toBeUndefined();
  });
});

describe('inbox tabs', () => {
  const open = [
    summary('1', 'AWAITING_HUMAN', '2026-11-30T10:05:00Z', { waitingSince: '2026-11-30T10:05:00Z' }),
    summary('2', 'AWAITING_HUMAN', '2026-11-30T09:00:00Z', { waitingSince: '2026-11-30T08:00:00Z' }),
    summary('3', 'HUMAN_ACTIVE', '2026-11-30T11:00:00Z', { assignedTo: 'me' }),
    summary('4', 'HUMAN_ACTIVE', '2026-11-30T11:30:00Z', { assignedTo: 'someone-else' }),
    summary('5', 'QUALIFYING', '2026-11-30T12:00:00Z'),
  ];

  it('puts who waits longest first, mine apart, and everything open newest first', () => {
    const tabs = inboxTabs(open, 'me');
    expect(tabs.waiting.map((item) => item.customerId)).toEqual(['2', '1']);
    expect(tabs.mine.map((item) => item.customerId)).toEqual(['3']);
    expect(tabs.open.map((item) => item.customerId)).toEqual(['5', '4', '3', '1', '2']);
  });
});

describe('durations and the 24-hour window', () => {
  const now = new Date('2026-11-30T12:00:00Z');
  const entry = (direction: HistoryEntry['direction'], at: string): HistoryEntry => ({ messageId: at, sessionId: 's1', direction, role: direction === 'inbound' ? 'user' : 'assistant', text: '', at });

  it('splits a span into days, hours and minutes and words it', () => {
    expect(durationOf(((26 * 60) + 7) * 60_000 + 59_000)).toEqual({ days: 1, hours: 2, minutes: 7 });
    expect(durationOf(-5000)).toEqual({ days: 0, hours: 0, minutes: 0 });
    const t = translator('pt');
    expect(formatDuration(t, { days: 0, hours: 3, minutes: 5 })).toBe('3 h 5 min');
    expect(formatDuration(t, { days: 0, hours: 0, minutes: 42 })).toBe('42 min');
  });

  it('is open until 24 hours after the newest customer message, whatever the agent said later', () => {
    const window = serviceWindowOf([entry('outbound', '2026-11-30T11:59:00Z'), entry('inbound', '2026-11-30T10:00:00Z'), entry('inbound', '2026-11-29T09:00:00Z')], now);
    expect(window).toEqual({ open: true, closesInMs: 22 * 3_600_000 });
  });

  it('is closed after 24 hours, and when the customer never wrote', () => {
    expect(serviceWindowOf([entry('inbound', '2026-11-29T11:59:59Z')], now)).toEqual({ open: false });
    expect(serviceWindowOf([entry('outbound', '2026-11-30T11:00:00Z')], now)).toEqual({ open: false });
  });
});

describe('prompt diff', () => {
  it('marks removed and added lines and keeps the common ones', () => {
    expect(lineDiff('a\nb\nc', 'a\nB\nc\nd')).toEqual([
      { kind: 'same', text: 'a' },
      { kind: 'removed', text: 'b' },
      { kind: 'added', text: 'B' },
      { kind: 'same', text: 'c' },
      { kind: 'added', text: 'd' },
    ]);
  });

  it('shows no change for equal texts', () => {
    expect(lineDiff('x\ny', 'x\ny').every((line) => line.kind === 'same')).toBe(true);
  });
});

describe('refusals explained', () => {
  it('tells a second claimer that someone else was first, and an editor that the prompt moved on', () => {
    expect(explain(409, 'claim')).toBe('error.claimTaken');
    expect(explain(422, 'saveConfig', 'template_not_approved')).toBe('error.templateNotApproved');
    for (const language of Object.keys(LANGUAGES) as (keyof typeof LANGUAGES)[]) expect(translator(language)('error.templateNotApproved', { detail: 'x' })).toMatch(/x$/);
    expect(explain(409, 'publish')).toBe('error.promptStale');
    expect(explain(409, 'saveDraft')).toBe('error.draftStale');
    expect(explain(409, 'saveScenario')).toBe('error.scenarioStale');
    // The gate's refusals are worded as what they are, not as a stale edit.
    expect(explain(409, 'publish', 'evaluation_regression')).toBe('error.evaluationRegression');
    expect(explain(409, 'publish', 'not_evaluated')).toBe('error.notEvaluated');
    expect(explain(409, 'evaluate', 'no_scenarios')).toBe('error.noScenarios');
    expect(explain(409, 'release')).toBe('error.conversationChanged');
    expect(explain(422, 'reply')).toBe('error.windowClosed');
    expect(explain(502, 'reply')).toBe('error.sendFailed');
    expect(explain(undefined, 'load')).toBe('error.network');
  });

  it('has every explanation in both languages, with what to do', () => {
    for (const language of ['pt', 'en'] as const) {
      const t = translator(language);
      expect(t('error.claimTaken')).toMatch(language === 'pt' ? /caixa de entrada/ : /inbox/);
      expect(t('error.invalid', { detail: 'x' })).toMatch(/x$/);
    }
  });
});

describe('language preference', () => {
  it('defaults to Portuguese and keeps only the chosen language', () => {
    const stored = new Map<string, string>();
    const store: PreferenceStore = { getItem: (key) => stored.get(key) ?? null, setItem: (key, value) => void stored.set(key, value) };
    expect(storedLanguage(store)).toBe('pt');
    expect(storedLanguage(undefined)).toBe('pt');
    storeLanguage(store, 'en');
    expect(storedLanguage(store)).toBe('en');
    expect([...stored.keys()]).toEqual(['console.language']);
  });

  it('speaks the pipeline’s locale until an operator picks a language, which then wins', () => {
    const stored = new Map<string, string>();
    const store: PreferenceStore = { getItem: (key) => stored.get(key) ?? null, setItem: (key, value) => void stored.set(key, value) };
    expect(Object.values(Locale).map(languageOfTag)).toEqual(['pt', 'en', 'es']);
    expect(languageOfTag('')).toBe('pt');
    expect(storedLanguage(store, languageOfTag(Locale.ES))).toBe('es');
    storeLanguage(store, 'en');
    expect(storedLanguage(store, 'es')).toBe('en');
    stored.set('console.language', 'fr');
    expect(storedLanguage(store, 'es')).toBe('es');
  });

  it('has Spanish words for every screen, and names each language in its own words', () => {
    const t = translator('es');
    expect(t('error.claimTaken')).toMatch(/bandeja de entrada/);
    expect(t('inbox.tab.waiting', { count: 2 })).toBe('Esperando a una persona (2)');
    expect(Object.values(LANGUAGES).map((language) => language.name)).toEqual(['Português', 'English', 'Español']);
  });
});

describe('polling', () => {
  class FakeVisibility implements VisibilitySource {
    hidden = false;
    private listener?: () => void;
    addEventListener(_type: 'visibilitychange', listener: () => void) {
      this.listener = listener;
    }
    removeEventListener() {
      this.listener = undefined;
    }
    set(hidden: boolean) {
      this.hidden = hidden;
      this.listener?.();
    }
  }

  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('polls every interval while visible, pauses while hidden, refreshes at once on return, and stops', async () => {
    const visibility = new FakeVisibility();
    let calls = 0;
    const stop = startPolling(async () => void calls++, visibility, 4000);
    await jest.advanceTimersByTimeAsync(0);
    expect(calls).toBe(1);
    await jest.advanceTimersByTimeAsync(8000);
    expect(calls).toBe(3);

    visibility.set(true);
    await jest.advanceTimersByTimeAsync(60_000);
    expect(calls).toBe(3);

    visibility.set(false);
    await jest.advanceTimersByTimeAsync(0);
    expect(calls).toBe(4);
    await jest.advanceTimersByTimeAsync(4000);
    expect(calls).toBe(5);

    stop();
    await jest.advanceTimersByTimeAsync(60_000);
    expect(calls).toBe(5);
  });

  it('keeps polling after a failed call', async () => {
    let calls = 0;
    const stop = startPolling(async () => {
      calls++;
      throw new Error('offline');
    }, new FakeVisibility(), 1000);
    await jest.advanceTimersByTimeAsync(3000);
    expect(calls).toBe(4);
    stop();
  });
});
