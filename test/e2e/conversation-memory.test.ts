// End to end on the local runtime with the Bedrock adapter on the fake Converse model: a
// conversation that outgrows the agent's window folds its older messages into a summary on the
// session, the prompt's prefix stays the same between folds, what the agent recorded survives the
// fold, a fold that fails answers as without one, a superseded turn's fold is never written, and a
// retried turn neither folds nor asks the model again.
import type { ConverseCommandInput } from '@aws-sdk/client-bedrock-runtime';
import { BedrockConversationSummarizer } from '../../lambda/core/adapters/agent/bedrock-conversation-summarizer';
import { BedrockConverseAgent, SESSION_CONTEXT_OPENING, SUMMARY_OPENING } from '../../lambda/core/adapters/agent/bedrock-converse-agent';
import { FakeConverseModel } from '../../local/fake-bedrock/fake-converse-model';
import { FakeSummarizingModel } from '../../local/fake-bedrock/fake-summarizing-model';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { newCustomer } from '../support/ids';
import { startTestPipeline } from '../support/pipeline';
import { gate } from '../support/waiting';

const MODEL = 'us.anthropic.claude-sonnet-4-20250514-v1:0';
const MEMORY_MODEL = 'us.anthropic.claude-3-5-haiku-20241022-v1:0';
/** A long conversation in seconds: more turns a minute than the default budget lets through. */
const LONG_CONVERSATION_BUDGET = { turnsPerMinute: 1_000, turnsPerHour: 10_000 };

let pipeline: LocalPipeline | undefined;
afterEach(async () => {
  await pipeline?.stop();
  pipeline = undefined;
});

/** The summarizing model, and the summarizer the agent folds with. */
function fakeSummarizer(options: { fail?: boolean } = {}) {
  const model = new FakeSummarizingModel(options);
  return { asked: model.asked, billed: model.totals, summarizer: new BedrockConversationSummarizer({ modelId: MEMORY_MODEL, converse: model.converse }) };
}

/** Each request's first message (as JSON) and its messages. */
function requestsOf(requests: readonly ConverseCommandInput[]) {
  return requests.map((input) => ({ first: JSON.stringify(input.messages?.[0]), messages: input.messages ?? [] }));
}

/** A pipeline whose turns are retried 2 s after a failure, and a customer who wrote 25 messages: the next one folds. */
async function fullWindowRetriedQuickly(model: FakeConverseModel) {
  const { asked, summarizer } = fakeSummarizer();
  const started = await startTestPipeline({
    customerBudget: LONG_CONVERSATION_BUDGET,
    queue: { visibilityTimeoutSeconds: 2 },
    agent: new BedrockConverseAgent({ modelId: MODEL, converse: model.converse, memory: { foldEveryTurns: 5, summarizer } }),
  });
  // Stopped after the test even if the conversation below fails.
  pipeline = started;
  const customer = newCustomer();
  await talk(started, customer, 25);
  return { asked, customer, started };
}

async function talk(target: LocalPipeline, customer: string, turns: number, from = 1): Promise<void> {
  for (let turn = from; turn < from + turns; turn++) {
    await target.sendCustomerMessage(customer, `Mensagem ${turn}`);
    await target.waitForIdle();
  }
}

