// Removing or demoting someone takes effect at their next call, whichever warm instance of the
// operator function serves it: two instances composed on one table, each with its own operators
// cache, as Lambda runs them side by side.
import type { DynamoCallEvent } from '../../../lambda/core/adapters/dynamodb/dynamo-kit';
import type { FunctionUrlServer } from '../../../local/runtime/function-url-server';
import { createTestTable, tableRepositories, type TestTable } from '../../support/dynamo-table';
import { newOperatorPhone } from '../../support/ids';
import { ConsoleClient } from '../../support/operator-console-client';
import { loginToken, operatorSettings, sameSessionOn, signedInConsole, startOperatorInstance } from '../../support/operator-instances';

let table: TestTable;
let repositories: ReturnType<typeof tableRepositories>;
let one: FunctionUrlServer;
let two: FunctionUrlServer;
const calls: DynamoCallEvent[] = [];
const root = newOperatorPhone();

beforeAll(async () => {
  table = await createTestTable('revocation');
  repositories = tableRepositories(table.name);
  const settings = operatorSettings(table.name, [root]);
  [one, two] = await Promise.all([startOperatorInstance(settings), startOperatorInstance(settings, { kitObserver: { onRemoteCall: (event) => calls.push(event) } })]);
});
afterAll(async () => {
  await Promise.all([one.close(), two.close()]);
  await table.drop();
});

type Entries = Record<string, { role: 'operator' | 'admin'; name?: string }>;

/** The deploy-time admin writes the `operators` setting through instance one. */
async function setOperators(entries: Entries): Promise<void> {
  const admin = await signedInConsole(one, repositories, root);
  const current = await admin.call('GET', '/api/admin/config/operators');
  const saved = await admin.call('PUT', '/api/admin/config/operators', { value: entries, expectedVersion: current.body.config.version });
  expect(saved.status).toBe(200);
}

async function operatorsVersion(): Promise<number> {
  return (await repositories.config.get('operators'))!.version;
}

/** `phone` signed in through instance one, and the same session's calls through instance two, which has cached the list with her in it. */
async function signedInOnBoth(phone: string): Promise<{ onOne: ConsoleClient; onTwo: ConsoleClient }> {
  const onOne = await signedInConsole(one, repositories, phone);
  const onTwo = sameSessionOn(two, onOne);
  expect((await onTwo.call('GET', '/api/session')).status).toBe(200);
  return { onOne, onTwo };
}

it('ends a removed admin’s sessions and links at once: the other instance refuses her next admin and operator call, and she cannot re-add herself', async () => {
  const ana = newOperatorPhone();
  const carla = newOperatorPhone();
  await setOperators({ [ana]: { role: 'admin', name: 'Ana' }, [carla]: { role: 'operator' } });
  const { onTwo: anaOnTwo } = await signedInOnBoth(ana);
  expect((await anaOnTwo.call('GET', '/api/admin/audit')).status).toBe(200);
  const unusedLink = await loginToken(repositories, ana);

  await setOperators({ [carla]: { role: 'operator' } });

  expect((await anaOnTwo.call('GET', '/api/admin/audit')).status).toBe(401);
  expect((await anaOnTwo.call('PUT', '/api/admin/prompts/system', { content: 'Ignore the business.', expectedVersion: 0 })).status).toBe(401);
  expect((await anaOnTwo.call('GET', '/api/conversations')).status).toBe(401);
  const readd = await anaOnTwo.call('PUT', '/api/admin/config/operators', { value: { [ana]: { role: 'admin' }, [carla]: { role: 'operator' } }, expectedVersion: await operatorsVersion() });
  expect(readd.status).toBe(401);
  expect((await new ConsoleClient(two.url.replace(/\/$/, '')).signIn(unusedLink)).status).toBe(401);

  expect(Object.keys((await repositories.config.get('operators'))!.value as object)).toEqual([carla]);
  expect(await repositories.resources.getCurrent('prompt', 'system')).toBeUndefined();
  const ended = (await repositories.audit.listRecent({ limit: 100 })).items.filter((event) => event.action === 'operator.access_ended');
  expect(ended).toEqual([expect.objectContaining({ author: root, resourceType: 'operator', resourceId: ana, details: { sessions: 1, loginGrants: 1 } })]);
});

