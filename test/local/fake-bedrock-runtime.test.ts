// The fake Bedrock Runtime answers the orchestrator's own signed Converse client as Bedrock does:
// the model's answer round-trips through the wire format, and a request the permission check
// refuses is answered as AccessDeniedException without reaching the model.
import { bedrockConverse } from '../../lambda/core/adapters/agent/bedrock-converse-agent';
import type { ReceivedAwsRequest } from '../../local/fake-aws/permission-check';
import { FakeBedrockRuntime } from '../../local/fake-bedrock/fake-bedrock-runtime';
import { FakeConverseModel } from '../../local/fake-bedrock/fake-converse-model';

const MODEL_ID = 'us.anthropic.claude-sonnet-4-20250514-v1:0';
const credentials = async () => ({ accessKeyId: 'AKIDLOCAL', secretAccessKey: 'local' });
const ASKED = { modelId: MODEL_ID, messages: [{ role: 'user' as const, content: [{ text: 'Quero 2 pães' }] }] };

it("answers a signed Converse with the model's tool use, usage and stop reason, and the check sees the model the path names", async () => {
  const checked: ReceivedAwsRequest[] = [];
  const model = new FakeConverseModel({ toolRounds: 0, toolCall: () => ({ name: 'create_order', input: { sku: 'pao', quantity: 2 } }) });
  const fake = await FakeBedrockRuntime.start({ converse: model.converse, permissions: async (request) => (checked.push(request), undefined) });
  try {
    const answer = await bedrockConverse({ region: 'us-east-1', endpoint: fake.endpoint, credentials })(ASKED, { abortSignal: new AbortController().signal });
    expect(answer.stopReason).toBe('tool_use');
    expect(answer.output?.message?.content?.[0].toolUse).toMatchObject({ name: 'create_order', input: { sku: 'pao', quantity: 2 } });
    expect(answer.usage?.inputTokens).toBeGreaterThan(0);
    expect(checked).toHaveLength(1);
    expect(checked[0]).toMatchObject({ service: 'bedrock', method: 'POST', path: `/model/${encodeURIComponent(MODEL_ID)}/converse` });
    expect(String(checked[0].headers.authorization)).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDLOCAL\//);
  } finally {
    await fake.close();
  }
});

it('answers a refused request as AccessDeniedException, and the model is never asked', async () => {
  const model = new FakeConverseModel();
  const fake = await FakeBedrockRuntime.start({ converse: model.converse, permissions: async () => 'User: orchestrator is not authorized to perform: bedrock:InvokeModel' });
  try {
    const call = bedrockConverse({ region: 'us-east-1', endpoint: fake.endpoint, credentials, maxAttempts: 1 })(ASKED, { abortSignal: new AbortController().signal });
    await expect(call).rejects.toMatchObject({ name: 'AccessDeniedException', message: expect.stringContaining('bedrock:InvokeModel') });
    expect(model.totals.calls).toBe(0);
  } finally {
    await fake.close();
  }
});
