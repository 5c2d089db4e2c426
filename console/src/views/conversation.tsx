import { useState } from 'preact/hooks';
import type { ConversationState, ConversationView, HistoryEntry, MessageTemplate } from '../../../lib/contract/operator-api';
import { useConsole } from '../context';
import { formatDuration, type MessageKey } from '../i18n';
import { durationOf, hrefOf, serviceWindowOf } from '../view-model';
import { describeFailure, FeedbackLine, LoadError, formatTime, useRemote, type Feedback } from './common';
import { MessageMedia } from './message-media';

/** A reply typed here: on its way, accepted (until the history shows it), or refused with the reason. */
interface OwnReply {
  readonly id: number;
  readonly text: string;
  readonly status: 'pending' | 'sent' | 'failed';
  readonly messageId?: string;
  readonly error?: unknown;
}

let nextReplyId = 1;

/** One customer's conversation: history, qualification data, and what a person can do with it. */
export function ConversationScreen({ customerId }: { readonly customerId: string }) {
  const { t, api, session } = useConsole();
  const { data, error, reload } = useRemote(() => api.conversation(customerId), [customerId], true);
  const [replies, setReplies] = useState<readonly OwnReply[]>([]);
  const [feedback, setFeedback] = useState<Feedback>(undefined);
  const [busy, setBusy] = useState(false);

  const act = async (action: 'claim' | 'release' | 'close') => {
    setBusy(true);
    try {
      await api.act(customerId, action);
      setFeedback({ kind: 'ok', text: t(action === 'claim' ? 'conversation.claimed' : action === 'release' ? 'conversation.released' : 'conversation.closed') });
    } catch (failure) {
      setFeedback({ kind: 'error', text: describeFailure(t, failure, action) });
    } finally {
      setBusy(false);
      await reload();
    }
  };

  const send = async (text: string, id = nextReplyId++) => {
    const update = (change: Partial<OwnReply>) => setReplies((all) => all.map((reply) => (reply.id === id ? { ...reply, ...change } : reply)));
    setReplies((all) => [...all.filter((reply) => reply.id !== id), { id, text, status: 'pending' }]);
    try {
      const message = await api.reply(customerId, text);
      update({ status: 'sent', messageId: message.messageId });
      await reload();
    } catch (failure) {
      update({ status: 'failed', error: failure });
    }
  };

  if (data === undefined) {
    return error === undefined ? <p role="status">{t('loading')}</p> : <LoadError error={error} />;
  }
  const { conversation, messages } = data;
  const mine = conversation.state === 'HUMAN_ACTIVE' && conversation.assignedTo === session.operator.phone;
  const mayHandBack = conversation.state === 'AWAITING_HUMAN' || (conversation.state === 'HUMAN_ACTIVE' && (mine || session.role === 'admin'));
  const shownIds = new Set(messages.map((message) => message.messageId));
  const ownReplies = replies.filter((reply) => reply.messageId === undefined || !shownIds.has(reply.messageId));

  return (
    <article class="conversation" aria-labelledby="conversation-heading">
      <a href={hrefOf({ kind: 'inbox', tab: mine ? 'mine' : 'waiting' })}>{t('conversation.back')}</a>
      <header class="conversation-header">
        <h2 id="conversation-heading">{conversation.displayName ?? conversation.customerId}</h2>
        <p>
          <span class={`badge state-${conversation.state}`}>{t('conversation.state', { state: t(`state.${conversation.state}`) })}</span>
          {conversation.assignedTo !== undefined && <span> · {t('conversation.assignedTo', { operator: conversation.assignedTo })}</span>}
        </p>
      </header>
      <FeedbackLine feedback={feedback} />
      <LoadError error={error} />
      <div class="conversation-body">
        <History customerId={customerId} messages={messages} ownReplies={ownReplies} onRetry={(reply) => send(reply.text, reply.id)} onDiscard={(reply) => setReplies((all) => all.filter((other) => other.id !== reply.id))} />
        <aside class="conversation-side">
          <Profile conversation={conversation} />
          <Qualification conversation={conversation} />
          <div class="actions">
            {conversation.state === 'AWAITING_HUMAN' && (
              <button type="button" class="primary" disabled={busy} onClick={() => act('claim')}>
                {t('conversation.claim')}
              </button>
            )}
            {mayHandBack && (
              <button type="button" disabled={busy} onClick={() => act('release')}>
                {t('conversation.release')}
              </button>
            )}
            {mayHandBack && (
              <button type="button" disabled={busy} onClick={() => act('close')}>
                {t('conversation.close')}
              </button>
            )}
          </div>
        </aside>
      </div>
      <ReplyBox messages={messages} state={conversation.state} mine={mine} onSend={(text) => send(text)} />
      {mine && <TemplateSender customerId={customerId} onSent={reload} />}
    </article>
  );
}

/**
 * What WhatsApp reported of a message the pipeline sent, as the phone shows it: ✓ sent, ✓✓
 * delivered, blue ✓✓ read; a failure in words (a closed window: only a template reaches the
 * customer now); a reply that may or may not have reached the customer, said so.
 */