it('checks every admin call against the current configuration, not the instance’s cache, even when a session outlived the removal', async () => {
  const bruno = newOperatorPhone();
  await setOperators({ [bruno]: { role: 'admin' } });
  const { onTwo: brunoOnTwo } = await signedInOnBoth(bruno);
  // Written straight to the table, as if his sessions were never ended: the list alone must refuse him.
  await repositories.config.set({ key: 'operators', value: {}, author: root });

  expect((await brunoOnTwo.call('PUT', '/api/admin/config/operators', { value: { [bruno]: { role: 'admin' } }, expectedVersion: await operatorsVersion() })).status).toBe(401);
  expect((await brunoOnTwo.call('GET', '/api/session')).status).toBe(401);
  expect((await repositories.config.get('operators'))!.value).toEqual({});
});

it('keeps a demoted admin’s operator access and refuses her admin calls at once', async () => {
  const dora = newOperatorPhone();
  await setOperators({ [dora]: { role: 'admin', name: 'Dora' } });
  const { onTwo: doraOnTwo } = await signedInOnBoth(dora);
  expect((await doraOnTwo.call('GET', '/api/admin/audit')).status).toBe(200);

  await setOperators({ [dora]: { role: 'operator', name: 'Dora' } });

  const refused = await doraOnTwo.call('GET', '/api/admin/audit');
  expect(refused.status).toBe(403);
  expect(refused.body).toMatchObject({ error: 'admin_only' });
  expect((await doraOnTwo.call('PUT', '/api/admin/config/operators', { value: { [dora]: { role: 'admin' } }, expectedVersion: await operatorsVersion() })).status).toBe(403);
  expect((await doraOnTwo.call('GET', '/api/conversations')).status).toBe(200);
  expect((await doraOnTwo.call('GET', '/api/session')).body).toMatchObject({ operator: { phone: dora }, role: 'operator' });
  expect((await repositories.config.get('operators'))!.value).toMatchObject({ [dora]: { role: 'operator' } });
});

it('refuses a removed person’s sign-in on an instance whose cache still names her, and leaves no session behind', async () => {
  const eva = newOperatorPhone();
  await setOperators({ [eva]: { role: 'operator' } });
  await signedInOnBoth(eva);
  await setOperators({});
  // A link issued by an instance that had not seen the removal yet.
  const stale = await loginToken(repositories, eva);
  expect((await new ConsoleClient(two.url.replace(/\/$/, '')).signIn(stale)).status).toBe(401);
  expect(await repositories.operatorAuth.revokeAll(eva, new Date())).toEqual({ sessions: 0, loginGrants: 0 });
});

it('ends the access of an admin a new deployment no longer names, at her next call', async () => {
  const fabio = newOperatorPhone();
  const gil = newOperatorPhone();
  const before = operatorSettings(table.name, [root, fabio, gil]);
  const oldDeployment = await startOperatorInstance(before);
  const fabioOld = await signedInConsole(oldDeployment, repositories, fabio);
  const gilOld = await signedInConsole(oldDeployment, repositories, gil);
  await oldDeployment.close();
  // Gil stays an operator in the list; Fabio is in neither.
  await repositories.config.set({ key: 'operators', value: { [gil]: { role: 'operator' } }, author: root });

  const newDeployment = await startOperatorInstance(operatorSettings(table.name, [root]));
  try {
    expect((await sameSessionOn(newDeployment, fabioOld).call('GET', '/api/conversations')).status).toBe(401);
    expect(await repositories.operatorAuth.revokeAll(fabio, new Date())).toEqual({ sessions: 0, loginGrants: 0 });
    const gilNew = sameSessionOn(newDeployment, gilOld);
    expect((await gilNew.call('GET', '/api/admin/audit')).status).toBe(403);
    expect((await gilNew.call('GET', '/api/conversations')).status).toBe(200);
  } finally {
    await newDeployment.close();
  }
});

it('costs an admin call one consistent read of the operators list; an operator call none', async () => {
  const hugo = newOperatorPhone();
  const iris = newOperatorPhone();
  await setOperators({ [hugo]: { role: 'admin' }, [iris]: { role: 'operator' } });
  const { onTwo: hugoOnTwo } = await signedInOnBoth(hugo);
  const { onTwo: irisOnTwo } = await signedInOnBoth(iris);
  const readsOf = async (client: ConsoleClient, path: string) => {
    calls.length = 0;
    expect((await client.call('GET', path)).status).toBe(200);
    return calls.filter((call) => call.operation === 'get').length;
  };
  // The same call: the session and the inbox version (its ETag) for both, and for the admin the list too.
  expect(await readsOf(hugoOnTwo, '/api/conversations')).toBe(3);
  expect(await readsOf(irisOnTwo, '/api/conversations')).toBe(2);
  expect(await readsOf(hugoOnTwo, '/api/admin/audit')).toBe(2);
});
