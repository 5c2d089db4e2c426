// One answer per burst, end to end on the local runtime over both channels: signed Meta POSTs (or
// End User Messaging events) → webhook → DynamoDB Local + SQS FIFO emulator → orchestrator, whose
// turn waits for the customer to go quiet → the Bedrock adapter on the fake Converse model → fake
// Graph API. Four quick messages get one reply, from one model call that read all four.
import { setTimeout as sleep } from 'node:timers/promises';
import type { ConverseCommandInput } from '@aws-sdk/client-bedrock-runtime';
import { BedrockConverseAgent } from '../../lambda/core/adapters/agent/bedrock-converse-agent';
import { FakeConverseModel } from '../../local/fake-bedrock/fake-converse-model';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { tableRepositories } from '../support/dynamo-table';
import { newCustomer } from '../support/ids';
import { CHANNELS, startTestPipeline } from '../support/pipeline';

const BURST = ['oi', 'tudo bem?', 'queria saber o preço', 'do exame de sangue'];

describe.each(CHANNELS)('over the %s channel', (channel) => {
  let pipeline: LocalPipeline | undefined;
  afterEach(async () => {
    await pipeline?.stop();
    pipeline = undefined;
  });

  it('four messages 300 ms apart get one reply, which answers the last: the model is called once and reads the four', async () => {
    const inputs: ConverseCommandInput[] = [];
    const model = new FakeConverseModel({ toolRounds: 0, answerAfter: async (input) => void inputs.push(input) });
    const agent = new BedrockConverseAgent({ modelId: 'us.anthropic.claude-sonnet-4-20250514-v1:0', converse: model.converse });
    pipeline = await startTestPipeline({ channel, agent, burstSettleMs: 2_000 });
    const customer = newCustomer();
    // The first request of a run is slow (the permission check synthesizes the roles): made first, for another customer.
    await pipeline.sendCustomerMessage(newCustomer(), 'Bom dia');
    await pipeline.waitForIdle();
    const modelCallsBefore = model.totals.calls;

    for (const [index, text] of BURST.entries()) {
      if (index > 0) await sleep(300);
      expect((await pipeline.sendCustomerMessage(customer, text)).status).toBe(200);
    }
    await pipeline.waitForIdle();

    expect(model.totals.calls - modelCallsBefore).toBe(1);
    expect(JSON.stringify(inputs.at(-1)?.messages)).toEqual(expect.stringContaining(BURST[0]));
    const replies = pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === customer).map((message) => message.text);
    expect(replies).toEqual([`Olá! Recebi: ${BURST.join(' | ')}`]);
    const { history } = await pipeline.conversation(customer);
    expect(history.map((message) => [message.role, message.text])).toEqual([...BURST.map((text) => ['user', text]), ['assistant', replies[0]]]);
    // Every message is consumed: nothing is left for a later turn to answer again.
    const repositories = tableRepositories(pipeline.tableName);
    expect((await repositories.receipts.getLatest(customer))?.pendingMessageIds).toEqual([]);
  });
});
