// The README's TypeScript blocks, which people paste into their apps: the snippet suites compile and
// synthesize them from here.
import * as fs from 'fs';
import * as path from 'path';

export interface Snippet {
  /** Where the block starts in the README, for the failure messages. */
  readonly line: number;
  readonly source: string;
}

export const README_PATH = path.resolve(__dirname, '..', '..', 'README.md');

/** The fenced TypeScript blocks of `markdown` (the README's by default), as rosetta counts them. */
export function typeScriptBlocks(markdown = fs.readFileSync(README_PATH, 'utf8')): Snippet[] {
  const blocks: Snippet[] = [];
  const fence = /^```(?:ts|typescript)\b[^\n]*\n([\s\S]*?)^```/gm;
  for (let match = fence.exec(markdown); match; match = fence.exec(markdown)) {
    blocks.push({ line: markdown.slice(0, match.index).split('\n').length, source: match[1] });
  }
  return blocks;
}
