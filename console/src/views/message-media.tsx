import type { HistoryEntry, HistoryMedia } from '../../../lib/contract/operator-api';
import { useConsole } from '../context';
import { useRemote } from './common';

/**
 * A message's attachment where the message is read: a stored image inline, audio and video in a
 * player, a document as a download, each through a short-lived link asked for when the message is
 * shown; one that is not stored says why. A voice note's transcript is shown under its player.
 */
export function MessageMedia({ customerId, message, media }: { readonly customerId: string; readonly message: HistoryEntry; readonly media: HistoryMedia }) {
  const { t } = useConsole();
  return (
    <div class="message-media">
      {media.state === 'stored' ? <StoredAttachment customerId={customerId} message={message} media={media} /> : <p class="message-media-note">{t(`media.${media.state}`)}</p>}
      {media.transcript !== undefined && <p class="message-media-transcript">{t('media.transcript', { text: media.transcript })}</p>}
    </div>
  );
}

function StoredAttachment({ customerId, message, media }: { readonly customerId: string; readonly message: HistoryEntry; readonly media: HistoryMedia }) {
  const { t, api } = useConsole();
  const { data: link, error } = useRemote(() => api.mediaLink(customerId, message), [customerId, message.messageId]);
  if (error !== undefined) return <p class="message-media-note" role="alert">{t('media.loadFailed')}</p>;
  if (link === undefined) return null;
  const label = media.caption ?? media.filename ?? t(media.voice ? 'media.voice' : `media.${media.kind}`);
  switch (media.kind) {
    case 'image':
    case 'sticker':
      return <img class="message-media-image" src={link.url} alt={label} />;
    case 'audio':
      return <audio controls preload="none" src={link.url} aria-label={label} />;
    case 'video':
      return <video controls preload="none" src={link.url} aria-label={label} />;
    case 'document':
      return (
        <a href={link.url} download={media.filename ?? ''} rel="noreferrer">
          {t('media.download', { name: media.filename ?? t('media.document') })}
        </a>
      );
  }
}
