// How `eval` reports a run (bin/evaluation-report.ts): the JUnit XML a CI system reads stays
// well-formed whatever a reply holds, and a failed scenario carries its problems.
import { junitXml, scenarioTable } from '../../bin/evaluation-report';
import type { SuiteResult } from '../../lambda/core/application/evaluation/run-scenarios';

const result: SuiteResult = {
  runId: 'run1',
  usage: { inputTokens: 100, outputTokens: 20, cacheReadInputTokens: 1_000 },
  costUsd: 0.0123,
  scenarios: [
    { name: 'greets', passed: true, turns: [{ customer: 'Oi', replies: ['Olá!'], problems: [] }], usage: { inputTokens: 50, outputTokens: 10 }, costUsd: 0.006, durationMs: 1_200 },
    {
      name: 'quotes <tags> & "marks"',
      passed: false,
      turns: [{ customer: 'A & B', replies: ['<script>\u0007'], problems: ['reply.notContains: "<script>" in "<script>\u0007"'] }],
      usage: { inputTokens: 50, outputTokens: 10, cacheReadInputTokens: 1_000 },
      durationMs: 800,
      error: 'the turn path failed: boom',
    },
  ],
};

test('the JUnit XML escapes what replies and names hold and drops what XML cannot carry', () => {
  const xml = junitXml(result, 'eval suite');
  expect(xml).toContain('<testsuite name="eval suite" tests="2" failures="1" errors="0" time="2.000">');
  expect(xml).toContain('<testcase classname="eval suite" name="greets" time="1.200"><system-out>tokens 60, estimated cost US$0.0060</system-out></testcase>');
  expect(xml).toContain('name="quotes &lt;tags&gt; &amp; &quot;marks&quot;"');
  expect(xml).toContain('<failure message="reply.notContains: &quot;&lt;script&gt;&quot; in &quot;&lt;script&gt;&quot;">');
  expect(xml).toContain('error: the turn path failed: boom</failure>');
  expect(xml).not.toContain('\u0007');
  expect(xml).not.toMatch(/<script>/);
});

test('the table shows each scenario, the failures under it and the totals', () => {
  expect(scenarioTable(result).split('\n')).toEqual([
    'RESULT  SCENARIO                 TURNS     TOKENS         COST     TIME',
    'PASS    greets                       1         60    US$0.0060    1.2 s',
    'FAIL    quotes <tags> & "marks"      1      1,060          n/a    0.8 s',
    '        turn 1 (customer: "A & B")',
    '          - reply.notContains: "<script>" in "<script>\u0007"',
    '        error: the turn path failed: boom',
    '',
    '2 scenarios: 1 passed, 1 failed',
    'tokens 1,120 (input 100, output 20, cache read 1,000, cache write 0)',
    'estimated cost US$0.0123 at the packaged model prices',
  ]);
});
