import { createHash } from 'node:crypto';
import { VersionConflictError, type OperationalConfigRepository, type VersionedResourceRepository } from '../ports/repositories';
import type { Clock } from '../ports/clock';
import type { TurnSettings } from './turn-settings';

/** Operational-config key holding the hash of the system prompt the last deployment carried. */
export const DEPLOYED_PROMPT_MARKER = 'deployed_prompt_hash';
/** Author of the prompt versions a deployment writes, as the console's history shows it. */
export const DEPLOYMENT_AUTHOR = 'deployment';

/** The prompt set in the construct, and where the marker of the last adopted one is kept. */
export interface DeployedPrompt {
  readonly text: string;
  readonly config: OperationalConfigRepository;
  /** The operational-config key of the marker. Default {@link DEPLOYED_PROMPT_MARKER}; a stage's is {@link stagePromptMarker}. */
  readonly marker?: string;
}

/** The prompt resource id of a stage of `AgentBackend.stages()`: `system.<stage>`, beside the single agent's `system`. */
export function stagePromptId(stage: string): string {
  return `system.${stage}`;
}

/** The deployment marker of a stage's prompt. */
export function stagePromptMarker(stage: string): string {
  return `${DEPLOYED_PROMPT_MARKER}.${stage}`;
}

/**
 * The agent's system prompt: the active admin prompt resource, or the default. Cached per process
 * for `promptCacheMs`, so an edited prompt reaches every warm instance within that time.
 *
 * A prompt set in the construct is adopted once per deployment that CHANGES it (docs/DESIGN.md,
 * "The system prompt"): the first turn after such a deployment compares the prompt's hash with the
 * `deployed_prompt_hash` marker; only when they differ does it write the prompt as the resource's
 * next version (compare-and-set on the current version) and move the marker. So a deployment that
 * changes the prompt wins over earlier console edits (the code review is the later decision), and
 * a console edit made after it stays current through every deployment that leaves the prompt as is.
 */
export class SystemPromptSource {
  private cached?: { readonly text: string; readonly expiresAt: number };
  private adoption?: Promise<void>;

  constructor(
    private readonly resources: VersionedResourceRepository,
    private readonly clock: Clock,
    private readonly settings: Pick<TurnSettings, 'promptResource' | 'defaultSystemPrompt' | 'promptCacheMs'>,
    private readonly deployed?: DeployedPrompt,
  ) {}

  async current(): Promise<string> {
    await this.adoptDeployedPrompt();
    const now = this.clock.now().getTime();
    if (this.cached === undefined || now >= this.cached.expiresAt) {
      const { type, id } = this.settings.promptResource;
      const resource = await this.resources.getCurrent(type, id);
      this.cached = { text: resource?.active ? resource.content : this.settings.defaultSystemPrompt, expiresAt: now + this.settings.promptCacheMs };
    }
    return this.cached.text;
  }

  /** Once per process; a failure (table unavailable) fails this turn and is tried again by the next. */
  private adoptDeployedPrompt(): Promise<void> {
    if (this.deployed === undefined) return Promise.resolve();
    this.adoption ??= this.adopt(this.deployed).catch((error: unknown) => {
      this.adoption = undefined;
      throw error;
    });
    return this.adoption;
  }

  private async adopt({ text, config, marker: markerKey = DEPLOYED_PROMPT_MARKER }: DeployedPrompt): Promise<void> {
    const hash = createHash('sha256').update(text, 'utf8').digest('hex');
    const marker = await config.get(markerKey);
    if (marker?.value === hash) return;
    const { type, id } = this.settings.promptResource;
    const current = await this.resources.getCurrent(type, id);
    // Already current (e.g. an instance stopped between the two writes): no duplicate version.
    if (!(current?.active && current.content === text)) {
      await ignoringConflict(() =>
        this.resources.putNextVersion({
          resourceType: type,
          resourceId: id,
          content: text,
          description: 'System prompt of the deployment',
          author: DEPLOYMENT_AUTHOR,
          active: true,
          expectedVersion: current?.version ?? 0,
        }),
      );
    }
    // A conflict on either write means another instance adopted the same deployment just now (or an
    // admin saved in that instant, whose edit then stands): the deployment counts as adopted.
    await ignoringConflict(() => config.set({ key: markerKey, value: hash, author: DEPLOYMENT_AUTHOR }, { expectedVersion: marker?.version ?? 0 }));
    this.cached = undefined;
  }
}

async function ignoringConflict(write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (error) {
    if (!(error instanceof VersionConflictError)) throw error;
  }
}
