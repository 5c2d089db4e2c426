import type { VersionedResource } from '../../domain/admin';
import type { Operator } from '../../domain/operator';
import { MAX_SUITE_SCENARIOS, SCENARIO_ID, SCENARIO_RESOURCE_TYPE } from '../../domain/evaluation/prompt-gate';
import type { Scenario } from '../../domain/evaluation/scenario';
import { ScenarioFormatError, type ScenarioParser } from '../../ports/evaluation';
import type { VersionedResourceRepository } from '../../ports/repositories';
import type { OperatorAuditTrail } from '../operator/operator-audit';
import { conflictIfRaced, OperatorActionError } from '../operator/operator-errors';

/** A suite holds far fewer; one page reads it whole. */
const SUITE_PAGE = { limit: 500 } as const;

export interface StoredScenario {
  readonly id: string;
  readonly version: number;
  readonly scenario: Scenario;
  readonly author: string;
  readonly updatedAt: string;
}

export interface ScenarioSuiteDependencies {
  readonly resources: VersionedResourceRepository;
  readonly trail: Pick<OperatorAuditTrail, 'record'>;
  /** The scenario format's checker (`parseScenarios` of scenario-format.ts), which the composition may load at its first call. */
  readonly parseScenarios: ScenarioParser;
}

/**
 * The deployment's scenario suite, which admins manage in the console and every evaluation run
 * plays: one versioned admin resource per scenario, its content the scenario's file text, checked
 * against the format on every save. A removed scenario keeps its history as an inactive version.
 */
export class ScenarioSuite {
  constructor(private readonly deps: ScenarioSuiteDependencies) {}

  list(): Promise<StoredScenario[]> {
    return suiteScenarios(this.deps.resources);
  }

  async size(): Promise<number> {
    return (await this.list()).length;
  }

  async save(admin: Operator, id: string, scenario: unknown, expectedVersion: number): Promise<StoredScenario> {
    if (!SCENARIO_ID.test(id)) throw new OperatorActionError('invalid', `A scenario id is 1 to 64 lower-case letters, digits and '-', starting with a letter or digit; got '${id}'`);
    if (typeof scenario !== 'object' || scenario === null || Array.isArray(scenario)) throw new OperatorActionError('invalid', 'Field "scenario" must be a scenario object in the file format (docs/EVALUATION.md)');
    const text = JSON.stringify(scenario, null, 2);
    const parsed = this.parse(id, text);
    const suite = await this.list();
    const sameName = suite.find((stored) => stored.id !== id && stored.scenario.name === parsed.name);
    if (sameName) throw new OperatorActionError('invalid', `Scenario '${id}': name '${parsed.name}' is already the name of scenario '${sameName.id}'`);
    if (expectedVersion === 0 && suite.length >= MAX_SUITE_SCENARIOS) throw new OperatorActionError('invalid', `The suite holds ${MAX_SUITE_SCENARIOS} scenarios, its most: remove one first`);
    const written = await this.write({ resourceType: SCENARIO_RESOURCE_TYPE, resourceId: id, content: text, author: admin.phone, active: true, expectedVersion });
    await this.deps.trail.record({ author: admin.phone, action: 'scenario.save', resourceType: SCENARIO_RESOURCE_TYPE, resourceId: id, details: { version: written.version } });
    return storedScenarioOf(written);
  }

  async remove(admin: Operator, id: string): Promise<void> {
    const current = await this.deps.resources.getCurrent(SCENARIO_RESOURCE_TYPE, id);
    if (!current?.active) throw new OperatorActionError('not_found', `No scenario '${id}' in the suite`);
    const written = await this.write({ resourceType: SCENARIO_RESOURCE_TYPE, resourceId: id, content: current.content, author: admin.phone, active: false, expectedVersion: current.version });
    await this.deps.trail.record({ author: admin.phone, action: 'scenario.remove', resourceType: SCENARIO_RESOURCE_TYPE, resourceId: id, details: { version: written.version } });
  }

  private parse(id: string, text: string): Scenario {
    try {
      return this.deps.parseScenarios([{ file: id, text }])[0];
    } catch (error) {
      if (error instanceof ScenarioFormatError) throw new OperatorActionError('invalid', error.message);
      throw error;
    }
  }

  private write(input: Parameters<VersionedResourceRepository['putNextVersion']>[0]): Promise<VersionedResource> {
    return conflictIfRaced(this.deps.resources.putNextVersion(input), `Scenario '${input.resourceId}' changed meanwhile: reload the suite and apply your edit again`);
  }
}

/** The suite's scenarios in id order; checked when saved, and again by the evaluator before it plays them. */
export async function suiteScenarios(resources: Pick<VersionedResourceRepository, 'listCurrent'>): Promise<StoredScenario[]> {
  const page = await resources.listCurrent(SCENARIO_RESOURCE_TYPE, SUITE_PAGE);
  return page.items.filter((resource) => resource.active).map(storedScenarioOf);
}

function storedScenarioOf(resource: VersionedResource): StoredScenario {
  return { id: resource.resourceId, version: resource.version, scenario: JSON.parse(resource.content) as Scenario, author: resource.author, updatedAt: resource.createdAt };
}
