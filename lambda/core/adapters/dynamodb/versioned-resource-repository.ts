import type { VersionedResource } from '../../domain/admin';
import { AdminResourceVersionNotFoundError, ConditionFailedError, VersionConflictError, type NextVersionInput, type Page, type PageRequest, type VersionedResourceRepository } from '../../ports/repositories';
import { isoMicros } from '../../domain/timestamps';
import type { Clock } from '../../ports/clock';
import { AdminAttribute, currentResourceToItem, resourceFromItem, resourceVersionToItem } from './codecs/admin-codec';
import type { DynamoKit } from './dynamo-kit';
import { adminResourceKey, adminResourceListPrefix, adminResourceVersionKey, adminResourceVersionListPrefix, EntityType } from './keys';
import { IF_ABSENT, queryPrefixPage, toPage } from './repository-support';

/**
 * Administrable resources with their version history. Unlike the original design (two separate
 * puts, no compare-and-set), the new version and the current item are written in ONE transaction:
 * the version item must not exist and the current item must still be at the version the editor
 * started from, so concurrent editors get exactly one winner per version and no lost update.
 */
export class DynamoVersionedResourceRepository implements VersionedResourceRepository {
  constructor(
    private readonly kit: DynamoKit,
    private readonly clock: Clock,
  ) {}

  async listCurrent(resourceType: string, page?: PageRequest): Promise<Page<VersionedResource>> {
    return toPage(await queryPrefixPage(this.kit, adminResourceListPrefix(resourceType), page), (item) => resourceFromItem(item, EntityType.adminResource));
  }

  async getCurrent(resourceType: string, resourceId: string): Promise<VersionedResource | undefined> {
    const item = await this.kit.get({ key: adminResourceKey(resourceType, resourceId), consistentRead: true });
    return item && resourceFromItem(item, EntityType.adminResource);
  }

  async getVersion(resourceType: string, resourceId: string, version: number): Promise<VersionedResource | undefined> {
    const item = await this.kit.get({ key: adminResourceVersionKey(resourceType, resourceId, version), consistentRead: true });
    return item && resourceFromItem(item, EntityType.adminResourceVersion);
  }

  async listVersions(resourceType: string, resourceId: string, page?: PageRequest): Promise<Page<VersionedResource>> {
    const result = await queryPrefixPage(this.kit, adminResourceVersionListPrefix(resourceType, resourceId), page, { newestFirst: true });
    return toPage(result, (item) => resourceFromItem(item, EntityType.adminResourceVersion));
  }

  putNextVersion(input: NextVersionInput): Promise<VersionedResource> {
    return this.writeNextVersion(input);
  }

  async rollback(resourceType: string, resourceId: string, targetVersion: number, author: string): Promise<VersionedResource> {
    const target = await this.getVersion(resourceType, resourceId, targetVersion);
    if (!target) throw new AdminResourceVersionNotFoundError(resourceType, resourceId, targetVersion);
    return this.writeNextVersion({ resourceType, resourceId, content: target.content, description: target.description, author, active: target.active }, targetVersion);
  }

  private async writeNextVersion(input: NextVersionInput, rolledBackFrom?: number): Promise<VersionedResource> {
    // The current item is read even when the editor names its version: its unknown attributes must
    // survive the replacement, and a stale editor is refused before anything is written.
    const current = await this.getCurrent(input.resourceType, input.resourceId);
    const currentVersion = current?.version ?? 0;
    const expectedVersion = input.expectedVersion ?? currentVersion;
    if (expectedVersion !== currentVersion) throw this.conflict(input, expectedVersion);

    const next: VersionedResource = {
      ...(current?.unknownAttributes ? { unknownAttributes: current.unknownAttributes } : {}),
      resourceType: input.resourceType,
      resourceId: input.resourceId,
      version: expectedVersion + 1,
      content: input.content,
      description: input.description,
      active: input.active ?? true,
      author: input.author,
      createdAt: isoMicros(this.clock.now()),
      rolledBackFrom,
    };
    try {
      await this.kit.transact([
        { put: { item: resourceVersionToItem(next), ...IF_ABSENT } },
        {
          put:
            expectedVersion === 0
              ? { item: currentResourceToItem(next), ...IF_ABSENT }
              : { item: currentResourceToItem(next), condition: '#version = :expected', names: { '#version': AdminAttribute.version }, values: { ':expected': expectedVersion } },
        },
      ]);
      return next;
    } catch (error) {
      if (error instanceof ConditionFailedError) throw this.conflict(input, expectedVersion, error);
      throw error;
    }
  }

  private conflict(input: NextVersionInput, expectedVersion: number, cause?: ConditionFailedError): VersionConflictError {
    return new VersionConflictError(
      `${input.resourceType}/${input.resourceId} is no longer at version ${expectedVersion}: another edit won`,
      cause?.reasons ?? [],
      cause ? { cause } : undefined,
    );
  }
}
