// The example app (bin/app.ts) is what people copy first: in an explicit account and Region it must
// synthesize without AWS credentials (no lookups), with an inference profile of that Region, no
// warning of the library's and no AWS Solutions finding.
import { App } from 'aws-cdk-lib';
import { addExampleStacks, EXAMPLE_REGION } from '../../bin/example-stacks';
import { NO_PROBLEMS, synthesisProblems } from '../support/synthesis-problems';

test('the example stacks synthesize in an explicit account and Region with nothing left to fix', () => {
  const app = new App();
  addExampleStacks(app, { account: '123456789012', region: EXAMPLE_REGION });
  expect(synthesisProblems(app)).toEqual(NO_PROBLEMS);
});

test('environment-agnostic, as the compliance checks run them, they raise no warning either', () => {
  const app = new App();
  addExampleStacks(app);
  expect(synthesisProblems(app)).toEqual(NO_PROBLEMS);
});
