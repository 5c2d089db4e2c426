import type { Ref } from 'preact';
import { useState } from 'preact/hooks';
import type { ConversationState, QuickReply } from '../../../lib/contract/operator-api';
import { useConsole } from '../context';
import { formatDuration, type MessageKey } from '../i18n';
import { durationOf, type ServiceWindow } from '../view-model';
import { useRemote } from './common';

/** Why there is no reply box, by the conversation's state. */
const NO_REPLY_REASONS: Record<ConversationState, MessageKey> = {
  AWAITING_HUMAN: 'conversation.claimFirst',
  HUMAN_ACTIVE: 'conversation.otherOperator',
  NEW: 'conversation.withAgent',
  QUALIFYING: 'conversation.withAgent',
  CLOSED: 'conversation.isClosed',
};

export interface ReplyBoxProps {
  readonly serviceWindow: ServiceWindow;
  readonly state: ConversationState;
  readonly mine: boolean;
  /** What `{name}` becomes in a quick reply; absent: the placeholder is dropped. */
  readonly customerName?: string;
  readonly textareaRef: Ref<HTMLTextAreaElement>;
  /** The text, and the titles of its reply buttons (none: a plain text). */
  readonly onSend: (text: string, buttons: readonly string[]) => void;
}

/** WhatsApp's most reply buttons under one message, and its longest title. */
const MAX_BUTTONS = 3;
const MAX_BUTTON_TITLE = 20;

/**
 * The reply box, with the state of WhatsApp's 24-hour window that decides whether text can go out.
 * Typing `/` opens the quick replies (a list box the text area controls: arrows choose, Enter or Tab inserts, Escape
 * closes); Ctrl+Enter sends. It stays at the bottom of the screen on a phone.
 */
export function ReplyBox({ serviceWindow, state, mine, customerName, textareaRef, onSend }: ReplyBoxProps) {
  const { t } = useConsole();
  const [text, setText] = useState('');
  const [buttons, setButtons] = useState<readonly string[]>(Array.from({ length: MAX_BUTTONS }, () => ''));
  const picker = useQuickReplyPicker(text, mine);
  const send = () => {
    if (text.trim() === '') return;
    onSend(text, buttons.map((title) => title.trim()).filter((title) => title !== ''));
    setText('');
    setButtons(buttons.map(() => ''));
  };
  const insert = (reply: QuickReply) => setText(filled(reply.text, customerName));
  const onKeyDown = (event: KeyboardEvent) => {
    if (picker.open && picker.handleKey(event, insert)) return;
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      send();
    }
  };
  return (
    <form
      class="reply"
      onSubmit={(event) => {
        event.preventDefault();
        send();
      }}
    >
      <p class={serviceWindow.open ? 'window window-open' : 'window window-closed'}>
        {serviceWindow.open ? t('window.open', { duration: formatDuration(t, durationOf(serviceWindow.closesInMs)) }) : t(state === 'CLOSED' ? 'window.conversationClosed' : 'window.closed')}
      </p>
      {mine ? (
        <>
          <label for="reply-text">{t('reply.label')}</label>
          <textarea
            id="reply-text"
            ref={textareaRef}
            rows={3}
            maxLength={4096}
            value={text}
            aria-autocomplete="list"
            aria-controls="quick-reply-list"
            aria-activedescendant={picker.open && picker.active !== undefined ? `quick-reply-${picker.active.id}` : undefined}
            aria-describedby="reply-hint"
            onInput={(event) => setText((event.currentTarget as HTMLTextAreaElement).value)}
            onKeyDown={onKeyDown}
          />
          <p id="reply-hint" class="hint">
            {t('reply.hint')}
          </p>
          <ul id="quick-reply-list" role="listbox" aria-label={t('quickReplies.list')} hidden={!picker.open}>
            {picker.matches.map((reply) => (
              <li
                key={reply.id}
                id={`quick-reply-${reply.id}`}
                role="option"
                aria-selected={reply.id === picker.active?.id}
                onMouseDown={(event) => {
                  event.preventDefault();
                  insert(reply);
                }}
              >
                <strong>/{reply.id}</strong> {reply.title}
              </li>
            ))}
          </ul>
          <details class="reply-buttons">
            <summary>{t('reply.buttons')}</summary>
            <p id="reply-buttons-hint" class="hint">
              {t('reply.buttonsHint')}
            </p>
            {buttons.map((title, index) => (
              <span class="reply-button-field">
                <label for={`reply-button-${index + 1}`}>{t('reply.buttonLabel', { number: String(index + 1) })}</label>
                <input
                  id={`reply-button-${index + 1}`}
                  type="text"
                  maxLength={MAX_BUTTON_TITLE}
                  value={title}
                  aria-describedby="reply-buttons-hint"
                  onInput={(event) => setButtons(buttons.map((other, at) => (at === index ? (event.currentTarget as HTMLInputElement).value : other)))}
                />
              </span>
            ))}
          </details>
          <button type="submit" class="primary" disabled={text.trim() === ''}>
            {t('reply.send')}
          </button>
        </>
      ) : (
        <p>{t(NO_REPLY_REASONS[state])}</p>
      )}
    </form>
  );
}

/** The quick replies whose id or title holds what follows a leading `/`, and the keys that choose one. */
function useQuickReplyPicker(text: string, enabled: boolean) {
  const { api } = useConsole();
  const { data: replies } = useRemote(() => (enabled ? api.quickReplies() : Promise.resolve([])), [enabled]);
  const [activeIndex, setActiveIndex] = useState(0);
  const [dismissedFor, setDismissedFor] = useState<string | undefined>(undefined);
  const query = /^\/(\S*)$/.exec(text)?.[1]?.toLowerCase();
  const matches = query === undefined ? [] : (replies ?? []).filter((reply) => reply.id.includes(query) || reply.title.toLowerCase().includes(query));
  const open = matches.length > 0 && dismissedFor !== text;
  const index = Math.min(activeIndex, Math.max(0, matches.length - 1));
  const handleKey = (event: KeyboardEvent, insert: (reply: QuickReply) => void): boolean => {
    const moves: Record<string, number> = { ArrowDown: 1, ArrowUp: -1 };
    if (event.key in moves) setActiveIndex((index + moves[event.key] + matches.length) % matches.length);
    else if (event.key === 'Enter' || event.key === 'Tab') insert(matches[index]);
    else if (event.key === 'Escape') setDismissedFor(text);
    else return false;
    event.preventDefault();
    return true;
  };
  return { open, matches, active: open ? matches[index] : undefined, handleKey };
}

/** The quick reply's text with the customer's name, or without the placeholder when the name is not known. */
function filled(text: string, name: string | undefined): string {
  return name === undefined ? text.replace(/\s?\{name\}/g, '') : text.replaceAll('{name}', name);
}
