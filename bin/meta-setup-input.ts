// Credentials typed at a terminal without echo, or piped in: never from the command line, where the
// shell history and the process list would keep them.
import type { ReadStream } from 'node:tty';
import { UsageError } from './cli-command';

const ENTER = new Set(['\r', '\n']);
const CANCEL = new Set(['\u0003', '\u0004']);
const ERASE = new Set(['\u007f', '\b']);

/**
 * One answer per prompt: asked on a terminal with echo off, or read from piped stdin, one value a
 * line (blank lines skipped).
 */
export async function readSecretValues(prompts: readonly string[], input: NodeJS.ReadStream = process.stdin, output: NodeJS.WritableStream = process.stderr): Promise<string[]> {
  if (input.isTTY) {
    const answers: string[] = [];
    for (const prompt of prompts) answers.push(await askHidden(prompt, input as ReadStream, output));
    return answers;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(Buffer.from(chunk as Buffer));
  const lines = Buffer.concat(chunks)
    .toString('utf8')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
  if (lines.length < prompts.length) {
    throw new UsageError(`Expected ${prompts.length} lines on stdin (${prompts.map((prompt) => prompt.replace(/:\s*$/, '')).join(', then ')}), got ${lines.length}.`);
  }
  return lines.slice(0, prompts.length);
}

function askHidden(prompt: string, input: ReadStream, output: NodeJS.WritableStream): Promise<string> {
  output.write(prompt);
  input.setRawMode(true);
  input.setEncoding('utf8');
  input.resume();
  let value = '';
  return new Promise((resolve, reject) => {
    const finish = (settle: () => void) => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      output.write('\n');
      settle();
    };
    const onData = (chunk: string) => {
      for (const character of chunk) {
        if (ENTER.has(character)) return finish(() => (value === '' ? reject(new UsageError(`Nothing was typed for "${prompt.trim()}".`)) : resolve(value.trim())));
        if (CANCEL.has(character)) return finish(() => reject(new UsageError('Cancelled; nothing was changed.')));
        if (ERASE.has(character)) value = value.slice(0, -1);
        else if (character >= ' ') value += character;
      }
    };
    input.on('data', onData);
  });
}
