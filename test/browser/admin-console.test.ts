// The admin screens of the console in headless Chromium against the local pipeline: the prompt the
// agent answers with (edit, history, diff, rollback, a stale edit explained), operators, settings,
// the agent's usage and the handoffs by day, the price table, the dead-letter queue, the CRM sync problems, one customer's data
// exported and erased.
import { readFileSync } from 'node:fs';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { Page } from 'playwright-core';
import { DEFAULT_SYSTEM_PROMPT } from '../../lib/contract/defaults';
import { ScriptedAgent } from '../../lambda/core/adapters/agent/scripted-agent';
import { KeyLayout } from '../../lib/contract/key-layout';
import { crmSyncToItem } from '../../lambda/core/adapters/dynamodb/codecs/crm-sync-codec';
import type { Message } from '../../lambda/core/domain/message';
import { utcDay } from '../../lambda/core/domain/timestamps';
import type { AgentPort, AgentRequest, AgentResponse } from '../../lambda/core/ports/agent';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { newCustomer, newOperatorPhone } from '../support/ids';
import { waitUntil } from '../support/waiting';
import { startOperatorPipeline } from '../support/pipeline';
import { tableRepositories } from '../support/dynamo-table';
import { ConsoleBrowser, openAdminScreen, PHONE, screenshot, signInFromWhatsApp, unnamedControls } from '../support/console-browser';

jest.setTimeout(90_000);

/** The scripted agent, with the first line of the system prompt it was given in front of each answer. */
class PromptEchoAgent implements AgentPort {
  private readonly scripted = new ScriptedAgent();

  async respond(request: AgentRequest): Promise<AgentResponse> {
    const answer = await this.scripted.respond(request);
    return { ...answer, reply: `[${request.systemPrompt.split('\n')[0]}] ${answer.reply}` };
  }
}

/**
 * Saves `content` as the prompt's draft and publishes it: the deployment's scenario suite is empty,
 * so the gate asks for no run.
 */
async function publishPrompt(page: Page, id: string, content: string, { draft, version }: { readonly draft: number; readonly version: number }): Promise<void> {
  await page.getByRole('textbox', { name: `Conteúdo do prompt ${id}` }).fill(content);
  await page.getByRole('button', { name: 'Salvar rascunho' }).click();
  await page.getByRole('status').filter({ hasText: `Rascunho ${draft} salvo` }).waitFor();
  await page.getByText('A suíte de cenários está vazia: publicar não precisa de uma rodada.').waitFor();
  await page.getByRole('button', { name: `Publicar o rascunho ${draft}` }).click();
  await page.getByRole('status').filter({ hasText: `Rascunho ${draft} publicado como versão ${version}.` }).waitFor();
}

let pipeline: LocalPipeline;
let browser: ConsoleBrowser;
const admin = newOperatorPhone();
/** An operator (not an admin), in the operators setting from the start. */
const dora = newOperatorPhone();
const customer = newCustomer();
let repositories: ReturnType<typeof tableRepositories>;


/** The customer writes; resolves with the agent's answer as WhatsApp received it. */
async function agentAnswerTo(text: string): Promise<string> {
  const before = pipeline.fakeWhatsApp.sent().length;
  await pipeline.sendCustomerMessage(customer, text);
  let answer: string | undefined;
  await waitUntil(
    () => (answer = pipeline.fakeWhatsApp.sent().slice(before).find((message) => message.recipient === customer)?.text) !== undefined,
    15_000,
    'the agent answer',
  );
  return answer!;
}

beforeAll(async () => {
  [pipeline, browser] = await Promise.all([
    // Prompts are read on every turn here, so the very next answer shows an edit; CRM sync is on for the CRM screen.
    startOperatorPipeline([admin], { agent: new PromptEchoAgent(), turnSettings: { promptCacheMs: 0 }, crmSync: {} }),
    ConsoleBrowser.launch(),
  ]);
  repositories = tableRepositories(pipeline.tableName, pipeline.keyLayout);
  await repositories.config.set({ key: 'operators', value: { [dora]: { role: 'operator', name: 'Dora' } }, author: admin }, { expectedVersion: 0 });
});

afterAll(async () => {
  await browser?.close();
  await pipeline?.stop();
});