it('past the window, older messages fold into the summary on the session; the prefix stays stable and the recorded facts stay shown', async () => {
  const requests: ConverseCommandInput[] = [];
  // The first turn records a fact (a tool round); every other turn answers at once.
  const model = new FakeConverseModel({ toolRounds: (turn) => (turn.includes('Mensagem 1') ? 1 : 0), answerAfter: async (input) => void requests.push(input) });
  const { asked, billed, summarizer } = fakeSummarizer();
  pipeline = await startTestPipeline({ customerBudget: LONG_CONVERSATION_BUDGET, agent: new BedrockConverseAgent({ modelId: MODEL, converse: model.converse, promptCaching: { tools: true }, memory: { foldEveryTurns: 5, summarizer } }) });
  const customer = newCustomer();

  await talk(pipeline, customer, 25);
  // 50 messages: within the window, nothing folds.
  expect(asked).toHaveLength(0);
  expect((await pipeline.conversation(customer)).session?.memory).toBeUndefined();

  await talk(pipeline, customer, 5, 26);
  // The 26th message made 51: one fold, of the oldest 12 (turns 1 to 6; the newest 39 stay, from a customer message); none in the 4 turns after.
  expect(asked).toHaveLength(1);
  expect(asked[0].modelId).toBe(MEMORY_MODEL);
  const { session, history } = await pipeline.conversation(customer);
  // The snapshot holds the newest 50 of 60 messages: Mensagem 6 and its reply, the last one folded, open it.
  expect(history[1]).toMatchObject({ role: 'assistant', text: 'Olá! Recebi: Mensagem 6' });
  expect(session?.memory).toMatchObject({ summary: 'Resumo 1: 12 mensagens.', through: history[1].timestamp });
  // The fold's tokens are stored with the reply of the turn that folded, under the memory's model, for the usage report.
  expect(history.filter((message) => message.llm?.memoryFold !== undefined).map((message) => [message.text, message.llm?.memoryFold])).toEqual([
    ['Olá! Recebi: Mensagem 26', { model: MEMORY_MODEL, ...billed }],
  ]);
  // What the agent recorded in the first turn, long folded away, is still on the session and in every prompt.
  expect(session?.qualificationData).toEqual({ last_message: 'Mensagem 1' });
  const last = requests.at(-1)!;
  const turnBlocks = (last.messages?.at(-1)?.content ?? []).flatMap((block) => (block.text === undefined ? [] : [block.text]));
  expect(turnBlocks.find((text) => text.startsWith(SESSION_CONTEXT_OPENING))).toContain('"last_message":"Mensagem 1"');

  // From the fold on, each turn's request opens with the summary and the first kept message: the same bytes every turn.
  const afterFold = requestsOf(requests.slice(-5));
  expect(afterFold[0].first).toContain(SUMMARY_OPENING.split('\n')[0]);
  expect(afterFold[0].first).toContain('Mensagem 7');
  expect(new Set(afterFold.map((request) => request.first)).size).toBe(1);
  // The window grows from the fold point (39 messages at the fold turn, + 2 a turn), never slides.
  expect(afterFold.map((request) => request.messages.length)).toEqual([39, 41, 43, 45, 47]);
  // The reads of the cache: after the fold's turn, each turn reads the prefix the previous one wrote.
  expect(model.totals.cacheReadInputTokens).toBeGreaterThan(0);
});

it('a fold that fails: the turn answers as without memory (the newest 50 messages), and the session keeps no summary', async () => {
  const requests: ConverseCommandInput[] = [];
  const model = new FakeConverseModel({ toolRounds: 0, answerAfter: async (input) => void requests.push(input) });
  const { asked, summarizer } = fakeSummarizer({ fail: true });
  pipeline = await startTestPipeline({ customerBudget: LONG_CONVERSATION_BUDGET, agent: new BedrockConverseAgent({ modelId: MODEL, converse: model.converse, memory: { foldEveryTurns: 5, summarizer } }) });
  const customer = newCustomer();

  await talk(pipeline, customer, 27);

  expect(asked.length).toBeGreaterThanOrEqual(2);
  expect(pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === customer)).toHaveLength(27);
  expect((await pipeline.conversation(customer)).session?.memory).toBeUndefined();
  // As without memory: the newest 50 messages, the oldest falling off.
  const lastRequest = requests.at(-1)!;
  expect(JSON.stringify(lastRequest.messages?.[0])).toContain('Mensagem 3');
  expect(JSON.stringify(lastRequest.messages)).not.toContain(SUMMARY_OPENING.split('\n')[0]);
});

