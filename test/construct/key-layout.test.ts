import { CrmTarget, KeyLayout, WhatsAppChannel } from '../../lib';
import { RUNTIME_ENV } from '../../lib/contract';
import { consumerCrmFunction, synthPipeline, type SynthesizedPipeline } from '../support/synthesized-pipeline';

const ADMIN = '5511912345678';


/** The key layout variable of every function that touches the table, by logical id. */
function keyLayoutByFunction(synth: SynthesizedPipeline): Record<string, string | undefined> {
  const functions = Object.entries(synth.template.findResources('AWS::Lambda::Function')).filter(([, fn]) => fn.Properties.Environment?.Variables?.[RUNTIME_ENV.tableName] !== undefined);
  return Object.fromEntries(functions.map(([logicalId, fn]) => [logicalId, fn.Properties.Environment.Variables[RUNTIME_ENV.keyLayout]]));
}

describe('keyLayout', () => {
  test.each([
    ['the Cloud API', undefined],
    ['End User Messaging', WhatsAppChannel.endUserMessaging({ phoneNumbers: [{ id: 'phone-number-id-976c72a700aac43eaf573ae050example', metaPhoneNumberId: '106540352242922' }] })],
  ])('reaches every function that reads or writes sessions and messages (%s, operator plane, CRM worker)', (_name, channel) => {
    for (const layout of [KeyLayout.MIGRATING, KeyLayout.SHARDED]) {
      const synth = synthPipeline({ keyLayout: layout, channel, adminPhoneNumbers: [ADMIN] }, (stack) => ({ crmSync: CrmTarget.fromFunction(consumerCrmFunction(stack)) }));
      const layouts = keyLayoutByFunction(synth);
      // Inbound (webhook or End User Messaging), orchestrator, operator, handoff sweeper, idle sweeper, CRM worker.
      expect(Object.keys(layouts)).toHaveLength(6);
      expect(new Set(Object.values(layouts))).toEqual(new Set([layout]));
    }
  });

  test('default: sharded in every function, for a new table', () => {
    const layouts = keyLayoutByFunction(synthPipeline());
    expect(Object.keys(layouts).length).toBeGreaterThanOrEqual(2);
    expect(new Set(Object.values(layouts))).toEqual(new Set([KeyLayout.SHARDED]));
  });

  test('KeyLayout.SEED: no variable anywhere, which the runtime reads as seed', () => {
    for (const synth of [synthPipeline({ keyLayout: KeyLayout.SEED })]) {
      const layouts = keyLayoutByFunction(synth);
      expect(Object.keys(layouts).length).toBeGreaterThanOrEqual(2);
      expect(Object.values(layouts).every((value) => value === undefined)).toBe(true);
    }
  });

  test('a value outside the enum (plain JavaScript callers) is refused with the choices', () => {
    expect(() => synthPipeline({ keyLayout: 'shards' as KeyLayout })).toThrow(/keyLayout 'shards' is not one of seed, migrating, sharded: use KeyLayout.SEED, KeyLayout.MIGRATING or KeyLayout.SHARDED/);
  });
});
