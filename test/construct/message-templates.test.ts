import { Duration } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { TEMPLATE_SYNC_EVENT_FIELD } from '../../lib/contract';
import { AgentBackend, WhatsAppChannel } from '../../lib';
import { everyFunctionTold, synthPipeline, toldTo } from '../support/synthesized-pipeline';

const ADMIN = '5511999990000';

describe('messageTemplates', () => {
  test('names the account to the functions that sync and keep templates, and syncs on the sweeper every 6 hours', () => {
    const synth = synthPipeline({ adminPhoneNumbers: [ADMIN], messageTemplates: { businessAccountId: '102290129340398', handoffNoticeTemplate: { name: 'aviso_atendimento', language: 'pt_BR' } } });
    const { template, pipeline } = synth;

    const settingsOf = (fn: (typeof pipeline)['webhookFunction']) => toldTo(synth, fn).document;
    // The operator function and the sweeper read the account's templates; the webhook applies Meta's status notifications to them.
    for (const fn of [pipeline.operatorFunction!, pipeline.handoffSweeperFunction!]) expect(settingsOf(fn).whatsApp.businessAccountId).toBe('102290129340398');
    expect(settingsOf(pipeline.webhookFunction).applyTemplateStatusUpdates).toBe(true);
    for (const fn of [pipeline.orchestratorFunction, pipeline.handoffSweeperFunction!]) expect(settingsOf(fn).handoffs?.operatorNoticeTemplate).toEqual({ name: 'aviso_atendimento', language: 'pt_BR' });
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(6 hours)',
      Targets: [Match.objectLike({ Input: JSON.stringify({ [TEMPLATE_SYNC_EVENT_FIELD]: true }) })],
    });
  });

  test('without an account there is no sync schedule and no account in any function’s settings', () => {
    const synth = synthPipeline({ adminPhoneNumbers: [ADMIN] });
    expect(Object.values(synth.template.findResources('AWS::Events::Rule')).filter((rule) => JSON.stringify(rule).includes(TEMPLATE_SYNC_EVENT_FIELD))).toEqual([]);
    const told = Object.values(everyFunctionTold(synth)).map(({ document }) => document);
    expect(told.filter((document) => document.whatsApp !== undefined).map((document) => document.whatsApp.businessAccountId)).toEqual(expect.arrayContaining([null]));
    expect(told.filter((document) => document.whatsApp?.businessAccountId !== undefined && document.whatsApp.businessAccountId !== null)).toEqual([]);
    expect(toldTo(synth, synth.pipeline.webhookFunction).document.applyTemplateStatusUpdates).toBe(false);
  });

  test.each([
    [{ messageTemplates: { businessAccountId: '1' } }, 'only apply to the operator plane'],
    [{ adminPhoneNumbers: [ADMIN], messageTemplates: { businessAccountId: 'waba-123' } }, "Meta's numeric WhatsApp Business Account id"],
    [{ adminPhoneNumbers: [ADMIN], messageTemplates: { syncInterval: Duration.hours(2) } }, 'needs messageTemplates.businessAccountId'],
    [{ adminPhoneNumbers: [ADMIN], messageTemplates: { businessAccountId: '1', syncInterval: Duration.minutes(5) } }, 'from 1 hour to 7 days'],
    [{ adminPhoneNumbers: [ADMIN], messageTemplates: { handoffNoticeTemplate: { name: 'Aviso Atendimento', language: 'pt_BR' } } }, 'lower_case_name'],
  ])('refuses %j', (props, message) => {
    expect(() => synthPipeline({ agentBackend: AgentBackend.scripted(), ...props })).toThrow(message);
  });

  describe('with End User Messaging', () => {
    const channel = WhatsAppChannel.endUserMessaging({ phoneNumbers: [{ id: 'phone-number-id-976c72a700aac43eaf573ae050example', metaPhoneNumberId: '106540352242922' }] });
    const WABA = 'waba-0aae9cf04cf24c66960f291c793359b4';
    const templateReads = ['social-messaging:ListWhatsAppMessageTemplates', 'social-messaging:GetWhatsAppMessageTemplate'];

    test("syncs the linked account: the sweeper and the operator function may read that account's templates, and no other function may", () => {
      const { template } = synthPipeline({ adminPhoneNumbers: [ADMIN], channel, messageTemplates: { businessAccountId: WABA } });

      template.hasResourceProperties('AWS::Events::Rule', { Targets: [Match.objectLike({ Input: JSON.stringify({ [TEMPLATE_SYNC_EVENT_FIELD]: true }) })] });
      const readers = Object.entries(template.findResources('AWS::IAM::Policy')).filter(([, policy]) => JSON.stringify(policy).includes(templateReads[0]));
      expect(readers.map(([id]) => id).sort()).toEqual([expect.stringMatching(/^PipelineHandoffSweeper/), expect.stringMatching(/^PipelineOperator/)]);
      for (const [, policy] of readers) {
        const statement = (policy.Properties.PolicyDocument.Statement as { Action: unknown; Resource: unknown }[]).find(({ Action }) => JSON.stringify(Action).includes(templateReads[0]));
        expect(statement).toEqual(expect.objectContaining({
          Action: templateReads,
          Resource: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':social-messaging:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':waba/0aae9cf04cf24c66960f291c793359b4']] },
        }));
      }
    });

    test("refuses Meta's numeric id, and the notice template needs no account", () => {
      expect(() => synthPipeline({ adminPhoneNumbers: [ADMIN], channel, messageTemplates: { businessAccountId: '102290129340398' } })).toThrow("the linked account's id in End User Messaging ('waba-…'");
      expect(() => synthPipeline({ adminPhoneNumbers: [ADMIN], channel, messageTemplates: { handoffNoticeTemplate: { name: 'aviso', language: 'pt_BR' } } })).not.toThrow();
    });
  });
});
