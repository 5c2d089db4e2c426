import type { StoredMedia } from './media';

/** What is shown of an attachment outside the pipeline (the console, a consumer's agent function): never the bucket key, the provider's media id or its hash. */
export type MediaDescription = Pick<StoredMedia, 'kind' | 'state' | 'mimeType' | 'filename' | 'caption' | 'sizeBytes' | 'voice' | 'transcript'>;

export function mediaDescription({ kind, state, mimeType, filename, caption, sizeBytes, voice, transcript }: StoredMedia): MediaDescription {
  return {
    kind,
    state,
    ...(mimeType === undefined ? {} : { mimeType }),
    ...(filename === undefined ? {} : { filename }),
    ...(caption === undefined ? {} : { caption }),
    ...(sizeBytes === undefined ? {} : { sizeBytes }),
    ...(voice === undefined ? {} : { voice }),
    ...(transcript === undefined ? {} : { transcript }),
  };
}

/**
 * What the agent is told in text about an attachment, next to the message's own text (`[image]`,
 * the caption, the file name): a voice note's transcript, or — when the attachment itself is not
 * shown to the model — that it is there and why the agent cannot see it, so that it asks the
 * customer instead of answering as if it had read it. Empty when the attachment is shown.
 */
export function mediaNote(media: StoredMedia, shown: boolean): string {
  if (media.transcript !== undefined) return `[Transcript of the voice note: ${JSON.stringify(media.transcript)}]`;
  if (shown) return '';
  return `[${whyNotShown(media)} You cannot see or hear it: ask the customer about it if you need its content.]`;
}

function whyNotShown(media: StoredMedia): string {
  const what = media.voice ? 'voice note' : media.kind;
  switch (media.state) {
    case 'pending':
      return `The customer's ${what} is still being downloaded.`;
    case 'failed':
      return `The customer's ${what} could not be downloaded.`;
    case 'refused':
      return media.refusal === 'too_large'
        ? `The customer's ${what} was not kept: it is larger than the pipeline accepts.`
        : media.refusal === 'type_not_allowed'
          ? `The customer's ${what} was not kept: its type (${media.mimeType ?? 'unknown'}) is not accepted.`
          : `The customer's ${what} could not be downloaded.`;
    case 'stored':
      return `The customer sent ${/^[aeiou]/.test(what) ? 'an' : 'a'} ${what}${media.mimeType === undefined ? '' : ` (${media.mimeType}${media.sizeBytes === undefined ? '' : `, ${media.sizeBytes} bytes`})`}.`;
  }
}

/**
 * The message's text, then the attachment's note (if any) on its own line. Blank text reads as
 * none; a shown attachment without text or note is named (`[image]`): a model reads an image or a
 * document beside text, never alone.
 */
export function withMediaNote(text: string, media: StoredMedia | undefined, shown: boolean): string {
  if (media === undefined) return text.trim() === '' ? '' : text;
  const note = mediaNote(media, shown);
  if (text.trim() === '') return note === '' ? `[${media.kind}]` : note;
  return note === '' ? text : `${text}\n${note}`;
}
