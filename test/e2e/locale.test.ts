// A pipeline in English or Spanish over the whole local runtime: every text it sends a customer or
// an operator is the locale's, the locale's words opt out and back in, and the console's page
// names the locale as its language. None of it carries a text of the pt-BR preset.
import { handoffTextsOf, Locale, LOCALE_PRESETS } from '../../lib/contract';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { newCustomer, newOperatorPhone } from '../support/ids';
import { portugueseFragmentsIn } from '../support/locale-texts';
import { signInOverWhatsApp } from '../support/operator-console-client';
import { startOperatorPipeline, startTestPipeline } from '../support/pipeline';
import { tableRepositories } from '../support/dynamo-table';
import { waitUntil } from '../support/waiting';

const textsTo = (pipeline: LocalPipeline, phone: string) => pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === phone).map((message) => message.text);
const everythingSent = (pipeline: LocalPipeline) => pipeline.fakeWhatsApp.sent().map((message) => message.text).join('\n');
const fill = (template: string, values: Record<string, string>) => template.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);

describe.each([Locale.EN, Locale.ES])('a pipeline with locale %s', (locale) => {
  const { texts, consentWords } = LOCALE_PRESETS[locale];
  const handoffTexts = handoffTextsOf(texts);
  /** A word only this locale takes (STOP is everybody's). */
  const ownOptOutWord = consentWords.optOut.find((word) => !LOCALE_PRESETS[Locale.PT_BR].consentWords.optOut.includes(word))!;
  const scripted = (messages: string, count: number) => fill(texts.scriptedReply, { messages, count: String(count) });

  it('speaks the locale to customers and operators, with the plane on', async () => {
    const admin = newOperatorPhone();
    const pipeline = await startOperatorPipeline([admin], { locale, handoffTimings: { renotifyOperatorsAfterMs: 1_000, remindCustomerAfterMs: 1_000 } });
    const repositories = tableRepositories(pipeline.tableName);
    try {
      // The console link, and the console itself in the locale.
      await signInOverWhatsApp(pipeline, admin);
      expect(textsTo(pipeline, admin)[0].startsWith(`${texts.loginLink.replace('{link}', '')}${pipeline.consoleUrl}`)).toBe(true);
      const page = await (await fetch(`${pipeline.consoleUrl}/`)).text();
      expect(page).toContain(`<html lang="${locale}"`);

      // The agent's answer, then out and back in with the locale's words.
      const customer = newCustomer();
      await pipeline.sendCustomerMessage(customer, 'Hello');
      await waitUntil(() => textsTo(pipeline, customer).length === 1, 10_000, 'the first reply');
      await pipeline.sendCustomerMessage(customer, ownOptOutWord.toLowerCase());
      await waitUntil(() => textsTo(pipeline, customer).length === 2, 10_000, 'the opt-out confirmation');
      await pipeline.sendCustomerMessage(customer, consentWords.optIn[0]);
      await waitUntil(() => textsTo(pipeline, customer).length === 3, 10_000, 'the opt-in confirmation');
      expect(textsTo(pipeline, customer)).toEqual([scripted('Hello', 1), texts.optedOut, texts.optedIn]);

      // A handoff nobody is available for, then the sweep: the customer is reminded, the operator told.
      const waiting = newCustomer();
      await pipeline.sendCustomerMessage(waiting, 'A person, please #humano');
      await waitUntil(() => textsTo(pipeline, waiting).length === 2, 10_000, 'the reply and the notice that nobody is available');
      expect(textsTo(pipeline, waiting)).toEqual([scripted('A person, please #humano', 1), handoffTexts.noOperatorAvailable]);
      await repositories.config.setOperatorAvailability(admin, new Date().toISOString(), admin);
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      await pipeline.sweepHandoffs();
      await waitUntil(() => textsTo(pipeline, waiting).length === 3 && textsTo(pipeline, admin).length === 2, 10_000, 'the reminder and the notification');
      expect(textsTo(pipeline, waiting)[2]).toBe(handoffTexts.customerRenotify);
      expect(textsTo(pipeline, admin)[1].startsWith(handoffTexts.operatorNotification.split('{name}')[0])).toBe(true);

      // A turn the agent fails for good goes to people with the locale's fallback.
      const failing = newCustomer();
      await pipeline.sendCustomerMessage(failing, 'Break #falha');
      await waitUntil(() => textsTo(pipeline, failing).includes(handoffTexts.fallback), 15_000, 'the handoff fallback');

      expect(portugueseFragmentsIn(everythingSent(pipeline))).toEqual([]);
    } finally {
      await pipeline.stop();
    }
  });

  it('speaks the locale without the plane: the failure text and the over-budget reply', async () => {
    const pipeline = await startTestPipeline({ locale, customerBudget: { turnsPerMinute: 1 } });
    try {
      const failing = newCustomer();
      await pipeline.sendCustomerMessage(failing, 'Break #falha');
      await waitUntil(() => textsTo(pipeline, failing).length === 1, 15_000, 'the failure text');
      expect(textsTo(pipeline, failing)).toEqual([texts.turnFailed]);

      const busy = newCustomer();
      await pipeline.sendCustomerMessage(busy, 'One');
      await waitUntil(() => textsTo(pipeline, busy).length === 1, 10_000, 'the first reply');
      await pipeline.sendCustomerMessage(busy, 'Two');
      await waitUntil(() => textsTo(pipeline, busy).length === 2, 10_000, 'the over-budget reply');
      expect(textsTo(pipeline, busy)).toEqual([scripted('One', 1), texts.customerOverBudgetReply]);

      expect(portugueseFragmentsIn(everythingSent(pipeline))).toEqual([]);
    } finally {
      await pipeline.stop();
    }
  });
});
