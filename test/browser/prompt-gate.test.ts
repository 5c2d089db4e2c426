// The prompt gate in headless Chromium against the local pipeline, with the fake Converse model that
// follows its prompt's handoff instruction: an admin stores the shipped scenario of the customer who
// asks for a person, drafts a prompt without the handoff sentence, runs the suite, sees the scenario
// pass on the current version and fail on the draft, is refused publishing, publishes with a written
// reason the audit keeps; a draft that passes publishes without one. The scenarios screen refuses a
// scenario off the format with the server's problems, and stores nothing; a conversation turns into
// a scenario the admin completes and saves.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { DEFAULT_SYSTEM_PROMPT } from '../../lib/contract/defaults';
import { FakeConverseModel } from '../../local/fake-bedrock/fake-converse-model';
import { instructedToolCall } from '../../local/fake-bedrock/instructed-tool-calls';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { accessibilityViolations } from '../support/accessibility';
import { ConsoleBrowser, openAdminScreen, screenshot, signInFromWhatsApp, unnamedControls } from '../support/console-browser';
import { tableRepositories } from '../support/dynamo-table';
import { newCustomer, newOperatorPhone } from '../support/ids';
import { startOperatorPipeline } from '../support/pipeline';

jest.setTimeout(120_000);

const SHIPPED_SCENARIO = readFileSync(path.resolve(__dirname, '..', '..', 'evaluation', 'scenarios', 'asks-for-a-person.json'), 'utf8');
const WITHOUT_HANDOFF = DEFAULT_SYSTEM_PROMPT.replace(/Hand the conversation to a human[^.]*\./, '').trim();
/** Runs of a suite of one scenario, played twice on the fake model, take seconds. */
const RUN_WAIT_MS = 60_000;

let pipeline: LocalPipeline;
let browser: ConsoleBrowser;
let page: Page;
let repositories: ReturnType<typeof tableRepositories>;
const admin = newOperatorPhone();

/** The suite as the operator API lists it, read with the admin's session. */
async function storedSuite(): Promise<readonly { readonly id: string }[]> {
  return page.evaluate<readonly { readonly id: string }[]>("fetch('/api/admin/scenarios').then((answer) => answer.json()).then((suite) => suite.items)");
}

beforeAll(async () => {
  const model = new FakeConverseModel({ toolCall: instructedToolCall });
  [pipeline, browser] = await Promise.all([startOperatorPipeline([admin], { bedrockAgent: { converse: model.converse }, turnSettings: { promptCacheMs: 0 } }), ConsoleBrowser.launch()]);
  repositories = tableRepositories(pipeline.tableName, pipeline.keyLayout);
  page = await browser.openPage();
  await signInFromWhatsApp(pipeline, page, admin);
});

afterAll(async () => {
  await browser?.close();
  await pipeline?.stop();
});

describe('the scenario suite', () => {
  it("refuses a scenario off the format with every problem the server found, and stores nothing", async () => {
    expect(WITHOUT_HANDOFF).not.toBe(DEFAULT_SYSTEM_PROMPT);
    await openAdminScreen(page, 'Cenários');
    await page.getByText('Nenhum cenário ainda: publicar um prompt não passa por rodada.').waitFor();
    await page.getByRole('button', { name: 'Adicionar cenário' }).click();
    const editor = page.getByRole('form', { name: 'Novo cenário' });
    await editor.getByRole('textbox', { name: 'Id do cenário na suíte' }).fill('greets');
    const json = editor.getByRole('textbox', { name: 'Cenário (JSON)' });

    await json.fill('{"formatVersion": 1, "name": "greets",');
    await editor.getByRole('button', { name: 'Salvar cenário' }).click();
    await editor.getByRole('alert').filter({ hasText: 'O texto não é um objeto JSON' }).waitFor();

    await json.fill(JSON.stringify({ formatVersion: 2, name: 'greets', turns: [{ customer: { text: 'Oi' }, expect: { reply: { startsWith: 'Olá' } } }] }));
    await editor.getByRole('button', { name: 'Salvar cenário' }).click();
    const refusal = editor.getByRole('alert').filter({ hasText: 'O cenário foi recusado; nada foi salvo.' });
    await refusal.getByRole('listitem').filter({ hasText: 'startsWith' }).waitFor();
    const problems = await refusal.getByRole('listitem').allTextContents();
    // One line per problem: the format's version and the unknown field, both named.
    expect(problems.length).toBeGreaterThanOrEqual(2);
    expect(problems.some((line) => line.includes('formatVersion'))).toBe(true);
    expect(problems.some((line) => line.includes('startsWith'))).toBe(true);
    expect(await storedSuite()).toEqual([]);
    expect(await accessibilityViolations(page)).toEqual([]);
    await editor.getByRole('button', { name: 'Cancelar' }).click();
  });

  it('stores the shipped scenario of the customer who asks for a person', async () => {
    await page.getByRole('button', { name: 'Adicionar cenário' }).click();
    const editor = page.getByRole('form', { name: 'Novo cenário' });
    await editor.getByRole('textbox', { name: 'Id do cenário na suíte' }).fill('asks-for-a-person');
    await editor.getByRole('textbox', { name: 'Cenário (JSON)' }).fill(SHIPPED_SCENARIO);
    await editor.getByRole('button', { name: 'Salvar cenário' }).click();
    await page.getByRole('status').filter({ hasText: 'Cenário asks-for-a-person salvo (versão 1).' }).waitFor();
    const suite = page.getByRole('table', { name: 'Suíte de cenários (1)' });
    await suite.getByRole('rowheader', { name: 'asks-for-a-person' }).waitFor();
    expect(await suite.textContent()).toContain('A customer who asks for a person is handed to people, and only then.');
    expect((await storedSuite()).map((scenario) => scenario.id)).toEqual(['asks-for-a-person']);
    expect(await unnamedControls(page)).toEqual([]);
  });
});

