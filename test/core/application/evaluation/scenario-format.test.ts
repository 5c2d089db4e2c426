// The scenario format (evaluation/scenario.schema.json, docs/EVALUATION.md): the shipped examples are
// valid, and every refusal names the file, the scenario and the field to change.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseScenarios } from '../../../../lambda/core/application/evaluation/scenario-format';
import { ScenarioFormatError } from '../../../../lambda/core/ports/evaluation';

const SHIPPED = join(__dirname, '..', '..', '..', '..', 'evaluation', 'scenarios');
const shipped = () => readdirSync(SHIPPED).map((file) => ({ file: join(SHIPPED, file), text: readFileSync(join(SHIPPED, file), 'utf8') }));

/** A valid scenario, changed by `change`. */
function scenario(change: (document: Record<string, any>) => void = () => undefined): string {
  const document: Record<string, any> = { formatVersion: 1, name: 'greets', turns: [{ customer: { text: 'Oi' }, expect: { reply: { contains: ['Olá'] } } }] };
  change(document);
  return JSON.stringify(document);
}

function refusal(text: string, file = 'suite/greets.json'): string {
  try {
    parseScenarios([{ file, text }]);
  } catch (error) {
    expect(error).toBeInstanceOf(ScenarioFormatError);
    return (error as Error).message;
  }
  throw new Error('the scenario was accepted');
}

test('the three scenarios shipped in the package are valid, each with its own name', () => {
  const scenarios = parseScenarios(shipped());
  expect(scenarios.map((parsed) => parsed.name).sort()).toEqual(['asks-for-a-person', 'records-registration', 'tap-and-photo']);
});

test('a field the format does not have is named with its path', () => {
  expect(refusal(scenario((document) => (document.turns[0].expect.reply.startsWith = 'Olá')))).toBe(
    "suite/greets.json: scenario 'greets': turns[0].expect.reply.startsWith is not a field of the format (docs/EVALUATION.md)",
  );
});

test('a missing field, a wrong value and a wrong version are all reported at once', () => {
  const message = refusal(
    scenario((document) => {
      document.formatVersion = 2;
      delete document.turns[0].customer;
      document.start = { locale: 'fr' };
    }),
  );
  expect(message.split('\n')).toEqual([
    "suite/greets.json: scenario 'greets': formatVersion must be 1",
    "suite/greets.json: scenario 'greets': start.locale must be one of \"pt-BR\", \"en\", \"es\"",
    "suite/greets.json: scenario 'greets': turns[0].customer is required",
  ]);
});

test('a customer message is one of a text, a tap and a media placeholder', () => {
  expect(refusal(scenario((document) => (document.turns[0].customer = { text: 'Oi', media: { kind: 'image' } })))).toBe(
    "suite/greets.json: scenario 'greets': turns[0].customer must hold exactly one of text, tap and media",
  );
});

test('a regular expression that does not compile is refused before anything runs', () => {
  const message = refusal(
    scenario((document) => {
      document.turns[0].expect = { reply: { matches: '(' }, toolsCalled: [{ name: 'lookup', input: { id: { matches: '[' } } }] };
    }),
  );
  expect(message.split('\n')).toEqual([
    "suite/greets.json: scenario 'greets': turns[0].expect.reply.matches is not a regular expression",
    "suite/greets.json: scenario 'greets': turns[0].expect.toolsCalled[0].input.id.matches is not a regular expression",
  ]);
});

test('a recorded tool answer holds a result or an error, not both', () => {
  expect(refusal(scenario((document) => (document.tools = { lookup: [{ result: {}, error: 'no' }] })))).toBe(
    "suite/greets.json: scenario 'greets': tools.lookup[0] must have exactly one of result and error",
  );
});

test('a file that is not JSON, or without a name, is named by its file', () => {
  expect(refusal('{ "formatVersion": 1,', 'suite/broken.json')).toMatch(/^suite\/broken\.json: not JSON \(/);
  expect(refusal(scenario((document) => delete document.name), 'suite/anonymous.json')).toBe('suite/anonymous.json: scenario: name is required');
});

test('two scenarios of a suite with one name are refused, naming both files', () => {
  expect(() => parseScenarios([{ file: 'a.json', text: scenario() }, { file: 'b.json', text: scenario() }])).toThrow(
    "b.json: scenario 'greets': name is already the name of a scenario in a.json",
  );
});
