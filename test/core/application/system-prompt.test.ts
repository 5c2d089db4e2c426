// The system prompt set in the construct versus the one admins edit in the console: a deployment
// that changes the prompt adds a version; one that does not never overwrites a console edit.
import { createDynamoRepositories, type DynamoRepositories } from '../../../lambda/core/adapters/dynamodb/dynamo-repositories';
import { DEPLOYED_PROMPT_MARKER, DEPLOYMENT_AUTHOR, SystemPromptSource } from '../../../lambda/core/application/system-prompt';
import { DEFAULT_TURN_SETTINGS } from '../../../lambda/core/application/turn-settings';
import { DEFAULT_SYSTEM_PROMPT } from '../../../lib/contract';
import { ManualClock, SequentialIds } from '../../support/manual-clock';
import { createTestTable, type TestTable } from '../../support/dynamo-table';

const { type, id } = DEFAULT_TURN_SETTINGS.promptResource;
const clock = new ManualClock();
let table: TestTable;
let repos: DynamoRepositories;

beforeEach(async () => {
  table = await createTestTable('prompt');
  repos = createDynamoRepositories({ tableName: table.name, clock, ids: new SequentialIds() });
});
afterEach(() => table.drop());

/** A fresh orchestrator process (cold start) of a deployment carrying `deployed`. */
function coldStart(deployed?: string): SystemPromptSource {
  return new SystemPromptSource(repos.resources, clock, DEFAULT_TURN_SETTINGS, deployed === undefined ? undefined : { text: deployed, config: repos.config });
}

async function history(): Promise<Array<[number, string, string]>> {
  const { items } = await repos.resources.listVersions(type, id);
  return items.map((version) => [version.version, version.author, version.content]);
}

it('without a deployed prompt or a resource, the neutral default is used and nothing is written', async () => {
  expect(await coldStart().current()).toBe(DEFAULT_SYSTEM_PROMPT);
  expect(DEFAULT_SYSTEM_PROMPT).not.toMatch(/genetic|laborat/i);
  expect(await history()).toEqual([]);
  expect(await repos.config.get(DEPLOYED_PROMPT_MARKER)).toBeUndefined();
});

it('the first deployment’s prompt becomes version 1; later cold starts of the same deployment add nothing', async () => {
  expect(await coldStart('Prompt A').current()).toBe('Prompt A');
  expect(await coldStart('Prompt A').current()).toBe('Prompt A');
  expect(await history()).toEqual([[1, DEPLOYMENT_AUTHOR, 'Prompt A']]);
});

it('an admin edit stays current through deployments that leave the prompt unchanged; a changed prompt adds a version and wins', async () => {
  await coldStart('Prompt A').current();
  await repos.resources.putNextVersion({ resourceType: type, resourceId: id, content: 'Edited by admin', author: 'admin@example.com', expectedVersion: 1 });

  expect(await coldStart('Prompt A').current()).toBe('Edited by admin');
  expect(await coldStart('Prompt B').current()).toBe('Prompt B');
  expect(await history()).toEqual([
    [3, DEPLOYMENT_AUTHOR, 'Prompt B'],
    [2, 'admin@example.com', 'Edited by admin'],
    [1, DEPLOYMENT_AUTHOR, 'Prompt A'],
  ]);
});

it('a prompt written by an admin before the first deployment with one is kept as history, not lost', async () => {
  await repos.resources.putNextVersion({ resourceType: type, resourceId: id, content: 'Console prompt', author: 'admin@example.com' });
  expect(await coldStart('Prompt A').current()).toBe('Prompt A');
  expect((await history()).map(([version, , content]) => [version, content])).toEqual([
    [2, 'Prompt A'],
    [1, 'Console prompt'],
  ]);
});

it('many cold starts of a new deployment at once add exactly one version', async () => {
  await coldStart('Prompt A').current();
  const prompts = await Promise.all(Array.from({ length: 6 }, () => coldStart('Prompt B').current()));
  expect(new Set(prompts)).toEqual(new Set(['Prompt B']));
  expect((await history()).map(([version, , content]) => [version, content])).toEqual([
    [2, 'Prompt B'],
    [1, 'Prompt A'],
  ]);
});
