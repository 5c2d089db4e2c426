import { useEffect, useRef, useState } from 'preact/hooks';
import { type ConversationAction, mayDo } from '../../../lib/contract/conversation-access';
import { customerNameOf, knownCustomerNameOf } from '../../../lib/contract/customer-name';
import type { ConversationView, HistoryEntry } from '../../../lib/contract/operator-api';
import { useConsole } from '../context';
import type { MessageKey } from '../i18n';
import { hrefOf, serviceWindowOf } from '../view-model';
import { describeFailure, FeedbackLine, LoadError, formatTime, useRemote, type Feedback } from './common';
import { ConfirmDialog } from './confirm-dialog';
import { ConversationNotes } from './conversation-notes';
import { type Shortcut, ShortcutHelp, useShortcuts } from './conversation-shortcuts';
import { ReplyBox } from './reply-box';
import { AttachmentPicker } from './attachment-picker';
import { MessageMedia } from './message-media';
import { KnowledgeSources } from './knowledge-sources';
import { MessageChoices } from './message-choices';
import { TemplateSender } from './template-sender';
import { ConversationCost, MessageFee } from './message-fee';
import { TurnTrace } from './turn-trace';
import { ScenarioFromConversation } from './scenario-from-conversation';

/** A reply typed here: on its way, accepted (until the history shows it), or refused with the reason. */
interface OwnReply {
  readonly id: number;
  readonly text: string;
  readonly buttons: readonly string[];
  readonly status: 'pending' | 'sent' | 'failed';
  readonly messageId?: string;
  readonly error?: unknown;
}

let nextReplyId = 1;

