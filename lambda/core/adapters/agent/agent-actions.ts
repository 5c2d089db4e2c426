import { CADASTRAL_FIELDS, type CadastralField } from '../../domain/agent-action';
import type { AgentAction, AgentActionType } from '../../ports/agent';

/**
 * The actions an agent may take, as tools: name, description for the model, and the JSON
 * schema of the input. The same schema validates a Bedrock tool call and an action returned by a
 * consumer's agent Lambda, so both backends produce exactly the same {@link AgentAction}s.
 */
export interface AgentTool {
  readonly name: AgentActionType;
  readonly description: string;
  readonly inputSchema: ObjectSchema;
}

/** The subset of JSON Schema the tools use (and {@link validateAgainstSchema} enforces). */
export type JsonSchema = StringSchema | ObjectSchema;

export interface StringSchema {
  readonly type: 'string';
  readonly description?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  /** A regular expression the whole string must match (anchor it). */
  readonly pattern?: string;
}

export interface ObjectSchema {
  readonly type: 'object';
  readonly description?: string;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  /** `false` forbids unknown keys; a schema validates every unknown key's value. */
  readonly additionalProperties: false | JsonSchema;
  /** Every key must satisfy this string schema. */
  readonly propertyNames?: StringSchema;
  readonly minProperties?: number;
  readonly maxProperties?: number;
}

/**
 * Qualification keys: short snake_case names. The pattern also keeps out every name an object
 * inherits (`__proto__`, `constructor`, `toString` …) and anything that reads like an instruction.
 */
export const QUALIFICATION_KEY_PATTERN = '^[a-z][a-z0-9_]{0,39}$';

const reason = (description: string): StringSchema => ({ type: 'string', description, minLength: 1, maxLength: 500 });
const label = (description: string): StringSchema => ({ type: 'string', description, minLength: 1, maxLength: 100 });

/**
 * The registration data schema: a few fields a CRM contact has, each bounded, so what the agent
 * records stays a small form whatever the conversation (docs/DESIGN.md#what-the-agent-learns).
 */
export const CADASTRAL_FIELD_SCHEMAS: Readonly<Record<CadastralField, StringSchema>> = {
  name: { type: 'string', description: "The customer's full name.", minLength: 1, maxLength: 120 },
  email: { type: 'string', description: "The customer's e-mail address.", maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$' },
  document_id: { type: 'string', description: 'A personal or company tax id (e.g. CPF or CNPJ), as the customer wrote it.', maxLength: 32, pattern: '^[0-9A-Za-z./ -]{3,32}$' },
  company: { type: 'string', description: 'The company or institution the customer represents.', minLength: 1, maxLength: 150 },
  city: { type: 'string', description: 'The city the customer is in.', minLength: 1, maxLength: 100 },
};

export const AGENT_TOOLS: readonly AgentTool[] = [
  {
    name: 'record_out_of_portfolio_demand',
    description:
      'Record that the customer asked for a service the business does not offer, so the demand can be studied. ' +
      'Call it once per requested service, then answer the customer.',
    inputSchema: {
      type: 'object',
      properties: {
        requestedService: { type: 'string', description: "The service the customer asked for, in the customer's words.", minLength: 1, maxLength: 200 },
        estimatedSegment: { type: 'string', description: 'The customer segment, when evident (e.g. clinic, laboratory, individual).', maxLength: 100 },
        notes: { type: 'string', description: 'Anything else that helps understand the demand.', maxLength: 1000 },
      },
      required: ['requestedService'],
      additionalProperties: false,
    },
  },
  {
    name: 'update_qualification',
    description:
      'Save qualification facts the customer stated. Keys are short snake_case field names (e.g. sample_type, ' +
      'sample_count); values are what the customer said. Only new or corrected fields are needed.',
    inputSchema: {
      type: 'object',
      properties: {
        data: {
          type: 'object',
          description: 'Field name to value.',
          additionalProperties: { type: 'string', maxLength: 500 },
          propertyNames: { type: 'string', pattern: QUALIFICATION_KEY_PATTERN },
          minProperties: 1,
          maxProperties: 20,
        },
      },
      required: ['data'],
      additionalProperties: false,
    },
  },
  {
    name: 'request_human_handoff',
    description:
      'Hand the conversation to a human operator: when the customer asks for a person, or when you cannot help. ' +
      'Then tell the customer that a person will continue the conversation.',
    inputSchema: {
      type: 'object',
      properties: { reason: reason('Why a human should take over.') },
      required: ['reason'],
      additionalProperties: false,
    },
  },
  {
    name: 'close_session',
    description: "Close the conversation when the customer's request is fully handled or the customer says goodbye.",
    inputSchema: {
      type: 'object',
      properties: { reason: reason('Why the conversation is over.') },
      required: ['reason'],
      additionalProperties: false,
    },
  },
  {
    name: 'update_cadastral_data',
    description:
      `Save the customer's registration data as the customer stated it. Fields: ${CADASTRAL_FIELDS.join(', ')}. ` +
      'Only new or corrected fields are needed; never guess a value.',
    inputSchema: {
      type: 'object',
      properties: {
        data: { type: 'object', description: 'Field to value.', properties: CADASTRAL_FIELD_SCHEMAS, additionalProperties: false, minProperties: 1 },
      },
      required: ['data'],
      additionalProperties: false,
    },
  },
  {
    name: 'set_segment',
    description: 'Record the customer segment once it is evident (e.g. clinic, laboratory, individual). A later call replaces it.',
    inputSchema: { type: 'object', properties: { segment: label('The segment, in a few words.') }, required: ['segment'], additionalProperties: false },
  },
  {
    name: 'set_intent',
    description: 'Record what the customer wants (e.g. quote, purchase, support, information). A later call replaces it.',
    inputSchema: { type: 'object', properties: { intent: label('The intent, in a few words.') }, required: ['intent'], additionalProperties: false },
  },
];

/**
 * The tools of one agent: the common ones, and with stages the handover to any of the other
 * configured agents (`targets`), whose names the schema admits and nothing else.
 */
export function agentTools(targets: readonly string[] = []): readonly AgentTool[] {
  if (targets.length === 0) return AGENT_TOOLS;
  return [
    ...AGENT_TOOLS,
    {
      name: 'handover_to_agent',
      description:
        `Hand the conversation to another agent when its part of the service begins (agents: ${targets.join(', ')}). ` +
        'That agent answers the customer right away and from then on; write no reply of your own after calling it.',
      inputSchema: {
        type: 'object',
        properties: {
          // Stage names are `[a-z][a-z0-9_-]*`: nothing in them needs escaping.
          agent: { type: 'string', description: `The agent to hand over to: one of ${targets.join(', ')}.`, pattern: `^(${targets.join('|')})$` },
          reason: reason('Why that agent should continue.'),
        },
        required: ['agent', 'reason'],
        additionalProperties: false,
      },
    },
  ];
}

export type ParsedAgentAction =
  | { readonly ok: true; readonly action: AgentAction }
  | { readonly ok: false; readonly problems: readonly string[] };

/**
 * Validates a tool input against the schema of one of `tools` and builds the action; problems are phrased for the model.
 * Never throws: whatever the input (inherited names, prototype keys, odd types), the caller gets
 * either an action or problems to hand back to the model.
 */
export function parseAgentAction(type: string, input: unknown, tools: readonly AgentTool[] = AGENT_TOOLS): ParsedAgentAction {
  const tool = tools.find((candidate) => candidate.name === type);
  if (!tool) {
    return { ok: false, problems: [`unknown action "${type}"; the actions are ${tools.map((known) => known.name).join(', ')}`] };
  }
  const problems = validateAgainstSchema(tool.inputSchema, input);
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, action: { type: tool.name, ...ownCopy(input as Record<string, unknown>) } as unknown as AgentAction };
}

