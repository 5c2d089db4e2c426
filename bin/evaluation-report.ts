// How `eval` reports a run: a table of the scenarios with each failure's lines on stdout, and the
// same results as JUnit XML for a CI system (one test suite, one test case per scenario).
import type { ScenarioResult, SuiteResult } from '../lambda/core/application/evaluation/run-scenarios';
import type { TokenUsage } from '../lambda/core/domain/customer-budget';

const tokensOf = (usage: TokenUsage) => usage.inputTokens + usage.outputTokens + (usage.cacheReadInputTokens ?? 0) + (usage.cacheWriteInputTokens ?? 0);
const count = (value: number) => value.toLocaleString('en-US');
const dollars = (value: number | undefined) => (value === undefined ? 'n/a' : `US$${value.toFixed(4)}`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The run as the terminal shows it: one row per scenario, the failures under it, the totals last. */
export function scenarioTable(result: SuiteResult): string {
  const nameWidth = Math.max(8, ...result.scenarios.map((scenario) => scenario.name.length));
  const header = `${'RESULT'.padEnd(6)}  ${'SCENARIO'.padEnd(nameWidth)}  ${'TURNS'.padStart(5)}  ${'TOKENS'.padStart(9)}  ${'COST'.padStart(11)}  ${'TIME'.padStart(7)}`;
  const rows = result.scenarios.flatMap((scenario) => [
    `${(scenario.passed ? 'PASS' : 'FAIL').padEnd(6)}  ${scenario.name.padEnd(nameWidth)}  ${String(scenario.turns.length).padStart(5)}  ${count(tokensOf(scenario.usage)).padStart(9)}  ${dollars(scenario.costUsd).padStart(11)}  ${seconds(scenario.durationMs).padStart(7)}`,
    ...failureLines(scenario).map((line) => `        ${line}`),
  ]);
  const failed = result.scenarios.filter((scenario) => !scenario.passed).length;
  const { usage } = result;
  const totals = [
    `${result.scenarios.length} scenarios: ${result.scenarios.length - failed} passed, ${failed} failed`,
    `tokens ${count(tokensOf(usage))} (input ${count(usage.inputTokens)}, output ${count(usage.outputTokens)}, cache read ${count(usage.cacheReadInputTokens ?? 0)}, cache write ${count(usage.cacheWriteInputTokens ?? 0)})`,
    `estimated cost ${dollars(result.costUsd)} at the packaged model prices`,
  ];
  return [header, ...rows, '', ...totals].join('\n');
}

/** What failed in a scenario: its error, else each failed turn with its problems. */
function failureLines(scenario: ScenarioResult): string[] {
  const turns = scenario.turns.flatMap((turn, index) => (turn.problems.length === 0 ? [] : [`turn ${index + 1} (customer: ${JSON.stringify(clip(turn.customer))})`, ...turn.problems.map((problem) => `  - ${problem}`)]));
  return scenario.error === undefined ? turns : [...turns, `error: ${scenario.error}`];
}

const clip = (text: string) => (text.length > 60 ? `${text.slice(0, 57)}...` : text);

/** The run as JUnit XML: a failed scenario is a test case with a `<failure>` listing its problems. */
export function junitXml(result: SuiteResult, suiteName: string): string {
  const failed = result.scenarios.filter((scenario) => !scenario.passed).length;
  const time = result.scenarios.reduce((sum, scenario) => sum + scenario.durationMs, 0) / 1000;
  const cases = result.scenarios.map((scenario) => {
    const attributes = `classname="${xml(suiteName)}" name="${xml(scenario.name)}" time="${(scenario.durationMs / 1000).toFixed(3)}"`;
    const output = `<system-out>${xml(`tokens ${tokensOf(scenario.usage)}, estimated cost ${dollars(scenario.costUsd)}`)}</system-out>`;
    if (scenario.passed) return `    <testcase ${attributes}>${output}</testcase>`;
    const lines = failureLines(scenario);
    return `    <testcase ${attributes}>\n      <failure message="${xml(lines.find((line) => line.startsWith('  - '))?.slice(4) ?? lines[0] ?? 'failed')}">${xml(lines.join('\n'))}</failure>${output}\n    </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xml(suiteName)}" tests="${result.scenarios.length}" failures="${failed}" time="${time.toFixed(3)}">`,
    `  <testsuite name="${xml(suiteName)}" tests="${result.scenarios.length}" failures="${failed}" errors="0" time="${time.toFixed(3)}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

/** Text as XML character data or an attribute value; characters XML 1.0 cannot hold are dropped. */
function xml(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}
