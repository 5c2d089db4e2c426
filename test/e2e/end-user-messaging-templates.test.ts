// The template sync on End User Messaging, as deployed: the handoff sweeper (the schedule) and the
// operator function (an admin's sync) read the linked account through the service's template API
// with their own roles, every request checked against them.
import { WHATSAPP_CHANNEL_KINDS } from '../../lib/contract';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import type { tableRepositories } from '../support/dynamo-table';
import { newOperatorPhone } from '../support/ids';
import { BUSINESS_TEMPLATES, manyTemplates, REENGAGEMENT_TEMPLATE } from '../support/message-templates';
import { type ConsoleClient, startStaffedPipeline } from '../support/operator-console-client';

let pipeline: LocalPipeline;
let repositories: ReturnType<typeof tableRepositories>;
let admin: ConsoleClient;

beforeAll(async () => {
  ({ pipeline, repositories, admin } = await startStaffedPipeline(newOperatorPhone(), newOperatorPhone(), { channel: WHATSAPP_CHANNEL_KINDS.endUserMessaging }));
});
afterAll(async () => {
  await pipeline.stop();
});

it('the schedule stores every page of the linked account, with each template’s body', async () => {
  pipeline.fakeWhatsApp.setTemplates([...BUSINESS_TEMPLATES, ...manyTemplates(120)]);

  expect(await pipeline.syncTemplates()).toEqual({ stored: BUSINESS_TEMPLATES.length + 120, removed: 0, unreadable: 0 });
  expect(await repositories.templates.get({ name: REENGAGEMENT_TEMPLATE.name, language: REENGAGEMENT_TEMPLATE.language })).toMatchObject({ status: 'APPROVED', body: REENGAGEMENT_TEMPLATE.components[0].text, bodyParameters: ['1', '2'] });
});

it('an admin’s sync removes what the account no longer lists', async () => {
  pipeline.fakeWhatsApp.setTemplates(BUSINESS_TEMPLATES);

  const synced = await admin.call('POST', '/api/admin/templates/sync');
  expect(synced.body).toEqual({ sync: { stored: BUSINESS_TEMPLATES.length, removed: 120, unreadable: 0 } });
});