describe('an admin tuning the agent', () => {
  let page: Page;

  it('writes the first version of the prompt and the next agent turn uses it', async () => {
    page = await browser.openPage();
    await signInFromWhatsApp(pipeline, page, admin);
    await openAdminScreen(page, 'Prompts');
    // Before any version the screen shows what the agent runs on: the default, where the history starts.
    await page.getByText(/^Ainda sem versões: o agente responde com o prompt da implantação/).waitFor();
    const start = page.getByRole('listitem').filter({ hasText: 'Início do histórico' });
    expect(await start.getAttribute('aria-current')).toBe('true');
    expect(await start.locator('pre').textContent()).toBe(DEFAULT_SYSTEM_PROMPT);
    await publishPrompt(page, 'system', 'Você é a assistente da Clínica Aurora.\nSeja breve.', { draft: 1, version: 1 });
    expect(await agentAnswerTo('Oi')).toMatch(/^\[Você é a assistente da Clínica Aurora\.\] Olá! Recebi: Oi/);
  });

  it('edits it, compares the versions and sees the change as a diff', async () => {
    await publishPrompt(page, 'system', 'Você é o assistente da Clínica Boreal.\nSeja breve.', { draft: 3, version: 2 });
    await page.getByText('Versão atual: 2').waitFor();
    expect(await agentAnswerTo('Tudo bem?')).toMatch(/^\[Você é o assistente da Clínica Boreal\.\]/);

    await page.getByRole('button', { name: 'Comparar a versão 1 com a atual' }).click();
    const diff = page.getByRole('region', { name: 'Diferenças: versão 1 → atual (2)' });
    await diff.waitFor();
    expect(await diff.locator('.diff-removed').allTextContents()).toEqual(['- Você é a assistente da Clínica Aurora.\n']);
    expect(await diff.locator('.diff-added').allTextContents()).toEqual(['+ Você é o assistente da Clínica Boreal.\n']);
    // The current version is marked; each version shows what it changed against the one before.
    expect(await page.locator('li[aria-current="true"]').textContent()).toMatch(/^Versão 2 atual · /);
    await page.getByRole('button', { name: 'Ver o que mudou na versão 1' }).click();
    const first = page.getByRole('region', { name: 'Mudanças da versão 1 (em relação ao prompt padrão)' });
    expect(await first.locator('.diff-added').allTextContents()).toEqual(['+ Você é a assistente da Clínica Aurora.\n', '+ Seja breve.\n']);
    await page.getByRole('button', { name: 'Ver o que mudou na versão 2' }).click();
    const second = page.getByRole('region', { name: 'Mudanças da versão 2 (em relação à versão 1)' });
    expect(await second.locator('.diff-removed').allTextContents()).toEqual(['- Você é a assistente da Clínica Aurora.\n']);
    expect(await unnamedControls(page)).toEqual([]);
    await screenshot(page, 'prompts-desktop');
  });

  it('is told in words when someone saved a newer version meanwhile, then rolls back', async () => {
    const other = await browser.openPage();
    await signInFromWhatsApp(pipeline, other, admin);
    await openAdminScreen(other, 'Prompts');
    await other.getByText('Versão atual: 2').waitFor();
    // A draft written on version 2, published only after someone restored version 1 as version 3.
    await other.getByRole('textbox', { name: 'Conteúdo do prompt system' }).fill('Uma edição feita sobre a versão 2.');
    await other.getByRole('button', { name: 'Salvar rascunho' }).click();
    await other.getByRole('status').filter({ hasText: 'Rascunho 5 salvo' }).waitFor();

    await page.getByRole('button', { name: 'Restaurar a versão 1' }).click();
    await page.getByRole('status').filter({ hasText: 'Versão 1 restaurada como versão 3.' }).waitFor();
    expect(await agentAnswerTo('E agora?')).toMatch(/^\[Você é a assistente da Clínica Aurora\.\]/);

    await other.getByRole('button', { name: 'Publicar o rascunho 5' }).click();
    const alert = other.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe(
      'Outra pessoa salvou uma versão nova deste prompt enquanto você editava. Recarregue para ver a versão atual e refaça sua mudança nela.',
    );
    expect(await agentAnswerTo('Ainda aí?')).toMatch(/^\[Você é a assistente da Clínica Aurora\.\]/);
  });

  it("opens a stage's prompt by the stage's name and writes its first version", async () => {
    await page.getByRole('button', { name: 'Abrir o prompt da etapa' }).waitFor();
    expect(await page.getByRole('button', { name: 'Abrir o prompt da etapa' }).isDisabled()).toBe(true);
    await page.getByRole('textbox', { name: 'Prompt de uma etapa (nome da etapa)' }).fill('Cadastro!');
    expect(await page.getByRole('button', { name: 'Abrir o prompt da etapa' }).isDisabled()).toBe(true);
    await page.getByRole('textbox', { name: 'Prompt de uma etapa (nome da etapa)' }).fill('cadastro');
    await page.getByRole('button', { name: 'Abrir o prompt da etapa' }).click();
    await publishPrompt(page, 'system.cadastro', 'Colete o cadastro do cliente.', { draft: 1, version: 1 });
    expect(await repositories.resources.getCurrent('prompt', 'system.cadastro')).toMatchObject({ version: 1, content: 'Colete o cadastro do cliente.' });
    expect(await page.getByRole('button', { name: 'Editar o prompt system.cadastro' }).getAttribute('aria-pressed')).toBe('true');
  });

  it('adds an operator, changes the role and removes them after a confirmation', async () => {
    const carla = newOperatorPhone();
    await openAdminScreen(page, 'Operadores');
    await page.getByRole('combobox', { name: `Papel de Dora (${dora})` }).waitFor();
    // The deployment's admin is listed too, apart: only a deployment changes her role.
    const deployment = page.getByRole('region', { name: 'Administradores da implantação' });
    await deployment.getByText(admin, { exact: true }).waitFor();
    expect(await deployment.getByRole('button').count()).toBe(0);
    await page.getByRole('textbox', { name: 'Telefone (só dígitos)' }).fill(carla);
    await page.getByRole('textbox', { name: 'Nome' }).fill('Carla');
    await page.getByRole('button', { name: 'Adicionar operador' }).click();
    await page.getByRole('status').filter({ hasText: /^Lista de operadores salva/ }).waitFor();
    const role = page.getByRole('combobox', { name: `Papel de Carla (${carla})` });
    expect(await role.inputValue()).toBe('operator');

    await role.selectOption('admin');
    // The screen saves one change at a time: Remove waits (disabled) until the role is stored.
    await page.getByRole('button', { name: `Remover Carla (${carla})` }).click();
    // Nothing is removed until the removal is confirmed; cancelling keeps her.
    await page.getByRole('button', { name: 'Cancelar' }).click();
    expect(Object.keys((await repositories.config.get('operators'))!.value as object)).toContain(carla);
    await page.getByRole('button', { name: `Remover Carla (${carla})` }).click();
    const confirm = page.getByRole('button', { name: `Sim, remover Carla (${carla})` });
    // The confirmation takes the focus: Enter confirms, Tab reaches Cancel.
    await confirm.waitFor();
    expect(await page.evaluate('document.activeElement.textContent')).toBe(`Sim, remover Carla (${carla})`);
    await confirm.click();
    await page.getByRole('button', { name: `Remover Carla (${carla})` }).waitFor({ state: 'detached' });
    const stored = await repositories.config.get('operators');
    expect(Object.keys(stored!.value as object)).toEqual([dora]);
    const audited = (await repositories.audit.listRecent({ limit: 10 })).items.filter((event) => event.action === 'config.update');
    expect(audited.map((event) => event.details)).toEqual(
      expect.arrayContaining([expect.objectContaining({ added: [carla] }), expect.objectContaining({ added: [], removed: [] }), expect.objectContaining({ removed: [carla] })]),
    );
  });

  it('shows an operator (not an admin) no admin screens', async () => {
    const phone = await browser.openPage(PHONE);
    await signInFromWhatsApp(pipeline, phone, dora);
    await phone.getByRole('heading', { name: 'Caixa de entrada' }).waitFor();
    // Hidden ones too: on a phone the sections are folded behind the menu button.
    expect(await phone.getByRole('link', { name: 'Prompts', includeHidden: true }).count()).toBe(0);
    await phone.goto(`${pipeline.consoleUrl}/#/admin/prompts`);
    await phone.getByRole('heading', { name: 'Caixa de entrada' }).waitFor();
  });

  it('edits each setting in its own typed form, refused in the console\'s language when out of bounds', async () => {
    await openAdminScreen(page, 'Configuração');
    const ttl = page.getByRole('region', { name: 'Duração da disponibilidade' });
    await ttl.getByText('De 1 a 168 horas; sem valor, 24 horas.', { exact: false }).waitFor();
    const hours = ttl.getByRole('spinbutton', { name: 'Horas' });
    await hours.fill('500');
    await ttl.getByRole('button', { name: 'Salvar: Duração da disponibilidade' }).click();
    await ttl.getByRole('alert').filter({ hasText: 'Use um número inteiro de 1 a 168.' }).waitFor();
    expect(await repositories.config.get('availability_ttl_hours')).toBeUndefined();
    await hours.fill('12');
    await ttl.getByRole('button', { name: 'Salvar: Duração da disponibilidade' }).click();
    await ttl.getByRole('status').filter({ hasText: 'Duração da disponibilidade: salvo.' }).waitFor();
    expect((await repositories.config.get('availability_ttl_hours'))?.value).toBe(12);

    const texts = page.getByRole('region', { name: 'Textos da passagem para pessoas' });
    const notification = texts.getByRole('textbox', { name: /^Aos operadores, sobre uma conversa esperando/ });
    await notification.fill('Abra {link} e atenda {name}');
    await texts.getByRole('button', { name: 'Salvar: Textos da passagem para pessoas' }).click();
    await texts.getByRole('alert').filter({ hasText: 'O link do console vai no fim: coloque {link} no final do texto, ou tire-o.' }).waitFor();
    expect(await repositories.config.get('handoff_texts')).toBeUndefined();
    await notification.fill('Atenda {name}: {link}');
    await texts.getByRole('textbox', { name: 'Ao cliente, quando o agente não conseguiu responder' }).fill('Já volto com uma pessoa.');
    await texts.getByRole('button', { name: 'Salvar: Textos da passagem para pessoas' }).click();
    await texts.getByRole('status').filter({ hasText: 'Textos da passagem para pessoas: salvo.' }).waitFor();
    // Only the texts written are stored: the others stay the deployment's.
    expect((await repositories.config.get('handoff_texts'))?.value).toEqual({ operatorNotification: 'Atenda {name}: {link}', fallback: 'Já volto com uma pessoa.' });
    await page.getByRole('region', { name: 'Modelo do aviso aos operadores' }).getByText('Nenhum modelo aprovado que leve no máximo o nome do cliente ainda: sincronize na tela Modelos.').waitFor();
    expect(await page.locator('textarea').filter({ hasText: '{"' }).count()).toBe(0);
    expect(await unnamedControls(page)).toEqual([]);
  });

  it('reads the audit of what was done', async () => {
    await openAdminScreen(page, 'Auditoria');
    const table = page.getByRole('table', { name: 'Registro de auditoria' });
    await table.waitFor();
    const text = await table.textContent();
    // Actions in words, headers in the console's language, times local and to the minute.
    for (const action of ['Salvou um rascunho de prompt', 'Publicou um rascunho de prompt', 'Voltou um prompt a uma versão anterior', 'Mudou uma configuração']) expect(text).toContain(action);
    expect(text).not.toMatch(/prompt\.(draft|publish)|config\.update|\d{2}:\d{2}:\d{2}\.\d+/);
    expect(await table.getByRole('columnheader').allTextContents()).toEqual(['Quando', 'Quem', 'O que', 'Sobre', 'Detalhes']);
    expect(await table.getByRole('row').nth(1).getByRole('cell').first().textContent()).toMatch(/^\d{2}\/\d{2}\/\d{4}, \d{2}:\d{2}$/);
    await screenshot(page, 'audit-desktop');
  });

  it('reads what the agent answered and the tokens it used, day by day, for a period it chooses', async () => {
    const day = utcDay(new Date(Date.now() - 2 * 86_400_000));
    const reply = (messageId: string, inputTokens: number, outputTokens: number, metaPricing?: Message['metaPricing']): Message => ({
      customerId: newCustomer(),
      sessionId: 'report',
      messageId,
      direction: 'outbound',
      role: 'assistant',
      text: 'Olá!',
      timestamp: `${day}T12:00:00Z`,
      deliveryStatus: 'sent',
      llm: { model: 'model-a', inputTokens, outputTokens },
      ...(metaPricing && { metaPricing }),
    });
    // Meta billed the first reply as a service message of a Brazilian number: US$ 0.0068 in the rate table.
    await repositories.messages.append(reply('report-1', 1200, 300, { billable: true, category: 'service', type: 'regular', pricingModel: 'PMP' }));
    await repositories.messages.append(reply('report-2', 800, 100));
    await repositories.config.set({ key: 'model_prices', value: { 'model-a': { input: 3, output: 15 } }, author: admin });

    await openAdminScreen(page, 'Relatórios');
    const table = page.getByRole('table', { name: 'Uso do agente por dia (UTC)' });
    await table.waitFor();
    // The last week by default: a row per day, and the total.
    expect(await table.locator('tbody').getByRole('row').count()).toBe(7);
    const row = table.getByRole('row', { name: new RegExp(`^${day}`) });
    await row.waitFor();
    const cells = await row.getByRole('cell').allTextContents();
    expect([...cells.slice(0, 3), ...cells.slice(6)]).toEqual(['2', '2.000', '400', 'model-a: 2 resp., 2.000 / 400 tokens']);
    // model-a is priced by the admin's setting: (2,000 × 3 + 400 × 15) / 1,000,000 dollars, an estimate.
    expect(cells[3]).toMatch(/^≈ US\$\s0,012$/);
    expect(cells[4]).toMatch(/^≈ US\$\s0,0068$/);
    // AWS: two replies' measured usage at list prices (their model's wait not recorded), US$ 0.00006, shown to four places.
    expect(cells[5]).toMatch(/^≈ US\$\s0,0001$/);
    // The same day at a glance: a bar of the model's part under Meta's and AWS's, and the period's parts in words
    // (the period's AWS counts the replies the earlier tests' conversations got too).
    const chart = page.getByRole('img', { name: /^Custo estimado por dia \(UTC\), em US\$ No período: tokens do modelo US\$\s0,012, tarifas da Meta US\$\s0,0068, AWS US\$\s0,\d{4}\./ });
    await chart.waitFor();
    const bar = chart.locator(`g[data-day="${day}"] rect`);
    expect(await bar.evaluateAll((rects) => rects.map((rect) => Number(rect.getAttribute('height')) > 0))).toEqual([true, true, true]);
    await page.getByText('Tarifas da Meta: US$').waitFor();
    await page.getByText('AWS (estimativa): US$').waitFor();
    await page.getByText(/^Todo custo é uma estimativa/).waitFor();

    await page.getByLabel('De (UTC)').fill(day);
    await page.getByLabel('Até (UTC)').fill(day);
    await page.getByRole('button', { name: 'Mostrar' }).click();
    // The week's rows go, and the table comes back with the chosen day only.
    await table.locator('tbody').getByRole('row').nth(1).waitFor({ state: 'detached' });
    await table.getByRole('row', { name: /^Total/ }).waitFor();
    expect(await table.getByRole('rowheader').allTextContents()).toEqual([day, 'Total']);
    expect(await table.getByRole('row', { name: /^Total/ }).getByRole('cell').first().textContent()).toBe('2');
    expect(await unnamedControls(page)).toEqual([]);
  });

  it('reports the handoffs of each day beside the usage, in Portuguese and in English, for the last 7, 14 or 30 days', async () => {
    const day = utcDay(new Date(Date.now() - 86_400_000));
    // One handoff claimed 3 minutes on and answered 2 minutes later, one nobody claimed.
    const answered = { sessionId: 'report-answered', handoffRequestedAt: `${day}T10:00:00.000000Z` };
    await repositories.handoffReport.recordStep(answered, { step: 'claimed', at: `${day}T10:03:00.000000Z` });
    await repositories.handoffReport.recordStep(answered, { step: 'firstReply', at: `${day}T10:05:00.000000Z` });
    await repositories.handoffReport.recordStep({ sessionId: 'report-waiting', handoffRequestedAt: `${day}T11:00:00.000000Z` });

    await openAdminScreen(page, 'Auditoria');
    await openAdminScreen(page, 'Relatórios');
    const table = page.getByRole('table', { name: 'Encaminhamentos para pessoas por dia (UTC)' });
    await table.waitFor();
    expect(await table.getByRole('columnheader').allTextContents()).toEqual([
      'Dia',
      'Encaminhamentos',
      'Assumidos',
      'Sem ninguém assumir',
      'Tempo mediano até assumir',
      'Tempo mediano até a primeira resposta de uma pessoa',
    ]);
    expect(await table.getByRole('row', { name: new RegExp(`^${day}`) }).getByRole('cell').allTextContents()).toEqual(['2', '1', '1', '3 min', '5 min']);
    expect(await table.locator('tbody').getByRole('row').count()).toBe(7);

    await page.getByRole('combobox', { name: 'Período' }).selectOption({ label: 'Últimos 14 dias' });
    await table.locator('tbody').getByRole('row').nth(13).waitFor();
    expect(await page.getByRole('table', { name: 'Uso do agente por dia (UTC)' }).locator('tbody').getByRole('row').count()).toBe(14);
    await page.getByRole('combobox', { name: 'Período' }).selectOption({ label: 'Últimos 30 dias' });
    await table.locator('tbody').getByRole('row').nth(29).waitFor();
    expect(await unnamedControls(page)).toEqual([]);

    await page.getByRole('button', { name: 'English' }).click();
    const english = page.getByRole('table', { name: 'Handoffs to people by day (UTC)' });
    await english.waitFor();
    expect(await english.getByRole('columnheader').allTextContents()).toEqual(['Day', 'Handoffs', 'Claimed', 'Never claimed', 'Median time to claim', 'Median time to the first human reply']);
    expect(await english.getByRole('row', { name: /^Total/ }).getByRole('cell').allTextContents()).toEqual(['2', '1', '1', '3 min', '5 min']);
    await page.getByRole('combobox', { name: 'Period' }).selectOption({ label: 'Last 7 days' });
    await english.locator('tbody').getByRole('row').nth(7).waitFor({ state: 'detached' });
    await screenshot(page, 'reports-desktop');
    await page.getByRole('button', { name: 'Português' }).click();
    await table.waitFor();
  });

  it('edits the price table as a form of models and prices, refused in the console\'s language', async () => {
    await openAdminScreen(page, 'Configuração');
    const prices = page.getByRole('region', { name: 'Preços dos modelos' });
    // The setting the usage report was priced with, as a row.
    const modelA = prices.getByRole('group', { name: 'Preço de model-a' });
    expect(await modelA.getByRole('textbox', { name: 'Entrada (US$ por milhão de tokens)' }).inputValue()).toBe('3');
    expect(await modelA.getByRole('textbox', { name: 'Saída (US$ por milhão de tokens)' }).inputValue()).toBe('15');

    await prices.getByRole('button', { name: 'Adicionar modelo' }).click();
    const added = prices.getByRole('group', { name: 'Preço de 2' });
    await added.getByRole('textbox', { name: 'Modelo (id ou parte dele)' }).fill('amazon.nova-micro');
    const micro = prices.getByRole('group', { name: 'Preço de amazon.nova-micro' });
    await micro.getByRole('textbox', { name: 'Entrada (US$ por milhão de tokens)' }).fill('-1');
    await micro.getByRole('textbox', { name: 'Saída (US$ por milhão de tokens)' }).fill('0,16');
    const save = prices.getByRole('button', { name: 'Salvar: Preços dos modelos' });
    await save.click();
    await prices.getByRole('alert').filter({ hasText: 'Cada preço é em dólares americanos por milhão de tokens, de 0 a 1000 (pode ter decimais).' }).waitFor();
    await micro.getByRole('textbox', { name: 'Modelo (id ou parte dele)' }).fill('model-a');
    await prices.getByRole('group', { name: 'Preço de model-a' }).nth(1).getByRole('textbox', { name: 'Entrada (US$ por milhão de tokens)' }).fill('0,04');
    await save.click();
    await prices.getByRole('alert').filter({ hasText: 'model-a aparece mais de uma vez: deixe uma linha por modelo.' }).waitFor();
    expect((await repositories.config.get('model_prices'))?.value).toEqual({ 'model-a': { input: 3, output: 15 } });

    await prices.getByRole('group', { name: 'Preço de model-a' }).nth(1).getByRole('textbox', { name: 'Modelo (id ou parte dele)' }).fill('amazon.nova-micro');
    await save.click();
    await prices.getByRole('status').filter({ hasText: 'Preços dos modelos: salvo.' }).waitFor();
    expect((await repositories.config.get('model_prices'))?.value).toEqual({ 'model-a': { input: 3, output: 15 }, 'amazon.nova-micro': { input: 0.04, output: 0.16 } });

    await prices.getByRole('button', { name: 'Remover amazon.nova-micro' }).click();
    await save.click();
    await waitUntil(async () => (await repositories.config.get('model_prices'))?.version === 3, 5000, 'the removal saved');
    expect((await repositories.config.get('model_prices'))?.value).toEqual({ 'model-a': { input: 3, output: 15 } });
    expect(await unnamedControls(page)).toEqual([]);
  });

  it("corrects Meta's rates from Meta's rate card, with the day read, and the reports say which rates they priced at", async () => {
    await openAdminScreen(page, 'Configuração');
    const rates = page.getByRole('region', { name: 'Tarifas da Meta' });
    const brazil = rates.getByRole('group', { name: 'Brasil' });
    const service = brazil.getByRole('textbox', { name: 'Serviço' });
    // Empty: the package's rate applies, and shows as the placeholder.
    expect([await service.inputValue(), await service.getAttribute('placeholder')]).toEqual(['', '0.0068']);
    const save = rates.getByRole('button', { name: 'Salvar: Tarifas da Meta' });

    await service.fill('0,0055');
    await save.click();
    await rates.getByRole('alert').filter({ hasText: 'Informe o dia em que consultou a tabela da Meta: uma data até hoje.' }).waitFor();
    await rates.getByLabel(/^Dia em que consultou a tabela da Meta/).fill('2026-12-01');
    await service.fill('3');
    await save.click();
    await rates.getByRole('alert').filter({ hasText: 'Cada tarifa é em dólares americanos por mensagem, de 0 a 1 (aceita decimais).' }).waitFor();
    expect(await repositories.config.get('meta_rates')).toBeUndefined();

    await service.fill('0,0055');
    await save.click();
    await rates.getByRole('status').filter({ hasText: 'Tarifas da Meta: salvo.' }).waitFor();
    expect((await repositories.config.get('meta_rates'))?.value).toEqual({ checkedOn: '2026-12-01', rates: { brazil: { service: 0.0055 } } });

    await openAdminScreen(page, 'Relatórios');
    await page.getByText('Tarifas da Meta pela tabela de 2026-12-01.').waitFor();
    expect(await unnamedControls(page)).toEqual([]);
  });

  it('shows the dead-letter queue and redrives only after a dry run, holding what needs a person', async () => {
    // A record naming a message the table never saw: the redrive must hold it for a person to confirm.
    await pipeline.sqsClient.send(
      new SendMessageCommand({
        QueueUrl: pipeline.deadLetterQueueUrl,
        MessageBody: JSON.stringify({ phone_number: newCustomer(), message_id: 'wamid.never-registered' }),
        MessageGroupId: 'dead-letter-screen',
        MessageDeduplicationId: 'dead-letter-screen',
      }),
    );
    await openAdminScreen(page, 'Mensagens com falha');
    await page.getByText('1 mensagem(ns) na fila de falhas.').waitFor();
    // A card per record: its verdict as a badge, and why, in the console's language.
    const card = page.getByRole('listitem', { name: /^Mensagem com falha / });
    await card.getByText('Precisa de uma pessoa', { exact: true }).waitFor();
    await card.getByText(/^Sem recibo: ele expirou/).waitFor();
    await card.getByText('Se confirmado: descartar.').waitFor();
    const attempts = await card.getByText(/tentativa\(s\) de entrega/).textContent();
    // Coming back to the screen shows the last reading: the queue is not received again.
    await openAdminScreen(page, 'Auditoria');
    await openAdminScreen(page, 'Mensagens com falha');
    await card.waitFor();
    expect(await card.getByText(/tentativa\(s\) de entrega/).textContent()).toBe(attempts);

    const redrive = page.getByRole('button', { name: 'Reenviar de verdade' });
    expect(await redrive.isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Simular reenvio' }).click();
    await page.getByRole('status').filter({ hasText: 'Simulação: 1 mensagem(ns) lida(s), nada mudou.' }).waitFor();
    await redrive.click();
    await page.getByRole('status').filter({ hasText: 'Reenvio feito: 0 reenviada(s), 0 descartada(s), 1 aguardando uma pessoa.' }).waitFor();
    await page.getByText('1 mensagem(ns) na fila de falhas.').waitFor();
    await page.getByRole('button', { name: 'Ler a fila de novo' }).click();
    await card.getByText('Precisa de uma pessoa', { exact: true }).waitFor();
    expect(await page.locator('pre').count()).toBe(0);
    expect(await unnamedControls(page)).toEqual([]);
    await screenshot(page, 'dead-letters-desktop');
  });

  it('retries a BLOCKED CRM sync and resolves an UNCERTAIN one with the ids found in the CRM', async () => {
    const row = (sessionId: string, status: 'BLOCKED' | 'UNCERTAIN') =>
      crmSyncToItem({
        sessionId,
        customerId: newCustomer(),
        status,
        desired: { contact: {}, deal: { stage: 'handoff' } },
        revision: `rev-${sessionId}`,
        attempts: 6,
        nextAttemptAt: '2026-03-10T12:00:00Z',
        lastError: status === 'BLOCKED' ? 'crm_http_422: email is not valid' : 'crm_timeout after 10000 ms',
        etag: `etag-${sessionId}`,
        updatedAt: '2026-03-10T12:00:00Z',
      }, pipeline.keyLayout !== KeyLayout.SEED);
    await repositories.kit.put({ item: row('crm-blocked-screen', 'BLOCKED') });
    await repositories.kit.put({ item: row('crm-uncertain-screen', 'UNCERTAIN') });

    await openAdminScreen(page, 'Problemas de CRM');
    const blocked = page.getByRole('listitem', { name: 'crm-blocked-screen' });
    await blocked.getByText('crm_http_422: email is not valid').waitFor();
    await page.getByRole('listitem', { name: 'crm-uncertain-screen' }).getByText('crm_timeout after 10000 ms').waitFor();
    await screenshot(page, 'crm-desktop');
    await blocked.getByRole('button', { name: 'Reenviar' }).click();
    await page.getByRole('status').filter({ hasText: 'A conversa crm-blocked-screen volta para a fila do CRM.' }).waitFor();
    await blocked.waitFor({ state: 'detached' });
    expect(await repositories.crmSync.get('crm-blocked-screen')).toMatchObject({ status: 'PENDING', attempts: 0 });

    const uncertain = page.getByRole('listitem', { name: 'crm-uncertain-screen' });
    await uncertain.getByRole('textbox', { name: 'Id do contato no CRM' }).fill('contact-9');
    await uncertain.getByRole('textbox', { name: 'Id do negócio no CRM' }).fill('deal-9');
    await uncertain.getByRole('button', { name: 'Registrar ids' }).click();
    await page.getByRole('status').filter({ hasText: 'Ids registrados para crm-uncertain-screen' }).waitFor();
    await uncertain.waitFor({ state: 'detached' });
    expect(await repositories.crmSync.get('crm-uncertain-screen')).toMatchObject({ status: 'PENDING', contactId: 'contact-9', dealId: 'deal-9' });
    expect(await unnamedControls(page)).toEqual([]);
  });

  it('exports a customer, then erases them only once the id is typed a second time', async () => {
    const leaving = newCustomer();
    await pipeline.sendCustomerMessage(leaving, 'Quero apagar meus dados');
    await waitUntil(() => pipeline.fakeWhatsApp.sent().some((message) => message.recipient === leaving), 15_000, 'the agent answer');
    await pipeline.waitForIdle();

    await openAdminScreen(page, 'Dados de clientes');
    await page.getByRole('textbox', { name: 'Número ou id do cliente no WhatsApp' }).fill(leaving);
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Baixar exportação (arquivo JSON)' }).click();
    const download = await downloading;
    // A file, named without the customer's number; the page shows no dump of it.
    const file = download.suggestedFilename();
    expect(file).toMatch(/^customer-export-\d{4}-\d{2}-\d{2}-[0-9a-f]{8}\.json$/);
    expect(file).not.toContain(leaving);
    const exported = JSON.parse(readFileSync(await download.path(), 'utf8'));
    expect(exported).toMatchObject({ format: 'customer-export/1', customerId: leaving });
    expect(JSON.stringify(exported)).toContain('Quero apagar meus dados');
    await page.getByRole('status').filter({ hasText: `Arquivo ${file} baixado.` }).waitFor();
    expect(await page.locator('pre').count()).toBe(0);

    const erase = page.getByRole('button', { name: 'Apagar tudo deste cliente' });
    const confirmation = page.getByRole('textbox', { name: 'Para confirmar, digite o id do cliente de novo' });
    expect(await erase.isDisabled()).toBe(true);
    await confirmation.fill(`${leaving.slice(0, -1)}${leaving.endsWith('0') ? '1' : '0'}`);
    expect(await erase.isDisabled()).toBe(true);
    // Nothing was erased while the two ids differed.
    expect((await pipeline.conversation(leaving)).session).toBeDefined();

    await confirmation.fill(leaving);
    await erase.click();
    await page.getByRole('status').filter({ hasText: 'Cliente apagado. Na auditoria:' }).waitFor();
    const left = await pipeline.conversation(leaving);
    expect(left.session).toBeUndefined();
    expect(left.history).toEqual([]);
    expect(await page.locator('pre').count()).toBe(0);
    expect(await unnamedControls(page)).toEqual([]);
  });

  it('ran without a CSP refusal or a script error', () => {
    expect(browser.problems).toEqual([]);
  });
});
