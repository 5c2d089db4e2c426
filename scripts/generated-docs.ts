// Writes the generated parts of the docs: the README's props table (from the jsii assembly),
// docs/PERMISSIONS.md's roles' grants and docs/COMPLIANCE.md's cdk-nag findings per pack and
// acknowledgements (from freshly synthesized templates). Run it with `npm run docs:generated`, which
// compiles the library first (tsx loads its compiled JavaScript, and the table reads `.jsii`).
import * as fs from 'fs';
import * as path from 'path';
import { propsTable } from '../test/support/props-table';
import { acknowledgementsTable, between, generatedPart, nagCountsTable, roleGrantsTable } from '../test/support/security-docs';

const root = path.resolve(__dirname, '..');

function write(file: string, parts: Record<string, string>): void {
  const target = path.join(root, file);
  let markdown = fs.readFileSync(target, 'utf8');
  for (const [name, body] of Object.entries(parts)) {
    const current = generatedPart(markdown, name);
    if (current === undefined) throw new Error(`${file} has no generated part '${name}': add its markers where it belongs.`);
    markdown = markdown.replace(current, between(name, body));
  }
  fs.writeFileSync(target, markdown);
}

write('README.md', { props: propsTable() });
write('docs/PERMISSIONS.md', { 'role grants': roleGrantsTable() });
write('docs/COMPLIANCE.md', { 'cdk-nag counts': nagCountsTable(), 'cdk-nag acknowledgements': acknowledgementsTable() });
