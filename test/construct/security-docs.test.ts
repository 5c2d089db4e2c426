// The README's security section and docs/COMPLIANCE.md say what the synthesized templates say: a
// change to a grant, a finding or an acknowledgement fails here until `npm run docs:security` is run.
import * as fs from 'fs';
import * as path from 'path';
import { acknowledgementsTable, between, generatedPart, nagCountsTable, roleGrantsTable } from '../support/security-docs';

const read = (file: string) => fs.readFileSync(path.join(__dirname, '..', '..', file), 'utf8');

test('the README lists every role’s grants as the template has them', () => {
  expect(generatedPart(read('README.md'), 'role grants')).toBe(between('role grants', roleGrantsTable()));
});

test('docs/COMPLIANCE.md has the current findings per pack and every acknowledgement with its reason', () => {
  const compliance = read('docs/COMPLIANCE.md');
  expect(generatedPart(compliance, 'cdk-nag counts')).toBe(between('cdk-nag counts', nagCountsTable()));
  expect(generatedPart(compliance, 'cdk-nag acknowledgements')).toBe(between('cdk-nag acknowledgements', acknowledgementsTable()));
});
