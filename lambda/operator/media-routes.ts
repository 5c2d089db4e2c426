import type { OperatorMedia } from '../core/application/operator/operator-media';
import { HttpError } from './http-kit';
import { ok, route, type Route, signedInOf } from './router';

/** The attachments of a conversation (docs/OPERATOR-API.md#attachments). */
export function mediaRoutes(media: OperatorMedia): Route[] {
  return [
    route('GET conversations/:customerId/messages/:messageId/media', 'operator', async (context) => {
      const at = context.event.queryStringParameters?.at;
      if (at === undefined || at === '' || at.length > 64) throw new HttpError('bad_query', 'at must be the message\'s "at" as the history answers it');
      return ok(await media.link(signedInOf(context).operator, context.params.customerId, context.params.messageId, at));
    }),
  ];
}