function DeliveryTicks({ message }: { readonly message: HistoryEntry }) {
  const { t } = useConsole();
  if (message.receipt === 'failed') {
    const failure = message.deliveryFailure ?? { reason: 'other' };
    return (
      <span class="delivery delivery-failed" role="alert">
        {' · '}
        {t(`delivery.failed.${failure.reason}`)}
        {failure.code !== undefined && ` (${failure.code})`}
      </span>
    );
  }
  if (message.deliveryStatus === 'maybe_sent' && message.receipt === undefined) return <span class="delivery delivery-unknown">{` · ${t('delivery.maybeSent')}`}</span>;
  const receipt = message.receipt ?? (message.deliveryStatus === 'sent' ? 'sent' : undefined);
  if (receipt === undefined) return null;
  return (
    <span class={`delivery delivery-${receipt}`} data-receipt={receipt}>
      {' · '}
      <span aria-hidden="true">{receipt === 'sent' ? '✓' : '✓✓'}</span> {t(`delivery.${receipt}`)}
    </span>
  );
}

interface HistoryProps {
  readonly customerId: string;
  readonly messages: readonly HistoryEntry[];
  readonly ownReplies: readonly OwnReply[];
  readonly onRetry: (reply: OwnReply) => void;
  readonly onDiscard: (reply: OwnReply) => void;
}

