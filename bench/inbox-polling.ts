/**
 * What an open console's inbox costs per operator-minute (a poll every 4 s: 15 a minute), measured
 * on DynamoDB Local through the operator function's handler, with 100 conversations waiting:
 *
 * - before: the console of the previous release — the 4 open states listed on every poll, and the
 *   list reading one history Query per row for its preview (played here with the same Query the
 *   previous list made, `history(customerId, {limit: 1})`, per row);
 * - after: the lists the tab shows and counts (the waiting tab: waiting and mine), each a
 *   conditional request; `idle` is a minute with no change (the first poll reads the lists, every
 *   other answers `304`: the ETag has no clock in it), `busy` a change before every poll;
 * - an admin's "all open" tab, idle: five conditional lists, two of them the agent's, whose `ETag`
 *   also compares the agent's activity (one BatchGetItem of the inbox's item and the write shards').
 *
 * Then what opening one conversation costs (its view, its first page of history, the 24-hour window,
 * the operator's unread mark).
 *
 * Prints a table; not a test.
 *
 *   npm run bench:inbox [conversations=100]
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { DynamoCallEvent } from '../lambda/core/adapters/dynamodb/dynamo-kit';
import { createDynamoRepositories } from '../lambda/core/adapters/dynamodb/dynamo-repositories';
import { DynamoInboxVersion } from '../lambda/core/adapters/dynamodb/inbox-version';
import { composeOperator } from '../lambda/composition/operator';
import { newRawToken } from '../lambda/core/application/operator/operator-sign-in';
import { hashToken } from '../lambda/core/domain/operator-auth';
import { customerMessage } from '../lambda/core/domain/message';
import { SessionState } from '../lambda/core/domain/session';
import { OPERATOR_DEFAULTS } from '../lib/contract';
import { waitingSession } from '../local/runtime/waiting-session';
import { KeyLayout } from '../lib/contract/key-layout';
import { inProcessSettings, withInProcessPipeline } from './in-process-pipeline';

process.env.POWERTOOLS_METRICS_DISABLED = 'true';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const POLLS_PER_MINUTE = 15;
const OPEN_STATES = ['AWAITING_HUMAN', 'HUMAN_ACTIVE', 'QUALIFYING', 'NEW'] as const;
const ADMIN = '5511900000001';
const customerIdOf = (index: number): string => `55119${String(10_000_000 + index)}`;

interface Tally {
  requests: number;
  dynamoRequests: number;
  readUnits: number;
}

async function main(): Promise<void> {
  const conversations = Number(process.argv[2] ?? 100);
  await withInProcessPipeline('inbox', async (pipeline) => {
    // The seed layout, which the repositories that seed the inbox write (and the figures of docs/OPERATOR-API.md were measured on).
    const settings = inProcessSettings(pipeline, { keyLayout: KeyLayout.SEED });
    const calls: DynamoCallEvent[] = [];
    const observer = { onRemoteCall: (event: DynamoCallEvent) => calls.push(event) };
    const repositories = createDynamoRepositories({ tableName: pipeline.tableName, observer });
    const operator = composeOperator(
      { ...settings, deadLetterQueueUrl: settings.turnQueueUrl, evaluatorFunctionName: 'bench-evaluator', operatorPlane: { adminPhoneNumbers: [ADMIN], timeZone: OPERATOR_DEFAULTS.timeZone } },
      { console: { serve: () => undefined }, logger: new Logger({ logLevel: 'SILENT' }), metrics: new Metrics({ namespace: 'bench' }), kitObserver: observer },
    );

    const start = Date.now() - 3_600_000;
    for (let index = 0; index < conversations; index++) {
      const customerId = customerIdOf(index);
      const session = waitingSession({ sessionId: `waiting-${index}`, customerId, at: new Date(start + index * 1000), learnedName: `Cliente ${index}` });
      await repositories.sessions.put(session);
      const at = session.createdAt;
      const turn = { customerId, customerIdKind: 'phone' as const, messageId: `wamid.${index}`, providerTimestamp: at, receivedAt: at, messageType: 'text', text: 'Quero falar com uma pessoa', businessPhoneNumberId: '100000000000002' };
      await repositories.messages.append(customerMessage(turn, session.sessionId, at));
    }

    const token = newRawToken();
    await repositories.operatorAuth.putLoginGrant(hashToken(token), ADMIN);
    const call = (path: string, query: Record<string, string>, headers: Record<string, string> = {}, body?: string, method = 'GET') =>
      operator({
        version: '2.0',
        rawPath: path,
        rawQueryString: new URLSearchParams(query).toString(),
        queryStringParameters: query,
        body,
        headers: { 'content-type': 'application/json', ...headers },
        cookies: cookie === undefined ? undefined : [cookie],
        requestContext: { http: { method, sourceIp: '127.0.0.1' } },
      } as unknown as APIGatewayProxyEventV2);
    let cookie: string | undefined;
    const signedIn = await call('/api/session', {}, {}, JSON.stringify({ token }), 'POST');
    cookie = signedIn.cookies![0].split(';')[0];

    const measure = async (polls: number, poll: () => Promise<number>, between?: () => Promise<void>): Promise<Tally> => {
      const tally: Tally = { requests: 0, dynamoRequests: 0, readUnits: 0 };
      for (let round = 0; round < polls; round++) {
        await between?.();
        calls.length = 0;
        tally.requests += await poll();
        tally.dynamoRequests += calls.length;
        tally.readUnits += calls.reduce((sum, event) => sum + (event.consumedCapacity?.total ?? 0), 0);
      }
      return tally;
    };

    // The previous release: four lists, then one history Query per row for the preview.
    const before = async (): Promise<number> => {
      for (const state of OPEN_STATES) {
        const answer = await call('/api/conversations', { state, limit: '100' });
        const items = (JSON.parse(answer.body as string) as { items: { customerId: string }[] }).items;
        for (const item of items) await repositories.messages.history(item.customerId, { limit: 1 });
      }
      return OPEN_STATES.length;
    };

    // This release's waiting tab: waiting and mine, each with the ETag of its last answer.
    const etags = new Map<string, string>();
    const lists: Record<string, string>[] = [{ state: 'AWAITING_HUMAN', limit: '100' }, { state: 'HUMAN_ACTIVE', limit: '100', assigned: 'me' }];
    const after = (tabLists = lists) => async (): Promise<number> => {
      for (const query of tabLists) {
        const key = JSON.stringify(query);
        const known = etags.get(key);
        const answer = await call('/api/conversations', query, known === undefined ? {} : { 'if-none-match': known });
        const etag = answer.headers?.etag;
        if (answer.statusCode === 200 && typeof etag === 'string') etags.set(key, etag);
      }
      return tabLists.length;
    };
    // An admin's "all open" tab: the waiting, mine, people's and the agent's two lists, whose tags also compare the agent's activity.
    const openTab: Record<string, string>[] = [...lists, { state: 'HUMAN_ACTIVE', limit: '100' }, { state: 'QUALIFYING', limit: '100' }, { state: 'NEW', limit: '100' }];
    const version = new DynamoInboxVersion(repositories.kit, { now: () => new Date() });
    const aChange = () => version.raise();
    // The agent has served customers: every write shard's activity item exists, as in a deployment that ran.
    for (let index = 0; index < conversations; index++) await version.raiseAfterTurn(customerIdOf(index), SessionState.QUALIFYING, SessionState.QUALIFYING);

    const rows: [string, Tally][] = [
      ['before (4 lists, a Query per row)', await measure(POLLS_PER_MINUTE, before)],
      ['after, idle (2 conditional lists)', await measure(POLLS_PER_MINUTE, after())],
      ['after, busy (a change before each poll)', await measure(POLLS_PER_MINUTE, after(), aChange)],
      ['admin, all open, idle (5 lists)', await measure(POLLS_PER_MINUTE, after(openTab))],
    ];
    const open = async (): Promise<number> => {
      await call(`/api/conversations/${customerIdOf(0)}`, {});
      return 1;
    };
    // The first open clears the operator's unread mark (two writes); opening it again with nothing new writes nothing.
    const [opening, openingAgain] = [await measure(1, open), await measure(1, open)];
    console.log(`Inbox polling, one operator-minute (${POLLS_PER_MINUTE} polls, ${conversations} conversations waiting), DynamoDB Local`);
    console.log('  case                                        API requests  DynamoDB requests  read units');
    for (const [name, tally] of rows) {
      console.log(`  ${name.padEnd(44)}${String(tally.requests).padStart(12)}${String(tally.dynamoRequests).padStart(19)}${tally.readUnits.toFixed(1).padStart(12)}`);
    }
    console.log(`Opening a conversation: ${opening.dynamoRequests} DynamoDB requests (unread), ${openingAgain.dynamoRequests} (nothing new since the last open)`);
  });
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