/**
 * Problems of `value` against `schema`, each naming the offending path; empty when valid. Only own
 * properties count, on the value and on the schema alike, so a key named like an inherited member
 * is an unknown key, never a schema.
 */
export function validateAgainstSchema(schema: JsonSchema, value: unknown, path = ''): string[] {
  const name = path || 'the input';
  if (schema.type === 'string') return stringProblems(schema, value, name);
  if (schema.type !== 'object') return [`${name} has a schema the validator does not support`];

  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`${name} must be an object`];
  const record = value as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of schema.required ?? []) {
    if (!Object.hasOwn(record, key) || record[key] === undefined) problems.push(`${join(path, key)} is required`);
  }
  const keys = Object.keys(record);
  for (const key of keys) {
    const declared = schema.properties !== undefined && Object.hasOwn(schema.properties, key);
    const fieldSchema = declared ? schema.properties![key] : schema.additionalProperties;
    if (fieldSchema === false) problems.push(`${join(path, key)} is not allowed`);
    else if (!declared && !isAllowedFreeName(schema, key)) problems.push(`${join(path, JSON.stringify(key))} is not an allowed name`);
    else problems.push(...validateAgainstSchema(fieldSchema, record[key], join(path, key)));
  }
  if (schema.minProperties !== undefined && keys.length < schema.minProperties) problems.push(`${name} needs at least ${schema.minProperties} entries`);
  if (schema.maxProperties !== undefined && keys.length > schema.maxProperties) problems.push(`${name} allows at most ${schema.maxProperties} entries`);
  return problems;
}

/**
 * A key accepted by an `additionalProperties` schema must satisfy `propertyNames` and must not name
 * a member every object inherits: such a key would shadow it wherever the data is spread or read.
 */
function isAllowedFreeName(schema: ObjectSchema, key: string): boolean {
  if (key in Object.prototype) return false;
  return schema.propertyNames === undefined || stringProblems(schema.propertyNames, key, key).length === 0;
}

function stringProblems(schema: StringSchema, value: unknown, name: string): string[] {
  if (typeof value !== 'string') return [`${name} must be a string`];
  if (schema.minLength !== undefined && value.trim().length < schema.minLength) return [`${name} must not be empty`];
  if (schema.maxLength !== undefined && value.length > schema.maxLength) return [`${name} must be at most ${schema.maxLength} characters`];
  if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value)) return [`${name} must match ${schema.pattern}`];
  return [];
}

/** A plain copy of the own enumerable properties, nested objects included (validated input is JSON-like). */
function ownCopy(record: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(record).map(([key, field]) => [key, typeof field === 'object' && field !== null ? ownCopy(field as Record<string, unknown>) : field]),
  );
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}
