// The TypeScript blocks of the README and of the guides in docs/, which people paste into their
// apps: the snippet suites compile and synthesize them from here.
import * as fs from 'fs';
import * as path from 'path';

export interface Snippet {
  /** Where the block starts in its file, for the failure messages. */
  readonly line: number;
  readonly source: string;
}

/** A block of the README or of a guide: its file, relative to the repository, names it with its line. */
export interface DocumentedSnippet extends Snippet {
  readonly file: string;
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

/**
 * The guides that took over the README's deeper sections: their blocks are whole files like the
 * README's (the other pages' blocks are excerpts of code, read, not pasted).
 */
export const GUIDES = ['docs/AGENT.md', 'docs/CONFIGURATION.md', 'docs/CONSOLE.md', 'docs/MEDIA.md', 'docs/META.md', 'docs/OPERATIONS.md', 'docs/SECURITY.md'];

/** The TypeScript blocks of the README and of the guides, each with the file it is in. */
export function documentedBlocks(): DocumentedSnippet[] {
  const root = path.dirname(README_PATH);
  const pages = ['README.md', ...GUIDES];
  return pages.flatMap((file) => typeScriptBlocks(fs.readFileSync(path.join(root, file), 'utf8')).map((block) => ({ ...block, file })));
}
