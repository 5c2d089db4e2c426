// The README is what a newcomer reads on the first afternoon, so what it states comes from the code
// or is checked here: it fits in 500 lines, its props table is the one the jsii assembly gives (every
// prop of AgentPipelineProps, inherited ones included, with the `@default` its doc comment has), its
// outputs table names every output the construct writes, its alarm counts are the construct's, and
// its text for users has no command that only works in this repository. Needs `npm run build`.
import * as fs from 'fs';
import * as path from 'path';
import { App, Stack } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { AgentBackend, AgentPipeline, type AgentPipelineProps, CrmTarget, WhatsAppChannel } from '../../lib';
import { STACK_OUTPUTS } from '../../lib/contract';
import { runReadmeBlock } from '../support/deploy-configurations';
import { typeScriptBlocks } from '../support/readme-blocks';
import { agentPipelineProps, propsTable } from '../support/props-table';
import { between, generatedPart } from '../support/security-docs';

const root = path.join(__dirname, '..', '..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
const readme = read('README.md');
/** The README's sections by their `##` title. */
const sections = new Map(readme.split(/^## /m).slice(1).map((section) => [section.slice(0, section.indexOf('\n')), section] as const));

test('the README fits the first afternoon: at most 500 lines', () => {
  expect(readme.split('\n').length).toBeLessThanOrEqual(500);
});

test('the props table is the one the assembly gives: every prop, inherited ones included, with its @default', () => {
  const props = agentPipelineProps();
  expect(props.map(({ name }) => name)).toEqual(expect.arrayContaining(['environment', 'agentBackend', 'media', 'encryptionKey', 'adminPhoneNumbers', 'resourceNames']));
  expect(generatedPart(readme, 'props')).toBe(between('props', propsTable(props)));
  const media = props.find(({ name }) => name === 'media')!;
  expect(generatedPart(readme, 'props')).toContain(`| \`media\` | ${media.docs!.default!.replace(/^- /, '').replace(/\s*\n\s*/g, ' ')} |`);
});

test('the outputs table names every output the construct writes', () => {
  const outputs = sections.get('Stack outputs')!;
  for (const suffix of Object.values(STACK_OUTPUTS)) expect({ suffix, listed: outputs.includes(`\`<id>${suffix}\``) }).toEqual({ suffix, listed: true });
});

test("the alarm counts are the construct's: the README's first pipeline, and each feature's share in docs/CONFIGURATION.md", () => {
  const firstPipeline = typeScriptBlocks(readme).find(({ source }) => source.includes("'WhatsAppAgent-dev'"))!;
  const app = runReadmeBlock(firstPipeline.source);
  const pipeline = app.node.findAll().find((construct): construct is AgentPipeline => construct instanceof AgentPipeline)!;
  expect(sections.get('Operations')!.replace(/\s+/g, ' ')).toContain(`The first pipeline above has ${pipeline.alarms.length};`);

  /** The alarms of a pipeline with nothing on but `props` (and, with `withCrm`, a CRM target). */
  const alarms = (props: Partial<AgentPipelineProps>, withCrm = false) => {
    const stack = new Stack(new App(), 'Counted');
    const crmSync = withCrm ? CrmTarget.fromFunction(lambda.Function.fromFunctionName(stack, 'Crm', 'crm-writer')) : undefined;
    return new AgentPipeline(stack, 'Agent', { environment: 'test', agentBackend: AgentBackend.scripted(), phoneNumberIds: ['106540352242922'], media: { enabled: false }, crmSync, ...props }).alarms.length;
  };
  const base = alarms({});
  const more = (props: Partial<AgentPipelineProps>, withCrm = false) => alarms(props, withCrm) - base;
  const row = read('docs/CONFIGURATION.md').split('\n').find((line) => line.startsWith('| Alarms ('))!;
  expect(row).toContain(
    `| Alarms (${base}, ${more({ media: { enabled: true } })} more with \`media\` on (the default), ${more({ agentBackend: AgentBackend.bedrock({ modelId: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' }) })} more with Bedrock, ` +
      `${more({}, true)} more with \`crmSync\`, ${more({ adminPhoneNumbers: ['5511912345678'] })} more with the operator plane, ` +
      `${more({ phoneNumberIds: undefined, channel: WhatsAppChannel.endUserMessaging({ phoneNumbers: [{ id: 'phone-number-id-976c72a700aac43eaf573ae050example', metaPhoneNumberId: '106540352242922' }] }) })} more with End User Messaging, ` +
      `${more({ pipelineBudget: { agentTokensPerDay: 5_000_000 } })} more with \`pipelineBudget\`)`,
  );
});

test('the text for users names no command that only works in this repository; the Contributing commands are what CI runs', () => {
  const forUsers = [...sections].filter(([title]) => title !== 'Contributing').map(([, text]) => text.replace(/<!--[\s\S]*?-->/g, '')).join('\n');
  expect(forUsers.match(/npm (start|run|test)|PIPELINE_[A-Z]+=/g)).toBeNull();
  const ciCommand = read('.ci/run').trim().split('\n').pop()!;
  expect(ciCommand).toBe('npm ci && npm test');
  expect(sections.get('Contributing')).toContain(ciCommand);
});
