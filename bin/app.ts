// Example CDK app (`npm run synth`): the stacks of bin/example-stacks.ts, checked by cdk-nag 3.
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { addExampleStacks, EXAMPLE_REGION } from './example-stacks';

const app = new App();
// Synth fails on any unacknowledged AWS Solutions finding.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
// The account of the CLI's credentials when there are any; the Region is the examples' own.
addExampleStacks(app, { account: process.env.CDK_DEFAULT_ACCOUNT, region: EXAMPLE_REGION });