describe('a draft of the prompt', () => {
  it('without the handoff sentence is refused publishing before a run, and a run shows the regression beside the current version', async () => {
    await openAdminScreen(page, 'Prompts');
    await page.getByText('A suíte tem 1 cenário(s): cada rodada joga todos na versão atual e no rascunho.').waitFor();
    await page.getByRole('textbox', { name: 'Conteúdo do prompt system' }).fill(WITHOUT_HANDOFF);
    await page.getByRole('button', { name: 'Salvar rascunho' }).click();
    await page.getByRole('status').filter({ hasText: 'Rascunho 1 salvo' }).waitFor();
    // The draft beside what answers customers now, as a diff: the handoff sentence is what it removes.
    const diff = page.getByRole('region', { name: 'Rascunho 1 em relação ao prompt em vigor (sem versão ainda)' });
    await diff.waitFor();
    expect((await diff.locator('.diff-removed').allTextContents()).join('')).toContain('Hand the conversation to a human');
    await page.getByText(/^Este rascunho ainda não rodou os cenários contra a versão atual/).waitFor();

    await page.getByRole('button', { name: 'Publicar o rascunho 1' }).click();
    const dialog = page.getByRole('dialog', { name: 'Publicar o rascunho 1 mesmo assim?' });
    await dialog.getByText(/^O rascunho não tem uma rodada dos cenários terminada/).waitFor();
    await dialog.getByRole('button', { name: 'Cancelar' }).click();
    expect(await repositories.resources.getCurrent('prompt', 'system')).toBeUndefined();

    await page.getByRole('button', { name: 'Rodar os cenários' }).click();
    const progress = page.locator('.evaluation-progress');
    expect(await progress.getAttribute('aria-live')).toBe('polite');
    await progress.filter({ hasText: 'Rodada terminada: o rascunho passou em 0 de 1, a versão atual em 1 de 1; regressões: 1.' }).waitFor({ timeout: RUN_WAIT_MS });
    const table = page.getByRole('table', { name: 'Cenários: Prompt da implantação e rascunho 1' });
    expect(await table.getByRole('columnheader').allTextContents()).toEqual(['Cenário', 'Prompt da implantação', 'Rascunho 1']);
    const row = table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: /^asks-for-a-person/ }) });
    expect(await row.getByRole('rowheader').textContent()).toBe('asks-for-a-personRegressão');
    const [current, draft] = await row.getByRole('cell').all();
    expect(await current.textContent()).toBe('Passou');
    expect(await draft.getByRole('listitem').allTextContents()).toEqual(['turn 2: toolsCalled: request_human_handoff was not called (called: update_qualification)', 'turn 2: handoff: the conversation did not go to people']);
    expect(await page.locator('.evaluation-usage').textContent()).toMatch(/^Tokens da rodada: \d+ de entrada, \d+ de saída · custo estimado US\$/);
    await page.getByText('A última rodada achou regressões (asks-for-a-person): publicar exige uma exceção justificada.').waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'prompt-gate-desktop');
  });

  it('is refused for its regression, and publishes with a written reason that the audit keeps', async () => {
    await page.getByRole('button', { name: 'Publicar o rascunho 1' }).click();
    const dialog = page.getByRole('dialog', { name: 'Publicar o rascunho 1 mesmo assim?' });
    await dialog.getByText('O rascunho falha em cenários que a versão atual passa: asks-for-a-person.', { exact: false }).waitFor();
    const confirm = dialog.getByRole('button', { name: 'Publicar com este motivo' });
    expect(await confirm.isDisabled()).toBe(true);
    const reason = 'A equipe de atendimento está de folga hoje; volta amanhã.';
    await dialog.getByRole('textbox', { name: 'Motivo da exceção (registrado na auditoria)' }).fill(reason);
    expect(await confirm.isDisabled()).toBe(false);
    expect(await accessibilityViolations(page)).toEqual([]);
    await confirm.click();
    await page.getByRole('status').filter({ hasText: 'Rascunho 1 publicado como versão 1.' }).waitFor();
    await page.getByText('Versão atual: 1').waitFor();
    expect(await repositories.resources.getCurrent('prompt', 'system')).toMatchObject({ version: 1, content: WITHOUT_HANDOFF });

    const published = (await repositories.audit.listRecent({ limit: 20 })).items.filter((event) => event.action === 'prompt.publish');
    expect(published).toHaveLength(1);
    expect(JSON.stringify(published[0].details)).toContain(reason);
    expect(JSON.stringify(published[0].details)).toContain('asks-for-a-person');
    await openAdminScreen(page, 'Auditoria');
    const audit = page.getByRole('table', { name: 'Registro de auditoria' });
    await audit.getByText(reason, { exact: false }).waitFor();
  });

  it('that passes every scenario the current version passes publishes without an override', async () => {
    await openAdminScreen(page, 'Prompts');
    await page.getByRole('textbox', { name: 'Conteúdo do prompt system' }).fill(DEFAULT_SYSTEM_PROMPT);
    await page.getByRole('button', { name: 'Salvar rascunho' }).click();
    // Publishing kept draft 1 as history under the draft's next version: this save is the one after it.
    await page.getByRole('status').filter({ hasText: 'Rascunho 3 salvo' }).waitFor();
    await page.getByRole('button', { name: 'Rodar os cenários' }).click();
    await page.locator('.evaluation-progress').filter({ hasText: 'Rodada terminada: o rascunho passou em 1 de 1, a versão atual em 0 de 1; regressões: 0.' }).waitFor({ timeout: RUN_WAIT_MS });
    await page.getByText('A última rodada não achou regressões: pode publicar.').waitFor();
    // Both runs are listed, the newest first.
    expect(await page.locator('.evaluation-runs li').allTextContents()).toEqual([expect.stringContaining('rascunho 3 contra Versão 1 · terminada'), expect.stringContaining('rascunho 1 contra Prompt da implantação · terminada')]);

    await page.getByRole('button', { name: 'Publicar o rascunho 3' }).click();
    await page.getByRole('status').filter({ hasText: 'Rascunho 3 publicado como versão 2.' }).waitFor();
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect(await repositories.resources.getCurrent('prompt', 'system')).toMatchObject({ version: 2, content: DEFAULT_SYSTEM_PROMPT });
    const published = (await repositories.audit.listRecent({ limit: 20 })).items.filter((event) => event.action === 'prompt.publish');
    expect(published).toHaveLength(2);
  });
});

