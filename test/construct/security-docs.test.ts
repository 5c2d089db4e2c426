// docs/PERMISSIONS.md and docs/COMPLIANCE.md say what the synthesized templates say: a change to a
// grant, a finding or an acknowledgement fails here until `npm run docs:generated` is run.
import * as fs from 'fs';
import * as path from 'path';
import { acknowledgementsTable, between, generatedPart, nagCountsTable, roleGrantsTable } from '../support/security-docs';

const read = (file: string) => fs.readFileSync(path.join(__dirname, '..', '..', file), 'utf8');

test('docs/PERMISSIONS.md lists every role’s grants as the template has them, in words and ARNs, never CloudFormation JSON', () => {
  const grants = generatedPart(read('docs/PERMISSIONS.md'), 'role grants');
  expect(grants).toBe(between('role grants', roleGrantsTable()));
  expect(grants).not.toMatch(/Fn::|"Ref"/);
  expect(grants).toContain('`table/<TableName>/index/GSI1`');
});

test('docs/COMPLIANCE.md has the current findings per pack and every acknowledgement with its reason', () => {
  const compliance = read('docs/COMPLIANCE.md');
  expect(generatedPart(compliance, 'cdk-nag counts')).toBe(between('cdk-nag counts', nagCountsTable()));
  expect(generatedPart(compliance, 'cdk-nag acknowledgements')).toBe(between('cdk-nag acknowledgements', acknowledgementsTable()));
});
