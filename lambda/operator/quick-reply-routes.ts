import type { QuickReplies } from '../core/application/operator/quick-replies';
import { MAX_QUICK_REPLY_TEXT_CHARS, MAX_QUICK_REPLY_TITLE_CHARS } from '../core/domain/quick-reply';
import { ok, route, type Route, signedInOf } from './router';

/** Quick replies: every operator lists them (to insert one), an admin writes and removes them. */
export function quickReplyRoutes(quickReplies: QuickReplies): Route[] {
  return [
    route('GET quick-replies', 'operator', async () => ok({ items: await quickReplies.list() })),
    route('PUT admin/quick-replies/:id', 'admin', async (context) => {
      const edit = context.body({ title: { type: 'string', required: true, maxLength: MAX_QUICK_REPLY_TITLE_CHARS }, text: { type: 'string', required: true, maxLength: MAX_QUICK_REPLY_TEXT_CHARS } });
      return ok({ quickReply: await quickReplies.save(signedInOf(context).operator, context.params.id, edit) });
    }),
    route('DELETE admin/quick-replies/:id', 'admin', async (context) => {
      await quickReplies.remove(signedInOf(context).operator, context.params.id);
      return ok({ removed: true as const });
    }),
  ];
}