describe('a conversation', () => {
  it("turns into a scenario the admin completes and saves: the customer's turns, without their name or number", async () => {
    const customer = newCustomer();
    await pipeline.sendCustomerMessage(customer, `Oi, sou a Joana Prado, meu número é ${customer}`, { profileName: 'Joana Prado' });
    await pipeline.waitForIdle();
    await pipeline.sendCustomerMessage(customer, 'Prefiro falar com uma pessoa, por favor.', { profileName: 'Joana Prado' });
    await pipeline.waitForIdle();
    await page.evaluate(`location.hash = '#/conversations/${customer}'`);
    await page.getByRole('button', { name: 'Transformar em cenário' }).click();

    const editor = page.getByRole('form', { name: 'Novo cenário' });
    const json = editor.getByRole('textbox', { name: 'Cenário (JSON)' });
    await json.waitFor();
    expect(page.url()).toMatch(/#\/admin\/scenarios$/);
    const id = await editor.getByRole('textbox', { name: 'Id do cenário na suíte' }).inputValue();
    const drafted = JSON.parse(await json.inputValue()) as { turns: { customer: { text?: string }; expect?: object }[] };
    expect(drafted.turns.map((turn) => turn.customer.text)).toEqual([expect.stringMatching(/^Oi, sou a \[name\], meu número é \[phone\]$/), 'Prefiro falar com uma pessoa, por favor.']);
    expect(await json.inputValue()).not.toMatch(new RegExp(`Joana|Prado|${customer}`));

    // The admin writes what the second turn must do, and saves it to the suite.
    drafted.turns[1].expect = { toolsCalled: [{ name: 'request_human_handoff' }], handoff: true };
    await json.fill(JSON.stringify(drafted, null, 2));
    await editor.getByRole('button', { name: 'Salvar cenário' }).click();
    await page.getByRole('status').filter({ hasText: `Cenário ${id} salvo (versão 1).` }).waitFor();
    expect((await storedSuite()).map((scenario) => scenario.id)).toContain(id);
    expect((await repositories.audit.listRecent({ limit: 20 })).items.filter((event) => event.action === 'conversation.scenario')).toHaveLength(1);
  });
});
