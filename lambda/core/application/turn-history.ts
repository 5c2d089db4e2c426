import type { PendingInbound } from '../domain/inbound-receipt';
import type { InboundTurn } from '../domain/inbound-turn';
import type { StoredMedia } from '../domain/media';
import { textWithMediaNote } from '../domain/media-limits';
import { customerMessage, type Message } from '../domain/message';
import { openSession, SessionState, type Session } from '../domain/session';
import { isoMicros } from '../domain/timestamps';
import type { Clock, IdGenerator } from '../ports/clock';
import type { MessageRepository, SessionRepository } from '../ports/repositories';
import type { DownloadInboundMedia } from './download-inbound-media';
import type { TranscribeVoiceNotes } from './transcribe-voice-note';

export interface TurnHistoryDependencies {
  readonly sessions: SessionRepository;
  readonly messages: MessageRepository;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  /**
   * Downloads the attachments of the drained messages into the media bucket before they reach the
   * history (`media`): a message without one costs nothing more.
   * @default - none: an attachment stays its placeholder text
   */
  readonly media?: Pick<DownloadInboundMedia, 'resolve'>;
  /**
   * Transcribes the stored voice notes of the drained messages (`media.transcription`): the
   * transcript is what the agent and the history read.
   * @default - none: a voice note is described to the agent, which cannot hear it
   */
  readonly voiceNotes?: Pick<TranscribeVoiceNotes, 'withTranscript'>;
}

/**
 * Steps 3 and 4 of a turn (docs/DESIGN.md#a-normal-turn-step-by-step): the session the drained
 * messages belong to, and the messages into its history, each attachment first downloaded (or
 * refused) and a voice note transcribed.
 */
export class TurnHistory {
  constructor(private readonly deps: TurnHistoryDependencies) {}

  /** The session of the turn: the active one, or a new one when there is none or it is closed (written by {@link place}). */
  sessionFor(first: InboundTurn, active: Session | undefined): { readonly session: Session; readonly opened: boolean } {
    if (active !== undefined && active.state !== SessionState.CLOSED) return { session: active, opened: false };
    const session = openSession(first, this.deps.ids.newId(), isoMicros(this.deps.clock.now()), { previous: active });
    return { session, opened: true };
  }

  /**
   * A session the turn opened is written at once, so the messages appended next belong to a
   * session the next turn will find even if this turn is superseded (turns of one customer never
   * overlap: one FIFO group); then the messages are appended.
   */
  async place(pending: readonly PendingInbound[], { session, opened }: { readonly session: Session; readonly opened: boolean }, finalAttempt: boolean): Promise<Message[]> {
    if (opened) await this.deps.sessions.put(session);
    return this.append(pending, session, finalAttempt);
  }

  /**
   * The drained messages into `session`'s history, put-if-absent at their history timestamps. A
   * download a retry can fix fails the turn before anything is appended; the retry appends the
   * same entries.
   */
  async append(pending: readonly PendingInbound[], session: Session, finalAttempt: boolean): Promise<Message[]> {
    const entries = await Promise.all(
      pending.map(async (turn) => {
        const message = customerMessage(turn, session.sessionId, turn.historyTimestamp);
        const media = await this.attachmentOf(turn, finalAttempt);
        return media === undefined ? message : { ...message, text: textWithMediaNote(message.text, media), media };
      }),
    );
    await Promise.all(entries.map((message) => this.deps.messages.append(message)));
    return entries;
  }

  /**
   * What the history keeps of `turn`'s attachment: downloaded, and a voice note transcribed. A
   * voice note already appended by an earlier attempt of this turn is taken as it was persisted,
   * so a retry (after the model failed, say) neither starts another transcription job nor hears
   * the note differently; only voice notes pay that read.
   */
  private async attachmentOf(turn: PendingInbound, finalAttempt: boolean): Promise<StoredMedia | undefined> {
    const { media: downloads, voiceNotes, messages } = this.deps;
    if (turn.media === undefined || downloads === undefined) return undefined;
    if (voiceNotes === undefined || turn.media.kind !== 'audio') return downloads.resolve(turn, finalAttempt);
    const appended = await messages.getOutbound(messages.refFor({ customerId: turn.customerId, timestamp: turn.historyTimestamp, messageId: turn.messageId }));
    if (appended?.media !== undefined && appended.media.state !== 'pending') return appended.media;
    const media = await downloads.resolve(turn, finalAttempt);
    return media && voiceNotes.withTranscript(turn.customerId, media, finalAttempt);
  }
}
