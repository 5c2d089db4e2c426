import { useEffect, useRef, useState } from 'preact/hooks';
import { useConsole } from '../context';
import { startPolling } from '../polling';
import { setTabTitle } from '../tab-title';
import { describeFailure, FeedbackLine, type Feedback } from './common';

/**
 * How often the console looks for new handoffs. Like the screens it pauses while the tab is hidden
 * (a console left open in a background tab costs the API nothing) and looks at once when shown; a
 * notification still helps when the console's window is behind another one.
 */
const ATTENTION_INTERVAL_MS = 15_000;
/** What the operator opted into, remembered in localStorage (a key only while it is on). */
const NOTIFY_KEY = 'console.notify';
const SOUND_KEY = 'console.sound';

type Preference = typeof NOTIFY_KEY | typeof SOUND_KEY;

function storage(): Storage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
}

function remembered(key: Preference): boolean {
  return storage()?.getItem(key) === 'on';
}

function remember(key: Preference, on: boolean): void {
  if (on) storage()?.setItem(key, 'on');
  else storage()?.removeItem(key);
}

/**
 * While the console is open, a new conversation waiting for a person raises a browser notification
 * and a short tone (each opt-in, remembered), and the tab title counts the conversations waiting.
 */
export function Attention() {
  const { t, api } = useConsole();
  const [notify, setNotify] = useState(() => remembered(NOTIFY_KEY) && 'Notification' in window && Notification.permission === 'granted');
  const [sound, setSound] = useState(() => remembered(SOUND_KEY));
  const [feedback, setFeedback] = useState<Feedback>(undefined);
  const choices = useRef({ notify, sound });
  choices.current = { notify, sound };
  const t0 = useRef(t);
  t0.current = t;

  useEffect(() => {
    let seen: Set<string> | undefined;
    const look = async () => {
      const waiting = (await api.listConversations('AWAITING_HUMAN')).items;
      setTabTitle({ waiting: waiting.length });
      const arrived = seen === undefined ? [] : waiting.filter((conversation) => !seen!.has(conversation.customerId));
      seen = new Set(waiting.map((conversation) => conversation.customerId));
      if (arrived.length === 0) return;
      if (choices.current.notify && Notification.permission === 'granted') {
        for (const conversation of arrived) new Notification(t0.current('attention.newHandoff'), { body: conversation.displayName ?? conversation.customerId, tag: conversation.customerId });
      }
      if (choices.current.sound) chime();
    };
    const stop = startPolling(look, document, ATTENTION_INTERVAL_MS);
    // A console opened in a background tab still counts the waiting in its title at once.
    if (document.hidden) void look().catch(() => undefined);
    return () => {
      stop();
      setTabTitle({ waiting: 0 });
    };
  }, [api]);

  const toggleNotify = async () => {
    if (notify) {
      setNotify(false);
      remember(NOTIFY_KEY, false);
      return;
    }
    try {
      const permission = 'Notification' in window ? await Notification.requestPermission() : 'denied';
      const granted = permission === 'granted';
      setNotify(granted);
      remember(NOTIFY_KEY, granted);
      setFeedback(granted ? undefined : { kind: 'error', text: t('attention.denied') });
    } catch (failure) {
      setFeedback({ kind: 'error', text: describeFailure(t, failure, 'load') });
    }
  };
  const toggleSound = () => {
    setSound(!sound);
    remember(SOUND_KEY, !sound);
    if (!sound) chime();
  };

  return (
    <span class="availability">
      <button type="button" role="switch" aria-checked={notify} class="switch" onClick={toggleNotify}>
        <span class="switch-track" aria-hidden="true" />
        {t('attention.notify')}
      </button>
      <button type="button" role="switch" aria-checked={sound} class="switch" onClick={toggleSound}>
        <span class="switch-track" aria-hidden="true" />
        {t('attention.sound')}
      </button>
      <FeedbackLine feedback={feedback} />
    </span>
  );
}

/** A short two-note tone, made in the page (no sound file to load). */
function chime(): void {
  try {
    const context = new AudioContext();
    for (const [index, frequency] of [880, 1320].entries()) {
      const tone = context.createOscillator();
      const volume = context.createGain();
      tone.frequency.value = frequency;
      volume.gain.value = 0.08;
      tone.connect(volume).connect(context.destination);
      tone.start(context.currentTime + index * 0.15);
      tone.stop(context.currentTime + index * 0.15 + 0.12);
    }
  } catch {
    // No audio (a policy or a headless page): the notification and the title still tell.
  }
}
