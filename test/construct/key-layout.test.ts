import { CrmTarget, KeyLayout, WhatsAppChannel } from '../../lib';
import { consumerCrmFunction, everyFunctionTold, synthPipeline, type SynthesizedPipeline } from '../support/synthesized-pipeline';

const ADMIN = '5511912345678';


/** The key layout every function that touches the table is told, by logical id. */
function keyLayoutByFunction(synth: SynthesizedPipeline): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(everyFunctionTold(synth)).map(([logicalId, told]) => [logicalId, told.document.keyLayout]));
}

describe('keyLayout', () => {
  test.each([
    ['the Cloud API', undefined],
    ['End User Messaging', WhatsAppChannel.endUserMessaging({ phoneNumbers: [{ id: 'phone-number-id-976c72a700aac43eaf573ae050example', metaPhoneNumberId: '106540352242922' }] })],
  ])('reaches every function that reads or writes sessions and messages (%s, operator plane, CRM worker)', (_name, channel) => {
    for (const layout of [KeyLayout.MIGRATING, KeyLayout.SHARDED]) {
      const synth = synthPipeline({ keyLayout: layout, channel, adminPhoneNumbers: [ADMIN] }, (stack) => ({ crmSync: CrmTarget.fromFunction(consumerCrmFunction(stack)) }));
      const layouts = keyLayoutByFunction(synth);
      // Inbound (webhook or End User Messaging), orchestrator, operator, handoff sweeper, evaluator, idle sweeper, CRM worker.
      expect(Object.keys(layouts)).toHaveLength(7);
      expect(new Set(Object.values(layouts))).toEqual(new Set([layout]));
    }
  });

  test('default: sharded in every function, for a new table', () => {
    const layouts = keyLayoutByFunction(synthPipeline());
    expect(Object.keys(layouts).length).toBeGreaterThanOrEqual(2);
    expect(new Set(Object.values(layouts))).toEqual(new Set([KeyLayout.SHARDED]));
  });

  test('KeyLayout.SEED: every function is told seed (the runtime has no default of its own)', () => {
    for (const synth of [synthPipeline({ keyLayout: KeyLayout.SEED })]) {
      const layouts = keyLayoutByFunction(synth);
      expect(Object.keys(layouts).length).toBeGreaterThanOrEqual(2);
      expect(new Set(Object.values(layouts))).toEqual(new Set([KeyLayout.SEED]));
    }
  });

  test('a value outside the enum (plain JavaScript callers) is refused with the choices', () => {
    expect(() => synthPipeline({ keyLayout: 'shards' as KeyLayout })).toThrow(/keyLayout 'shards' is not one of seed, migrating, sharded: use KeyLayout.SEED, KeyLayout.MIGRATING or KeyLayout.SHARDED/);
  });
});
