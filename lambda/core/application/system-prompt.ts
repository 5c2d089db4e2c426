import type { Clock } from '../ports/clock';
import type { VersionedResourceRepository } from '../ports/repositories';
import type { TurnSettings } from './turn-settings';

/**
 * The agent's system prompt: the active admin prompt resource, or the default. Cached per process
 * for `promptCacheMs`, so an edited prompt reaches every warm instance within that time.
 */
export class SystemPromptSource {
  private cached?: { readonly text: string; readonly expiresAt: number };

  constructor(
    private readonly resources: VersionedResourceRepository,
    private readonly clock: Clock,
    private readonly settings: Pick<TurnSettings, 'promptResource' | 'defaultSystemPrompt' | 'promptCacheMs'>,
  ) {}

  async current(): Promise<string> {
    const now = this.clock.now().getTime();
    if (this.cached === undefined || now >= this.cached.expiresAt) {
      const { type, id } = this.settings.promptResource;
      const resource = await this.resources.getCurrent(type, id);
      this.cached = { text: resource?.active ? resource.content : this.settings.defaultSystemPrompt, expiresAt: now + this.settings.promptCacheMs };
    }
    return this.cached.text;
  }
}
