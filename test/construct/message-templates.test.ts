import { Duration } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { OPERATOR_ENV, RUNTIME_ENV, TEMPLATE_SYNC_EVENT_FIELD } from '../../lib/contract';
import { AgentBackend, WhatsAppChannel } from '../../lib';
import { synthPipeline } from '../support/synthesized-pipeline';

const ADMIN = '5511999990000';

describe('messageTemplates', () => {
  test('names the account to the functions that sync and keep templates, and syncs on the sweeper every 6 hours', () => {
    const { template } = synthPipeline({ adminPhoneNumbers: [ADMIN], messageTemplates: { businessAccountId: '102290129340398', handoffNoticeTemplate: { name: 'aviso_atendimento', language: 'pt_BR' } } });

    const environmentOf = (description: string) =>
      Object.values(template.findResources('AWS::Lambda::Function')).find((fn) => String(fn.Properties.Description).startsWith(description))!.Properties.Environment.Variables as Record<string, string>;
    for (const fn of ['Operator console', 'Handoff sweeper', 'WhatsApp webhook']) expect(environmentOf(fn)[RUNTIME_ENV.whatsAppBusinessAccountId]).toBe('102290129340398');
    for (const fn of ['Turn orchestrator', 'Handoff sweeper']) expect(JSON.parse(environmentOf(fn)[OPERATOR_ENV.handoffNoticeTemplate])).toEqual({ name: 'aviso_atendimento', language: 'pt_BR' });
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(6 hours)',
      Targets: [Match.objectLike({ Input: JSON.stringify({ [TEMPLATE_SYNC_EVENT_FIELD]: true }) })],
    });
  });

  test('without an account there is no sync schedule and no account in any environment', () => {
    const { template } = synthPipeline({ adminPhoneNumbers: [ADMIN] });
    expect(Object.values(template.findResources('AWS::Events::Rule')).filter((rule) => JSON.stringify(rule).includes(TEMPLATE_SYNC_EVENT_FIELD))).toEqual([]);
    expect(JSON.stringify(template.findResources('AWS::Lambda::Function'))).not.toContain(RUNTIME_ENV.whatsAppBusinessAccountId);
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
