// The fake Converse model bills as Bedrock bills Claude: text at about four characters a token, and
// a photo as the image tokens Claude counts for it, whatever its size in bytes.
import { randomBytes } from 'node:crypto';
import type { ContentBlock } from '@aws-sdk/client-bedrock-runtime';
import { FakeConverseModel } from '../../local/fake-bedrock/fake-converse-model';

const photo = (bytes: number) => ({ image: { format: 'jpeg' as const, source: { bytes: randomBytes(bytes) } } });

async function inputTokensOf(content: ContentBlock[]): Promise<number> {
  const model = new FakeConverseModel({ toolRounds: 0 });
  const answer = await model.converse({ modelId: 'us.anthropic.claude-sonnet-4-20250514-v1:0', messages: [{ role: 'user', content }] }, { abortSignal: new AbortController().signal });
  return answer.usage!.inputTokens!;
}

it('bills a photo as 1,600 input tokens, a small one and a large one alike', async () => {
  const text = await inputTokensOf([{ text: 'Foto do pedido' }]);
  expect(await inputTokensOf([{ text: 'Foto do pedido' }, photo(2_000)])).toBe(text + 1_600);
  expect(await inputTokensOf([{ text: 'Foto do pedido' }, photo(400_000)])).toBe(text + 1_600);
});
