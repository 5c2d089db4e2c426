import type { Operator } from '../../domain/operator';
import { addMilliseconds, isoMicros, type IsoTimestamp } from '../../domain/timestamps';
import type { Clock } from '../../ports/clock';
import type { MediaStore } from '../../ports/media-store';
import type { MessageRepository, SessionRepository } from '../../ports/repositories';
import type { MediaDescription } from '../../domain/media-note';
import { mediaLinkResponse } from '../../domain/media';
import { mayRead } from './conversation-views';
import { OperatorActionError } from './operator-errors';

/** How long a link to an attachment reads it: long enough to open it, short enough to be worthless when forwarded. */
export const MEDIA_LINK_SECONDS = 300;

export interface OperatorMediaDependencies {
  readonly sessions: Pick<SessionRepository, 'getActive'>;
  readonly messages: Pick<MessageRepository, 'refFor' | 'getOutbound'>;
  readonly media: Pick<MediaStore, 'presignedGetUrl'>;
  readonly clock: Clock;
}

/** A short-lived link that reads one stored attachment. */
export interface MediaLink {
  readonly url: string;
  readonly expiresAt: IsoTimestamp;
  readonly kind: MediaDescription['kind'];
  readonly mimeType?: string;
  readonly filename?: string;
}

/**
 * The attachments of a conversation, for the operators who may read it (the same rule as reading
 * the conversation: an admin, anyone while it waits for a person, its owner while they have it):
 * a presigned URL of the stored object, valid for {@link MEDIA_LINK_SECONDS}, that opens a safe
 * image in place and downloads anything else (`mediaLinkResponse`). The message is found
 * by its place in the history (`at` and its id: one read), never by the object key.
 */
export class OperatorMedia {
  constructor(private readonly deps: OperatorMediaDependencies) {}

  async link(operator: Operator, customerId: string, messageId: string, at: string): Promise<MediaLink> {
    const timestamp = parsedTimestamp(at);
    const session = await this.deps.sessions.getActive(customerId);
    if (session === undefined) throw new OperatorActionError('not_found', 'No conversation with this customer');
    if (!mayRead(operator, session)) throw new OperatorActionError('forbidden', 'Only an admin reads a conversation that is neither waiting for a person nor yours');
    const message = await this.deps.messages.getOutbound(this.deps.messages.refFor({ customerId, timestamp, messageId }));
    const media = message?.media;
    if (media === undefined) throw new OperatorActionError('not_found', 'No such message with an attachment in this conversation');
    if (media.state !== 'stored' || media.objectKey === undefined) throw new OperatorActionError('conflict', `The attachment is ${media.state}, not stored: there is nothing to open`);
    const signedAt = this.deps.clock.now();
    // Opened in the operator's browser: a safe image in place, anything else downloaded.
    const url = await this.deps.media.presignedGetUrl(media.objectKey, MEDIA_LINK_SECONDS, mediaLinkResponse(media));
    return {
      url,
      expiresAt: addMilliseconds(signedAt, MEDIA_LINK_SECONDS * 1000),
      kind: media.kind,
      ...(media.mimeType === undefined ? {} : { mimeType: media.mimeType }),
      ...(media.filename === undefined ? {} : { filename: media.filename }),
    };
  }
}

/** The message's `at` as the history stores it; anything else names no message. */
function parsedTimestamp(at: string): IsoTimestamp {
  try {
    return isoMicros(at);
  } catch {
    throw new OperatorActionError('invalid', 'at must be the message\'s "at" as the history answers it');
  }
}
