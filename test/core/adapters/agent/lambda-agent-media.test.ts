import { LAMBDA_AGENT_MEDIA_URL_SECONDS, LambdaInvokeAgent } from '../../../../lambda/core/adapters/agent/lambda-invoke-agent';
import type { LambdaInvoke, LambdaInvokeInput } from '../../../../lambda/core/adapters/lambda/lambda-invoke';
import type { StoredMedia } from '../../../../lambda/core/domain/media';
import type { AgentRequest, ConversationEntry } from '../../../../lambda/core/ports/agent';
import { InMemoryMediaStore } from '../../../support/in-memory-media-store';

// Contract version 2 of the agent function: the attachments of customer messages, with a
// presigned URL of each stored one, for a function that opted in; version 1 for everyone else.

const FUNCTION_NAME = 'clinic-agent';
const NOW = Date.parse('2026-11-30T12:00:30.000Z');

const photo: StoredMedia = {
  kind: 'image',
  providerMediaId: 'meta-media-1',
  sha256: 'c2hhMjU2',
  mimeType: 'image/jpeg',
  caption: 'meu exame',
  state: 'stored',
  objectKey: 'media/5511987654321/wamid.photo',
  sizeBytes: 183_204,
};
const voiceNote: StoredMedia = { kind: 'audio', providerMediaId: 'meta-media-2', mimeType: 'audio/ogg', voice: true, state: 'refused', refusal: 'too_large' };

const history: ConversationEntry[] = [
  { role: 'customer', text: '[image] meu exame', at: '2026-11-30T12:00:00.000Z', media: photo },
  { role: 'assistant', text: 'Recebi.', at: '2026-11-30T12:00:03.000Z' },
  { role: 'customer', text: '[audio]', at: '2026-11-30T12:00:10.000Z', media: voiceNote },
];

function requestOf(entries: ConversationEntry[], mediaStore?: InMemoryMediaStore): AgentRequest {
  return {
    systemPrompt: 'Você é a assistente da GoGenetic.',
    history: entries,
    session: { sessionId: 'session-1', customerId: '5511987654321', state: 'QUALIFYING', qualificationData: {} },
    deadline: NOW + 60_000,
    maxIterations: 10,
    ...(mediaStore && { mediaStore }),
  };
}

function answering(): { invoke: LambdaInvoke; events: () => unknown[] } {
  const inputs: LambdaInvokeInput[] = [];
  return {
    events: () => inputs.map((input) => JSON.parse(new TextDecoder().decode(input.Payload as Uint8Array)) as unknown),
    invoke: async (input) => {
      inputs.push(input);
      return { StatusCode: 200, Payload: new TextEncoder().encode(JSON.stringify({ reply: 'Vi o seu exame.' })) };
    },
  };
}

it('a function that reads version 2 gets each attachment with a short-lived URL, never the bucket key or the media id', async () => {
  const { invoke, events } = answering();
  const store = new InMemoryMediaStore();

  await new LambdaInvokeAgent({ functionName: FUNCTION_NAME, invoke, readsMedia: true, now: () => NOW }).respond(requestOf(history, store));

  expect(events()).toEqual([
    {
      version: '2',
      systemPrompt: 'Você é a assistente da GoGenetic.',
      history: [
        {
          role: 'customer',
          text: '[image] meu exame',
          at: '2026-11-30T12:00:00.000Z',
          media: [
            {
              kind: 'image',
              state: 'stored',
              mimeType: 'image/jpeg',
              caption: 'meu exame',
              sizeBytes: 183_204,
              url: `http://127.0.0.1:9/media/${photo.objectKey}?expires=${LAMBDA_AGENT_MEDIA_URL_SECONDS}`,
              urlExpiresAt: NOW + LAMBDA_AGENT_MEDIA_URL_SECONDS * 1000,
            },
          ],
        },
        { role: 'assistant', text: 'Recebi.', at: '2026-11-30T12:00:03.000Z' },
        { role: 'customer', text: '[audio]', at: '2026-11-30T12:00:10.000Z', media: [{ kind: 'audio', state: 'refused', mimeType: 'audio/ogg', voice: true }] },
      ],
      session: { sessionId: 'session-1', customerId: '5511987654321', state: 'QUALIFYING', qualificationData: {} },
      deadline: NOW + 60_000,
    },
  ]);
  expect(store.presigned).toEqual([{ objectKey: photo.objectKey, expiresInSeconds: LAMBDA_AGENT_MEDIA_URL_SECONDS }]);
});

it('a turn without attachments is a version 1 event even for a function that reads version 2', async () => {
  const { invoke, events } = answering();
  const textOnly: ConversationEntry[] = [{ role: 'customer', text: 'Oi', at: '2026-11-30T12:00:00.000Z' }];

  await new LambdaInvokeAgent({ functionName: FUNCTION_NAME, invoke, readsMedia: true, now: () => NOW }).respond(requestOf(textOnly, new InMemoryMediaStore()));

  expect(events()).toEqual([{ version: '1', systemPrompt: 'Você é a assistente da GoGenetic.', history: textOnly, session: expect.any(Object), deadline: NOW + 60_000 }]);
});

it('a function that did not opt in gets version 1, each attachment described in its text, and no URL is signed', async () => {
  const { invoke, events } = answering();
  const store = new InMemoryMediaStore();

  await new LambdaInvokeAgent({ functionName: FUNCTION_NAME, invoke, now: () => NOW }).respond(requestOf(history, store));

  const [event] = events() as Array<{ version: string; history: Array<Record<string, unknown>> }>;
  expect(event.version).toBe('1');
  expect(event.history.map((entry) => Object.keys(entry).sort())).toEqual([['at', 'role', 'text'], ['at', 'role', 'text'], ['at', 'role', 'text']]);
  expect(event.history[0].text).toBe('[image] meu exame\n[The customer sent an image (image/jpeg, 183204 bytes). You cannot see or hear it: ask the customer about it if you need its content.]');
  expect(event.history[2].text).toBe("[audio]\n[The customer's voice note was not kept: it is larger than the pipeline accepts. You cannot see or hear it: ask the customer about it if you need its content.]");
  expect(store.presigned).toEqual([]);
});

it('a URL that cannot be signed is left out; the function still gets the attachment and the turn goes on', async () => {
  const { invoke, events } = answering();
  const store = new InMemoryMediaStore();
  store.failing = true;

  const response = await new LambdaInvokeAgent({ functionName: FUNCTION_NAME, invoke, readsMedia: true, now: () => NOW }).respond(requestOf(history.slice(0, 1), store));

  const [event] = events() as Array<{ history: Array<{ media: unknown[] }> }>;
  expect(event.history[0].media).toEqual([{ kind: 'image', state: 'stored', mimeType: 'image/jpeg', caption: 'meu exame', sizeBytes: 183_204 }]);
  expect(response.reply).toBe('Vi o seu exame.');
});