/** One customer's conversation: history, notes, qualification data, and what a person can do with it. */
export function ConversationScreen({ customerId }: { readonly customerId: string }) {
  const { t, api, session } = useConsole();
  const { data, error, reload } = useRemote(() => api.conversation(customerId), [customerId], true);
  const [replies, setReplies] = useState<readonly OwnReply[]>([]);
  const [feedback, setFeedback] = useState<Feedback>(undefined);
  const [busy, setBusy] = useState(false);
  const [confirmingClose, setConfirmingClose] = useState(false);
  const [showingShortcuts, setShowingShortcuts] = useState(false);
  const replyBox = useRef<HTMLTextAreaElement>(null);
  const noteBox = useRef<HTMLTextAreaElement>(null);
  // Focus goes where the next action is once the screen shows it: the reply box after Claim or Send.
  const [focusReply, setFocusReply] = useState(false);
  useEffect(() => {
    if (focusReply && replyBox.current !== null) {
      replyBox.current.focus();
      setFocusReply(false);
    }
  });

  const act = async (action: OwnershipAction) => {
    setBusy(true);
    try {
      await api.act(customerId, action === 'takeOver' ? 'take-over' : action);
      if (action === 'close') {
        location.hash = hrefOf({ kind: 'inbox', tab: 'waiting' });
        return;
      }
      // Said done once the screen shows the conversation as it is now: never beside the control just used.
      await reload();
      setFeedback({ kind: 'ok', text: t(ACTION_DONE[action]) });
      setFocusReply(action === 'claim' || action === 'takeOver');
    } catch (failure) {
      setFeedback({ kind: 'error', text: describeFailure(t, failure, action) });
      await reload();
    } finally {
      setBusy(false);
    }
  };

  const send = async (text: string, buttons: readonly string[], id = nextReplyId++) => {
    const update = (change: Partial<OwnReply>) => setReplies((all) => all.map((reply) => (reply.id === id ? { ...reply, ...change } : reply)));
    setReplies((all) => [...all.filter((reply) => reply.id !== id), { id, text, buttons, status: 'pending' }]);
    setFocusReply(true);
    try {
      const message = await api.reply(customerId, text, buttons);
      update({ status: 'sent', messageId: message.messageId });
      await reload();
    } catch (failure) {
      update({ status: 'failed', error: failure });
    }
  };

  const conversation = data?.conversation;
  // The API's own rule: a control exists only when the API would do what it asks, for this person now.
  const permitted = (action: ConversationAction): boolean => conversation !== undefined && mayDo({ phone: session.operator.phone, role: session.role }, conversation, action);
  const mine = permitted('reply');
  const available = (action: OwnershipAction): boolean => !busy && permitted(action);
  const shortcuts: Shortcut[] = [
    { key: 'c', label: 'conversation.claim', run: available('claim') ? () => void act('claim') : undefined },
    { key: 't', label: 'conversation.takeOver', run: available('takeOver') ? () => void act('takeOver') : undefined },
    { key: 'r', label: 'shortcuts.reply', run: mine ? () => replyBox.current?.focus() : undefined },
    { key: 'n', label: 'shortcuts.note', run: () => noteBox.current?.focus() },
    { key: 'e', label: 'conversation.close', run: available('close') ? () => setConfirmingClose(true) : undefined },
    { key: 'i', label: 'conversation.back', run: () => (location.hash = hrefOf({ kind: 'inbox', tab: mine ? 'mine' : 'waiting' })) },
    { key: '?', label: 'shortcuts.show', run: () => setShowingShortcuts(true) },
  ];
  useShortcuts(shortcuts);

  if (data === undefined || conversation === undefined) {
    if (error === undefined) return <p role="status">{t('loading')}</p>;
    // Refused or gone: nothing of it is shown, only why and the way back.
    return (
      <article class="conversation">
        <a href={hrefOf({ kind: 'inbox', tab: 'waiting' })}>{t('conversation.back')}</a>
        <LoadError error={error} />
      </article>
    );
  }
  const customerName = customerNameOf(conversation);
  const { messages } = data;
  const shownIds = new Set(messages.map((message) => message.messageId));
  const ownReplies = replies.filter((reply) => reply.messageId === undefined || !shownIds.has(reply.messageId));
  const closed = conversation.state === 'CLOSED';
  const actionButton = (action: OwnershipAction, primary = false) =>
    permitted(action) && (
      <button type="button" class={primary ? 'primary' : undefined} disabled={busy} aria-keyshortcuts={SHORTCUT_OF[action]} onClick={() => (action === 'close' ? setConfirmingClose(true) : act(action))}>
        {t(ACTION_LABEL[action])}
      </button>
    );

  return (
    <article class="conversation" aria-labelledby="conversation-heading">
      <a href={hrefOf({ kind: 'inbox', tab: mine ? 'mine' : 'waiting' })}>{t('conversation.back')}</a>
      <header class="conversation-header">
        <h2 id="conversation-heading">{customerName}</h2>
        <p>
          <span class={`badge state-${conversation.state}`}>{t('conversation.state', { state: t(`state.${conversation.state}`) })}</span>
          {conversation.assignedTo !== undefined && <span> · {t('conversation.assignedTo', { operator: conversation.assignedTo === session.operator.phone ? t('conversation.you') : (conversation.assignedToName ?? conversation.assignedTo) })}</span>}
        </p>
        {conversation.handoffReason !== undefined && (
          <p class="handoff-reason">
            <strong>{t('conversation.handoffReason')}</strong> {conversation.handoffReason}
          </p>
        )}
        {closed && <p class="hint">{t('conversation.readOnly')}</p>}
        <button type="button" class="link-button" aria-keyshortcuts="?" onClick={() => setShowingShortcuts(true)}>
          {t('shortcuts.show')}
        </button>
      </header>
      <FeedbackLine feedback={feedback} />
      <LoadError error={error} stale />
      <div class="conversation-body">
        <History
          customerId={customerId}
          messages={messages}
          ownReplies={ownReplies}
          customerName={customerName}
          onRetry={(reply) => send(reply.text, reply.buttons, reply.id)}
          onDiscard={(reply) => setReplies((all) => all.filter((other) => other.id !== reply.id))}
        />
        <aside class="conversation-side">
          <div class="actions">
            {actionButton('claim', true)}
            {actionButton('takeOver', true)}
            {actionButton('release')}
            {actionButton('close')}
          </div>
          {session.role === 'admin' && <ScenarioFromConversation customerId={customerId} />}
          <ConversationNotes customerId={customerId} inputRef={noteBox} />
          <Profile conversation={conversation} />
          <ConversationCost messages={messages} />
          <Qualification conversation={conversation} />
        </aside>
      </div>
      <ReplyBox
        serviceWindow={closed ? { open: false } : serviceWindowOf(messages, new Date())}
        state={conversation.state}
        mine={mine}
        customerName={knownCustomerNameOf(conversation)}
        textareaRef={replyBox}
        onSend={(text, buttons) => send(text, buttons)}
      />
      {mine && <AttachmentPicker customerId={customerId} onSent={reload} />}
      {mine && <TemplateSender customerId={customerId} onSent={reload} />}
      <ConfirmDialog
        open={confirmingClose}
        heading={t('close.heading')}
        confirmLabel={t('close.confirm')}
        cancelLabel={t('close.cancel')}
        onCancel={() => setConfirmingClose(false)}
        onConfirm={() => {
          setConfirmingClose(false);
          void act('close');
        }}
      >
        <p>{t('close.body', { customer: customerName })}</p>
      </ConfirmDialog>
      <ShortcutHelp shortcuts={shortcuts} open={showingShortcuts} onClose={() => setShowingShortcuts(false)} />
    </article>
  );
}

