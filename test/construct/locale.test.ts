import { App, Stack } from 'aws-cdk-lib';
import { AgentPipeline, Locale } from '../../lib';
import { LOCALE_PRESETS, RUNTIME_ENV } from '../../lib/contract';
import { portugueseFragmentsIn } from '../support/locale-texts';
import { pipelineProps, synthPipeline } from '../support/synthesized-pipeline';

const ADMIN = '5511912345678';

/** Every function's environment variables, as synthesized. */
function functionEnvironments(synth: ReturnType<typeof synthPipeline>): Record<string, string>[] {
  return Object.values(synth.template.findResources('AWS::Lambda::Function')).map((fn) => synth.stack.resolve(fn.Properties.Environment?.Variables ?? {}));
}

describe('the locale prop', () => {
  test('leaves every function as it was without it: pt-BR is the runtime default', () => {
    for (const variables of functionEnvironments(synthPipeline({ adminPhoneNumbers: [ADMIN] }))) expect(variables[RUNTIME_ENV.locale]).toBeUndefined();
  });

  test.each([Locale.EN, Locale.ES])('%s reaches every function, and no text of the pt-BR preset is in what the construct synthesizes', (locale) => {
    const synth = synthPipeline({
      locale,
      adminPhoneNumbers: [ADMIN],
      timeZone: 'Europe/Madrid',
      customerBudget: { turnsPerMinute: 4 },
      pipelineBudget: { agentTokensPerDay: 1_000_000 },
    });
    const environments = functionEnvironments(synth);
    expect(environments.length).toBeGreaterThanOrEqual(5);
    for (const variables of environments) expect(variables[RUNTIME_ENV.locale]).toBe(locale);
    expect(portugueseFragmentsIn(JSON.stringify(synth.template.toJSON()))).toEqual([]);
  });

  test('needs the operators’ time zone with a locale other than pt-BR', () => {
    expect(() => synthPipeline({ locale: Locale.EN, adminPhoneNumbers: [ADMIN] })).toThrow(
      /timeZone is required with locale 'en': set the IANA zone of the operators' working day, such as 'Europe\/London'/,
    );
    expect(() => synthPipeline({ locale: Locale.PT_BR, adminPhoneNumbers: [ADMIN] })).not.toThrow();
    // Without the operator plane there is no working day to end.
    expect(() => synthPipeline({ locale: Locale.ES })).not.toThrow();
  });

  test('refuses a value that is not a Locale', () => {
    const stack = new Stack(new App(), 'TestStack');
    expect(() => new AgentPipeline(stack, 'Pipeline', pipelineProps({ locale: 'pt' as Locale }))).toThrow(/locale 'pt' is not one of pt-BR, en, es: use Locale.PT_BR, Locale.EN or Locale.ES/);
  });

  test('keeps the text props above the preset', () => {
    const synth = synthPipeline({ locale: Locale.EN, fallbackText: 'We will be right back.', customerBudget: { reply: 'Easy, please.' } });
    const orchestrator = functionEnvironments(synth).find((variables) => variables[RUNTIME_ENV.fallbackText] !== undefined);
    expect(orchestrator?.[RUNTIME_ENV.fallbackText]).toBe('We will be right back.');
    expect(JSON.parse(orchestrator?.[RUNTIME_ENV.customerBudget] ?? '{}')).toEqual({ reply: 'Easy, please.' });
    expect(LOCALE_PRESETS[Locale.EN].texts.turnFailed).not.toBe('We will be right back.');
  });
});
