import { App, Stack } from 'aws-cdk-lib';
import { AgentPipeline, Locale } from '../../lib';
import { COST_GUARD_DEFAULTS, LOCALE_PRESETS } from '../../lib/contract';
import { portugueseFragmentsIn } from '../support/locale-texts';
import { everyFunctionTold, pipelineProps, synthPipeline, toldTo } from '../support/synthesized-pipeline';

const ADMIN = '5511912345678';

describe('the locale prop', () => {
  test('without it every function is told pt-BR, the default', () => {
    const told = Object.values(everyFunctionTold(synthPipeline({ adminPhoneNumbers: [ADMIN] })));
    expect(told.length).toBeGreaterThanOrEqual(4);
    for (const { document } of told) expect(document.locale).toBe(Locale.PT_BR);
  });

  test.each([Locale.EN, Locale.ES])('%s reaches every function, and no text of the pt-BR preset is in what the construct synthesizes', (locale) => {
    const synth = synthPipeline({
      locale,
      adminPhoneNumbers: [ADMIN],
      timeZone: 'Europe/Madrid',
      customerBudget: { turnsPerMinute: 4 },
      pipelineBudget: { agentTokensPerDay: 1_000_000 },
    });
    const told = Object.values(everyFunctionTold(synth));
    expect(told.length).toBeGreaterThanOrEqual(5);
    for (const { document } of told) expect(document.locale).toBe(locale);
    // The texts the locale gives are written into the functions' settings documents, beside the template.
    expect(portugueseFragmentsIn(JSON.stringify(synth.template.toJSON()) + JSON.stringify(told.map(({ document }) => document)))).toEqual([]);
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
    const orchestrator = toldTo(synth, synth.pipeline.orchestratorFunction).document;
    expect(orchestrator.fallbackText).toBe('We will be right back.');
    expect(orchestrator.customerBudget).toEqual({ turnsPerMinute: COST_GUARD_DEFAULTS.turnsPerMinute, turnsPerHour: COST_GUARD_DEFAULTS.turnsPerHour, agentTokensPerDay: COST_GUARD_DEFAULTS.agentTokensPerDay, reply: 'Easy, please.' });
    expect(LOCALE_PRESETS[Locale.EN].texts.turnFailed).not.toBe('We will be right back.');
    // The preset's texts where no prop replaces them.
    expect(orchestrator.deadlineFallbackText).toBe(LOCALE_PRESETS[Locale.EN].texts.agentDeadline);
  });
});
