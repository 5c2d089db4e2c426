// No function role can make a console session (or a login link) that outlives its day. The roles
// the template lets write sign-in items (OPERATOR#AUTH) are found by the permission evaluator; each
// writes forged items through the enforcing proxy, signed as itself, and the operator function —
// reading as its own role — refuses every one that claims more than the lifetime it would give.
import { DynamoKit } from '../../../lambda/core/adapters/dynamodb/dynamo-kit';
import { loginGrantToItem, operatorSessionToItem } from '../../../lambda/core/adapters/dynamodb/codecs/operator-auth-codec';
import { DynamoOperatorAuthRepository } from '../../../lambda/core/adapters/dynamodb/operator-auth-repository';
import { hashToken } from '../../../lambda/core/domain/operator-auth';
import { PIPELINE_PRINCIPALS, type PipelinePrincipal } from '../../../local/runtime/function-principals';
import { createTestTable, type TestTable } from '../../support/dynamo-table';
import { ManualClock } from '../../support/manual-clock';
import { deploymentPermissions, type DeploymentPermissions } from '../../support/permissions/deployment-permissions';
import { principalClients, type PrincipalClients } from '../../support/permissions/function-principals';
import { PermissionEvaluator } from '../../support/permissions/permission-evaluator';
import { synthesizeDeployment } from '../../support/permissions/synthesize-deployment';

/** Every role exists in this variant but the End User Messaging inbound function's, checked on its own channel. */
const VARIANT = { channel: 'cloud-api', operatorPlane: true, crmSync: 'webhook' } as const;
const END_USER_MESSAGING = { channel: 'end-user-messaging', operatorPlane: true, crmSync: 'off' } as const;
/** The roles that may write OPERATOR#AUTH today (the first test keeps this list true). */
const WRITERS = ['orchestrator', 'operator'] as const satisfies readonly PipelinePrincipal[];

const clock = new ManualClock();
let table: TestTable;
let operatorClients: PrincipalClients;
let auth: DynamoOperatorAuthRepository;
let tokens = 0;
const newTokenHash = () => hashToken(`forged-${++tokens}-${Math.random()}`);

beforeAll(async () => {
  table = await createTestTable('session-lifetime');
  operatorClients = principalClients('operator', VARIANT);
  auth = new DynamoOperatorAuthRepository(new DynamoKit({ tableName: table.name, client: operatorClients.documentClient }), clock);
});
afterAll(async () => {
  operatorClients.destroy();
  await table.drop();
});
beforeEach(() => clock.set('2026-03-10T15:00:00.000Z')); // 12:00 in São Paulo: the session ends at 03:00Z

test('the roles that may write sign-in items are exactly the orchestrator and the operator function', async () => {
  const deployments: [typeof VARIANT | typeof END_USER_MESSAGING, DeploymentPermissions][] = [
    [VARIANT, deploymentPermissions(synthesizeDeployment(VARIANT))],
    [END_USER_MESSAGING, deploymentPermissions(synthesizeDeployment(END_USER_MESSAGING))],
  ];
  const writers = new Set<string>();
  for (const [variant, deployment] of deployments) {
    const evaluator = new PermissionEvaluator(async () => deployment);
    for (const principal of PIPELINE_PRINCIPALS.filter((name) => deployment.roles.has(name))) {
      for (const operation of ['PutItem', 'UpdateItem']) {
        const body = operation === 'PutItem' ? { Item: { PK: { S: 'OPERATOR#AUTH' }, SK: { S: 'SESSION#x' } } } : { Key: { PK: { S: 'OPERATOR#AUTH' }, SK: { S: 'SESSION#x' } } };
        if ((await evaluator.check({ identity: { principal, variant }, service: 'dynamodb', operation, body })) === undefined) writers.add(principal);
      }
    }
  }
  expect([...writers].sort()).toEqual([...WRITERS].sort());
}, 180_000);

describe.each(WRITERS)('sign-in items the %s role writes itself', (principal) => {
  let writer: PrincipalClients;
  let kit: DynamoKit;
  beforeAll(() => {
    writer = principalClients(principal, VARIANT);
    kit = new DynamoKit({ tableName: table.name, client: writer.documentClient });
  });
  afterAll(() => writer.destroy());

  const forgeSession = async (createdAt: string, expiresAt: string) => {
    const tokenHash = newTokenHash();
    await kit.put({ item: operatorSessionToItem({ tokenHash, operatorPhone: '5511999990000', csrfToken: 'csrf', createdAt, expiresAt }) });
    return tokenHash;
  };

  test('a session that claims to outlive its day is refused, whatever it says of when it was made; one within its day is taken', async () => {
    const now = clock.now();
    const refused = [
      await forgeSession('2026-03-10T14:00:00.000000Z', '2099-12-31T23:59:59.000000Z'),
      // Dated in the future so that its "day" would reach 2099.
      await forgeSession('2099-12-31T12:00:00.000000Z', '2100-01-01T02:00:00.000000Z'),
      // Made yesterday, ending an hour after today's midnight.
      await forgeSession('2026-03-09T14:00:00.000000Z', '2026-03-11T04:00:00.000000Z'),
    ];
    for (const tokenHash of refused) expect(await auth.getSession(tokenHash, now)).toBeUndefined();
    const withinItsDay = await forgeSession('2026-03-10T14:00:00.000000Z', '2026-03-11T03:00:00.000000Z');
    expect(await auth.getSession(withinItsDay, now)).toMatchObject({ expiresAt: '2026-03-11T03:00:00.000000Z' });
  });

  test('a login link that claims to last for years is used up and refused: no session comes of it', async () => {
    const tokenHash = newTokenHash();
    await kit.put({ item: loginGrantToItem({ tokenHash, operatorPhone: '5511999990000', createdAt: '2026-03-10T14:59:00.000000Z', expiresAt: '2099-12-31T23:59:59.000000Z' }) });
    expect(await auth.consumeLoginGrant(tokenHash, clock.now())).toBeUndefined();
    expect(await auth.consumeLoginGrant(tokenHash, clock.now())).toBeUndefined();
  });
});
