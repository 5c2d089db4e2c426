// Writes the generated parts of README.md (the roles' grants) and docs/COMPLIANCE.md (cdk-nag's
// findings per pack and the acknowledgements) from freshly synthesized templates. Run it with
// `npm run docs:security`, which compiles the library first (tsx loads its compiled JavaScript).
import * as fs from 'fs';
import * as path from 'path';
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

write('README.md', { 'role grants': roleGrantsTable() });
write('docs/COMPLIANCE.md', { 'cdk-nag counts': nagCountsTable(), 'cdk-nag acknowledgements': acknowledgementsTable() });