it('a turn superseded while it folded writes no summary; the newer turn folds and writes its own', async () => {
  const customer = newCustomer();
  const foldStarted = gate();
  const releaseFold = gate();
  const { asked, summarizer } = fakeSummarizer();
  const slowSummarizer = {
    model: summarizer.model,
    summarize: async (request: Parameters<typeof summarizer.summarize>[0]) => {
      if (asked.length === 0) {
        foldStarted.open();
        await releaseFold.opened;
      }
      return summarizer.summarize(request);
    },
  };
  const model = new FakeConverseModel({ toolRounds: 0 });
  pipeline = await startTestPipeline({ customerBudget: LONG_CONVERSATION_BUDGET, agent: new BedrockConverseAgent({ modelId: MODEL, converse: model.converse, memory: { foldEveryTurns: 5, summarizer: slowSummarizer } }) });
  await talk(pipeline, customer, 25);

  await pipeline.sendCustomerMessage(customer, 'Mensagem 26');
  await foldStarted.opened;
  // The customer writes again while the 26th message's turn is folding.
  await pipeline.sendCustomerMessage(customer, 'Mensagem 27');
  releaseFold.open();
  await pipeline.waitForIdle();

  expect(asked).toHaveLength(2);
  const { session } = await pipeline.conversation(customer);
  // The summary on the session is the newer turn's (the second written), never the superseded one's.
  expect(session?.memory?.summary).toMatch(/^Resumo 2:/);
  const replies = pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === customer).map((message) => message.text);
  expect(replies.at(-1)).toBe('Olá! Recebi: Mensagem 26 | Mensagem 27');
});

it('a folding turn retried after its reply failed to send: the summary is written once, and neither the summarizer nor the model is asked again', async () => {
  const model = new FakeConverseModel({ toolRounds: 0 });
  const { asked, customer, started } = await fullWindowRetriedQuickly(model);
  pipeline = started;
  const callsBefore = model.totals.calls;

  // The 26th message's turn folds and persists its reply, then WhatsApp fails the send: the queue retries the turn.
  pipeline.fakeWhatsApp.failNext(1, { httpStatus: 503, code: 2, message: 'Service temporarily unavailable or down.' });
  await pipeline.sendCustomerMessage(customer, 'Mensagem 26');
  await pipeline.fakeWhatsApp.waitForSent(26, 20_000);
  await pipeline.waitForIdle();

  expect(asked).toHaveLength(1);
  expect(model.totals.calls - callsBefore).toBe(1);
  const { session } = await pipeline.conversation(customer);
  expect(session?.memory?.summary).toBe('Resumo 1: 12 mensagens.');
  const replies = pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === customer).map((message) => message.text);
  expect(replies).toHaveLength(26);
  expect(replies.at(-1)).toBe('Olá! Recebi: Mensagem 26');
});

it('a folding turn retried after the model failed finds its messages in the history already, and still folds from the oldest unfolded message', async () => {
  let failed = false;
  const model = new FakeConverseModel({
    toolRounds: 0,
    answerAfter: async (input) => {
      if (failed || !JSON.stringify(input.messages?.at(-1)).includes('Mensagem 26')) return;
      failed = true;
      throw Object.assign(new Error('Too many requests, please wait before trying again.'), { name: 'ThrottlingException' });
    },
  });
  const { asked, customer, started } = await fullWindowRetriedQuickly(model);
  pipeline = started;

  // The first attempt appends the 26th message and folds, then the model fails; the retry reads the history with that message in it.
  await pipeline.sendCustomerMessage(customer, 'Mensagem 26');
  await pipeline.fakeWhatsApp.waitForSent(26, 20_000);
  await pipeline.waitForIdle();

  expect(failed).toBe(true);
  // Both attempts folded the same 12 messages, from the first: the retry's summary is the one written.
  expect(asked.map((request) => request.messages?.[0]?.content?.[0]?.text?.match(/Mensagem \d+/)?.[0])).toEqual(['Mensagem 1', 'Mensagem 1']);
  const { session, history } = await pipeline.conversation(customer);
  const lastFolded = history.find((message) => message.text === 'Olá! Recebi: Mensagem 6');
  expect(session?.memory).toMatchObject({ summary: 'Resumo 2: 12 mensagens.', through: lastFolded?.timestamp });
});