/** What a control here does with who has the conversation. */
type OwnershipAction = Extract<ConversationAction, 'claim' | 'takeOver' | 'release' | 'close'>;

const ACTION_LABEL: Record<OwnershipAction, MessageKey> = { claim: 'conversation.claim', takeOver: 'conversation.takeOver', release: 'conversation.release', close: 'conversation.close' };
const ACTION_DONE: Record<OwnershipAction, MessageKey> = { claim: 'conversation.claimed', takeOver: 'conversation.takenOver', release: 'conversation.released', close: 'conversation.closed' };
const SHORTCUT_OF: Record<OwnershipAction, string | undefined> = { claim: 'c', takeOver: 't', release: undefined, close: 'e' };

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
  /** The customer's name, else their number. */
  readonly customerName: string;
  readonly onRetry: (reply: OwnReply) => void;
  readonly onDiscard: (reply: OwnReply) => void;
}

function History({ customerId, messages, ownReplies, customerName, onRetry, onDiscard }: HistoryProps) {
  const { t, language, session } = useConsole();
  const me = `${t('role.operator')} · ${session.operator.name ?? t('conversation.you')}`;
  /** Who wrote it: the customer by name, the agent, an operator by name (or phone), the pipeline. */
  const authorOf = (message: HistoryEntry): string => {
    if (message.role === 'user') return `${t('role.user')} · ${customerName}`;
    if (message.role !== 'operator') return t(`role.${message.role}`);
    if (message.operatorPhone === session.operator.phone) return me;
    const who = message.operatorName ?? message.operatorPhone;
    return who === undefined ? t('role.operator') : `${t('role.operator')} · ${who}`;
  };
  // The API pages newest first; people read a chat oldest first.
  const chronological = [...messages].reverse();
  return (
    <section class="history" aria-label={t('conversation.history')}>
      <h3>{t('conversation.history')}</h3>
      {chronological.length === 0 && ownReplies.length === 0 && <p>{t('conversation.noMessages')}</p>}
      <ol class="messages">
        {chronological.map((message) => (
          <li class={`message message-${message.role}`}>
            <span class="message-author">{authorOf(message)}</span>
            {message.revokedAt === undefined ? <p class="message-text">{message.text}</p> : <p class="message-text message-revoked">{t('conversation.revoked')}</p>}
            {message.reaction !== undefined && (
              <span class="message-reaction" role="img" aria-label={t('conversation.reaction', { emoji: message.reaction })}>
                {message.reaction}
              </span>
            )}
            <MessageChoices interactive={message.interactive} />
            {message.media !== undefined && <MessageMedia customerId={customerId} message={message} media={message.media} />}
            {session.role === 'admin' && message.replyTo !== undefined && <TurnTrace customerId={customerId} messageId={message.replyTo} />}
            <span class="message-meta">
              {message.editedAt !== undefined && `${t('conversation.edited')} · `}
              <time dateTime={message.at}>{formatTime(message.at, language)}</time>
              {message.direction === 'outbound' && <DeliveryTicks message={message} />}
              {message.metaFee !== undefined && <MessageFee fee={message.metaFee} />}
            </span>
            <KnowledgeSources sources={message.knowledgeSources} />
          </li>
        ))}
        {ownReplies.map((reply) => (
          <li class={`message message-operator message-${reply.status}`}>
            <span class="message-author">{me}</span>
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
