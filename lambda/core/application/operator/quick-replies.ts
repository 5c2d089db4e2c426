import { MAX_QUICK_REPLIES, QUICK_REPLIES_CONFIG_KEY, type QuickReply, quickRepliesFrom, quickReplyProblem } from '../../domain/quick-reply';
import type { Operator } from '../../domain/operator';
import { isoMicros } from '../../domain/timestamps';
import type { Clock } from '../../ports/clock';
import type { OperationalConfigRepository } from '../../ports/repositories';
import type { OperatorAuditTrail } from './operator-audit';
import { conflictIfRaced, OperatorActionError } from './operator-errors';

export interface QuickRepliesDependencies {
  readonly config: Pick<OperationalConfigRepository, 'get' | 'set'>;
  readonly audit: OperatorAuditTrail;
  readonly clock: Clock;
}

/**
 * The quick replies admins prepare and operators insert. One setting holds them all (a few hundred
 * short texts at most): every operator reads them with one GetItem, and each admin edit is a
 * compare-and-set on the version it read, so two admins editing at once never lose an edit (the
 * later one is refused with `conflict` and reloads).
 */
export class QuickReplies {
  constructor(private readonly deps: QuickRepliesDependencies) {}

  async list(): Promise<QuickReply[]> {
    return quickRepliesFrom((await this.deps.config.get(QUICK_REPLIES_CONFIG_KEY))?.value);
  }

  /** Creates or replaces the quick reply `id`. */
  async save(admin: Operator, id: string, edit: { readonly title: string; readonly text: string }): Promise<QuickReply> {
    const title = edit.title.trim();
    const text = edit.text.trim();
    const problem = quickReplyProblem(id, title, text);
    if (problem !== undefined) throw new OperatorActionError('invalid', problem);
    const saved = await this.edit(admin, 'quick_reply.save', id, (entries) => {
      if (!Object.hasOwn(entries, id) && Object.keys(entries).length >= MAX_QUICK_REPLIES) throw new OperatorActionError('invalid', `There may be at most ${MAX_QUICK_REPLIES} quick replies; remove one first`);
      return { ...entries, [id]: { title, text, updated_by: admin.phone, updated_at: isoMicros(this.deps.clock.now()) } };
    });
    return saved.find((reply) => reply.id === id)!;
  }

  async remove(admin: Operator, id: string): Promise<void> {
    await this.edit(admin, 'quick_reply.remove', id, (entries) => {
      if (!Object.hasOwn(entries, id)) throw new OperatorActionError('not_found', `No quick reply '${id}'`);
      const { [id]: _removed, ...rest } = entries;
      return rest;
    });
  }

  private async edit(admin: Operator, action: 'quick_reply.save' | 'quick_reply.remove', id: string, change: (entries: Readonly<Record<string, unknown>>) => Record<string, unknown>): Promise<QuickReply[]> {
    const current = await this.deps.config.get(QUICK_REPLIES_CONFIG_KEY);
    const entries = current?.value !== null && typeof current?.value === 'object' && !Array.isArray(current.value) ? (current.value as Record<string, unknown>) : {};
    const next = change(entries);
    await conflictIfRaced(this.deps.config.set({ key: QUICK_REPLIES_CONFIG_KEY, value: next, author: admin.phone }, { expectedVersion: current?.version ?? 0 }), 'Another admin changed the quick replies meanwhile: reload them');
    await this.deps.audit.record({ author: admin.phone, action, resourceType: 'quick_reply', resourceId: id });
    return quickRepliesFrom(next);
  }
}
