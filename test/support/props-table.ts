// The README's props table, generated from the jsii assembly so that it lists every prop of
// `AgentPipelineProps`, those of the props interfaces it extends included, with the default its doc
// comment's `@default` gives. `npm run docs:generated` writes it; test/construct/readme-facts.test.ts
// fails when it is stale.
import * as fs from 'fs';
import * as path from 'path';

interface AssemblyProperty {
  readonly name: string;
  readonly optional?: boolean;
  readonly docs?: { readonly summary?: string; readonly default?: string };
}

interface AssemblyType {
  readonly properties?: AssemblyProperty[];
  readonly interfaces?: string[];
}

const PROPS_FQN = 'cdk-whatsapp-agent-pipeline.AgentPipelineProps';

/** Every prop of `AgentPipelineProps` with its struct, as the assembly has them (`npm run build` writes it). */
export function agentPipelineProps(assemblyPath = path.resolve(__dirname, '..', '..', '.jsii')): AssemblyProperty[] {
  const types = (JSON.parse(fs.readFileSync(assemblyPath, 'utf8')) as { types: Record<string, AssemblyType> }).types;
  const collect = (fqn: string): AssemblyProperty[] => [...(types[fqn].properties ?? []), ...(types[fqn].interfaces ?? []).flatMap(collect)];
  return collect(PROPS_FQN);
}

const cell = (text: string) => text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|').trim();

/** One row per prop: its name, its default (`required` for the required ones) and its summary. */
export function propsTable(props = agentPipelineProps()): string {
  const rows = props.map(({ name, optional, docs }) => {
    const byDefault = optional ? cell((docs?.default ?? '').replace(/^- /, '')) : 'required';
    return `| \`${name}\` | ${byDefault} | ${cell(docs?.summary ?? '')} |`;
  });
  return ['| Prop | Default | What it sets |', '|---|---|---|', ...rows].join('\n');
}
