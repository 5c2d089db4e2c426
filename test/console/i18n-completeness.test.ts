// The console speaks every language whole: each key in every dictionary with the same placeholders,
// every key the views use defined, no words written into a view instead of the dictionaries, and
// every error code the API answers with put into words.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { AUDIT_ACTIONS } from '../../lib/contract/audit-actions';
import { CONVERSATION_REFUSAL_CODES } from '../../lib/contract/conversation-access';
import { LANGUAGES, type Language, type MessageKey } from '../../console/src/i18n';
import { explain, type Action } from '../../console/src/view-model';
import { API_ERROR_CODES, HttpError } from '../../lambda/operator/http-kit';
import { DICTIONARIES } from '../support/console-dictionaries';

const SOURCE = path.resolve(__dirname, '..', '..', 'console', 'src');
const LANGUAGE_NAMES = Object.keys(LANGUAGES) as Language[];
const KEYS = Object.keys(DICTIONARIES.pt) as MessageKey[];

/** The console's source files, by their path under console/src. */
function sourceFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(SOURCE, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/\.tsx?$/.test(entry.name) || entry.name.endsWith('.d.ts')) continue;
    const file = path.join(entry.parentPath, entry.name);
    files.set(path.relative(SOURCE, file), readFileSync(file, 'utf8'));
  }
  return files;
}

const placeholdersOf = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();

describe('the dictionaries', () => {
  it.each(LANGUAGE_NAMES)('%s has every key, none of them empty', (language) => {
    const dictionary: Readonly<Record<string, string>> = DICTIONARIES[language];
    expect(Object.keys(dictionary).sort()).toEqual([...KEYS].sort());
    expect(KEYS.filter((key) => dictionary[key].trim() === '')).toEqual([]);
  });

  it.each(LANGUAGE_NAMES)('%s fills in the same placeholders as Portuguese', (language) => {
    const differing = KEYS.filter((key) => placeholdersOf(DICTIONARIES[language][key]).join() !== placeholdersOf(DICTIONARIES.pt[key]).join());
    expect(differing).toEqual([]);
  });
});

describe('the views', () => {
  it('use only keys the dictionaries define', () => {
    // Keys the compiler cannot check: literals cast to MessageKey, or built in a table.
    const namespaces = new Set(KEYS.map((key) => key.split('.')[0]));
    const unknown: string[] = [];
    for (const [file, text] of sourceFiles()) {
      if (file === 'i18n.ts' || file.startsWith('dictionaries')) continue;
      for (const [, literal] of text.matchAll(/'([a-z][A-Za-z]*\.[A-Za-z0-9.-]+)'/g)) {
        if (namespaces.has(literal.split('.')[0]) && !Object.hasOwn(DICTIONARIES.pt, literal)) unknown.push(`${file}: ${literal}`);
      }
    }
    expect(unknown).toEqual([]);
  });

  it('write no words of their own: every text a person reads comes from the dictionaries', () => {
    /** Attributes a person reads or hears. */
    const SPOKEN_ATTRIBUTES = new Set(['aria-label', 'aria-description', 'aria-placeholder', 'aria-roledescription', 'title', 'placeholder', 'alt', 'label']);
    const hasWords = (text: string) => /\p{L}/u.test(text);
    const hardCoded: string[] = [];
    for (const [file, text] of sourceFiles()) {
      if (!file.endsWith('.tsx')) continue;
      const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
      const report = (node: ts.Node, words: string) => hardCoded.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${words.trim()}`);
      const visit = (node: ts.Node): void => {
        if (ts.isJsxText(node) && hasWords(node.text)) report(node, node.text);
        if (ts.isJsxAttribute(node) && SPOKEN_ATTRIBUTES.has(node.name.getText(source)) && node.initializer !== undefined) {
          const value = ts.isJsxExpression(node.initializer) ? node.initializer.expression : node.initializer;
          if (value !== undefined && (ts.isStringLiteral(value) || ts.isNoSubstitutionTemplateLiteral(value)) && hasWords(value.text)) report(node, value.text);
        }
        if (ts.isJsxExpression(node) && node.expression !== undefined && ts.isStringLiteral(node.expression) && ts.isJsxElement(node.parent) && hasWords(node.expression.text)) {
          report(node, node.expression.text);
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    expect(hardCoded).toEqual([]);
  });
});

describe('refusals of the API', () => {
  /** Every action a person can be refused in (the compiler keeps this list whole). */
  const ACTIONS: Readonly<Record<Action, true>> = {
    signIn: true,
    claim: true,
    reply: true,
    attach: true,
    release: true,
    close: true,
    takeOver: true,
    note: true,
    saveQuickReply: true,
    availability: true,
    saveDraft: true,
    publish: true,
    evaluate: true,
    rollback: true,
    saveConfig: true,
    saveScenario: true,
    removeScenario: true,
    draftScenario: true,
    redrive: true,
    syncTemplates: true,
    load: true,
  };

  const UNEXPECTED_CODES: ReadonlySet<string> = new Set(['internal_error', 'method_not_allowed']);

  it.each([...API_ERROR_CODES])('%s is put into words in every language, whatever the person was doing', (code) => {
    const status = new HttpError(code, '').statusCode;
    for (const action of Object.keys(ACTIONS) as Action[]) {
      const key = explain(status, action, code);
      for (const language of LANGUAGE_NAMES) expect([language, key, DICTIONARIES[language][key]?.trim()]).toEqual([language, key, expect.stringMatching(/\S/)]);
      // Only a failure of ours (the server's, or a call the console never makes) may be "something
      // unexpected": every other code tells the person what happened.
      if (!UNEXPECTED_CODES.has(code)) expect([code, action, key]).not.toEqual([code, action, 'error.unexpected']);
    }
  });
});

describe('a conversation refused by the rule of who may do what', () => {
  it.each([...CONVERSATION_REFUSAL_CODES])('words the refusal %s in every language, naming the person who has it where another has it', (code) => {
    for (const language of LANGUAGE_NAMES) {
      const words = (DICTIONARIES[language] as Readonly<Record<string, string>>)[`error.${code}`]?.trim();
      expect([language, words]).toEqual([language, expect.stringMatching(/\S/)]);
      expect([language, placeholdersOf(words ?? '')]).toEqual([language, code === 'conversation_taken' ? ['who'] : []]);
    }
  });
});

describe('the audit', () => {
  it.each([...AUDIT_ACTIONS])('words the action %s in every language', (action) => {
    for (const language of LANGUAGE_NAMES) expect([language, (DICTIONARIES[language] as Readonly<Record<string, string>>)[`audit.action.${action}`]?.trim()]).toEqual([language, expect.stringMatching(/\S/)]);
  });
});

