import type { VersionedResource } from '../../domain/admin';
import type { VersionedResourceRepository } from '../../ports/repositories';
import { PROMPT_RESOURCE_TYPE } from '../operator/admin-console';
import type { PromptDraftText } from './play-evaluations';

/**
 * The prompts as the turn path reads them, with one answering as a draft: what the gate plays a
 * draft on, so the draft is read where the agent reads every prompt (system-prompt.ts) rather
 * than passed around it. Only the read of that prompt's current item changes.
 */
export function withDraftPrompt(resources: VersionedResourceRepository, draft: PromptDraftText): VersionedResourceRepository {
  const getCurrent = async (resourceType: string, resourceId: string): Promise<VersionedResource | undefined> => {
    const current = await resources.getCurrent(resourceType, resourceId);
    if (resourceType !== PROMPT_RESOURCE_TYPE || resourceId !== draft.promptId) return current;
    return { resourceType, resourceId, version: current?.version ?? 0, content: draft.content, active: true, author: 'draft', createdAt: current?.createdAt ?? '1970-01-01T00:00:00.000000Z' };
  };
  return {
    listCurrent: (type, page) => resources.listCurrent(type, page),
    getCurrent,
    getVersion: (type, id, version) => resources.getVersion(type, id, version),
    listVersions: (type, id, page) => resources.listVersions(type, id, page),
    putNextVersion: (input) => resources.putNextVersion(input),
    rollback: (type, id, target, author) => resources.rollback(type, id, target, author),
  };
}