function History({ customerId, messages, ownReplies, onRetry, onDiscard }: HistoryProps) {
  const { t, language } = useConsole();
  // The API pages newest first; people read a chat oldest first.
  const chronological = [...messages].reverse();
  return (
    <section class="history" aria-label={t('conversation.history')}>
      <h3>{t('conversation.history')}</h3>
      {chronological.length === 0 && ownReplies.length === 0 && <p>{t('conversation.noMessages')}</p>}
      <ol class="messages">
        {chronological.map((message) => (
          <li class={`message message-${message.role}`}>
            <span class="message-author">
              {t(`role.${message.role}`)}
              {message.operatorPhone !== undefined && ` (${message.operatorPhone})`}
            </span>
            <p class="message-text">{message.text}</p>
            {message.media !== undefined && <MessageMedia customerId={customerId} message={message} media={message.media} />}
            <span class="message-meta">
              {formatTime(message.at, language)}
              {message.direction === 'outbound' && <DeliveryTicks message={message} />}
            </span>
          </li>
        ))}
        {ownReplies.map((reply) => (
          <li class={`message message-operator message-${reply.status}`}>
            <span class="message-author">{t('role.operator')}</span>
            <p class="message-text">{reply.text}</p>
            <span class="message-meta" role={reply.status === 'failed' ? 'alert' : 'status'}>
              {reply.status === 'pending' && t('reply.pending')}
              {reply.status === 'sent' && t('reply.sent')}
              {reply.status === 'failed' && t('reply.failed', { reason: describeFailure(t, reply.error, 'reply') })}
            </span>
            {reply.status === 'failed' && (
              <span class="message-actions">
                <button type="button" onClick={() => onRetry(reply)}>
                  {t('reply.retry')}
                </button>
                <button type="button" onClick={() => onDiscard(reply)}>
                  {t('reply.discard')}
                </button>
              </span>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}

function Qualification({ conversation }: { readonly conversation: ConversationView }) {
  const { t } = useConsole();
  return <Facts heading={t('conversation.qualification')} empty={t('conversation.noQualification')} entries={Object.entries(conversation.qualificationData)} />;
}

const CADASTRAL_LABELS: Readonly<Record<string, MessageKey>> = {
  name: 'cadastral.name',
  email: 'cadastral.email',
  document_id: 'cadastral.document_id',
  company: 'cadastral.company',
  city: 'cadastral.city',
};

/** What the agent recorded about the customer: the stage that has the conversation, segment, intent and registration data. */
function Profile({ conversation }: { readonly conversation: ConversationView }) {
  const { t } = useConsole();
  const { currentAgent, segment, intent, cadastralData } = conversation;
  const entries: [string, unknown][] = [
    ...(currentAgent === undefined ? [] : [[t('conversation.currentAgent'), currentAgent] as [string, unknown]]),
    ...(segment === undefined ? [] : [[t('conversation.segment'), segment] as [string, unknown]]),
    ...(intent === undefined ? [] : [[t('conversation.intent'), intent] as [string, unknown]]),
    ...Object.entries(cadastralData).map(([field, value]): [string, unknown] => [Object.hasOwn(CADASTRAL_LABELS, field) ? t(CADASTRAL_LABELS[field]) : field, value]),
  ];
  return <Facts heading={t('conversation.profile')} empty={t('conversation.noProfile')} entries={entries} />;
}

/** A titled list of labelled values, or a line saying there is none yet. */
function Facts({ heading, empty, entries }: { readonly heading: string; readonly empty: string; readonly entries: readonly (readonly [string, unknown])[] }) {
  return (
    <section class="qualification" aria-label={heading}>
      <h3>{heading}</h3>
      {entries.length === 0 ? (
        <p>{empty}</p>
      ) : (
        <dl>
          {entries.map(([key, value]) => (
            <div>
              <dt>{key}</dt>
              <dd>{typeof value === 'string' ? value : JSON.stringify(value)}</dd>
            </div>
          ))}
        </dl>
      )}
    </section>
  );
}

interface ReplyBoxProps {
  readonly messages: readonly HistoryEntry[];
  readonly state: ConversationState;
  readonly mine: boolean;
  readonly onSend: (text: string) => void;
}

/** The reply box, with the state of WhatsApp's 24-hour window that decides whether text can go out. */
/** Why there is no reply box, by the conversation's state. */
const NO_REPLY_REASONS: Record<ConversationState, MessageKey> = {
  AWAITING_HUMAN: 'conversation.claimFirst',
  HUMAN_ACTIVE: 'conversation.otherOperator',
  NEW: 'conversation.withAgent',
  QUALIFYING: 'conversation.withAgent',
  CLOSED: 'conversation.isClosed',
};

function ReplyBox({ messages, state, mine, onSend }: ReplyBoxProps) {
  const { t } = useConsole();
  const [text, setText] = useState('');
  const serviceWindow = serviceWindowOf(messages, new Date());
  const submit = (event: Event) => {
    event.preventDefault();
    if (text.trim() === '') return;
    onSend(text);
    setText('');
  };
  return (
    <form class="reply" onSubmit={submit}>
      <p class={serviceWindow.open ? 'window window-open' : 'window window-closed'}>
        {serviceWindow.open ? t('window.open', { duration: formatDuration(t, durationOf(serviceWindow.closesInMs)) }) : t('window.closed')}
      </p>
      {mine ? (
        <>
          <label for="reply-text">{t('reply.label')}</label>
          <textarea id="reply-text" rows={3} maxLength={4096} value={text} onInput={(event) => setText((event.currentTarget as HTMLTextAreaElement).value)} />
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

/**
 * An approved template with a value for each of its parameters: the one message WhatsApp delivers
 * once the customer's window closed, and a way to re-engage them. The preview shows the text the
 * customer will read.
 */
function TemplateSender({ customerId, onSent }: { readonly customerId: string; readonly onSent: () => Promise<void> }) {
  const { t, api } = useConsole();
  const { data: templates, error } = useRemote(() => api.templates(), []);
  const [chosen, setChosen] = useState('');
  const [values, setValues] = useState<readonly string[]>([]);
  const [feedback, setFeedback] = useState<Feedback>(undefined);
  const [busy, setBusy] = useState(false);
  const approved = (templates ?? []).filter((template) => template.status === 'APPROVED');
  const template = approved.find((candidate) => templateKey(candidate) === chosen);
  const complete = template !== undefined && template.parameters.every((_, index) => (values[index] ?? '').trim() !== '');

  const submit = async (event: Event) => {
    event.preventDefault();
    if (template === undefined || !complete) return;
    setBusy(true);
    try {
      await api.sendTemplate(customerId, { name: template.name, language: template.language, values: template.parameters.map((_, index) => values[index]) });
      setFeedback({ kind: 'ok', text: t('template.sent') });
      setChosen('');
      setValues([]);
      await onSent();
    } catch (failure) {
      setFeedback({ kind: 'error', text: describeFailure(t, failure, 'reply') });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="template-sender" aria-label={t('template.heading')} onSubmit={submit}>
      <h3>{t('template.heading')}</h3>
      <LoadError error={error} />
      <label for="template-choice">{t('template.choose')}</label>
      <select
        id="template-choice"
        value={chosen}
        onChange={(event) => {
          setChosen((event.currentTarget as HTMLSelectElement).value);
          setValues([]);
        }}
      >
        <option value="">{t('template.none')}</option>
        {approved.map((candidate) => (
          <option value={templateKey(candidate)}>
            {candidate.name} ({candidate.language})
          </option>
        ))}
      </select>
      {template?.parameters.map((parameter, index) => (
        <>
          <label for={`template-value-${index}`}>{t('template.value', { parameter: `{{${parameter}}}` })}</label>
          <input
            id={`template-value-${index}`}
            type="text"
            maxLength={1024}
            value={values[index] ?? ''}
            onInput={(event) => {
              const value = (event.currentTarget as HTMLInputElement).value;
              setValues((all) => template.parameters.map((_, other) => (other === index ? value : (all[other] ?? ''))));
            }}
          />
        </>
      ))}
      {template !== undefined && (
        <p class="template-preview">
          {t('template.preview')} <q>{previewOf(template, values)}</q>
        </p>
      )}
      <button type="submit" class="primary" disabled={busy || !complete}>
        {t('template.send')}
      </button>
      <FeedbackLine feedback={feedback} />
    </form>
  );
}

const templateKey = (template: Pick<MessageTemplate, 'name' | 'language'>) => `${template.name}/${template.language}`;

function previewOf(template: MessageTemplate, values: readonly string[]): string {
  return template.body.replace(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g, (placeholder, name: string) => {
    const value = values[template.parameters.indexOf(name)];
    return value === undefined || value === '' ? placeholder : value;
  });
}
