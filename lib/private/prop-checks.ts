import { Token } from 'aws-cdk-lib';
import { SIMPLE_SETTINGS, type SimpleSettingDeclaration, type SimpleSettingName, type SimpleSettingOptions } from '../contract';

export { definedFields } from '../contract';

/** Throws the construct's error: what is wrong, and which prop to change. */
export type Fail = (problem: string) => never;

export function checkInteger(fail: Fail, label: string, value: number, min: number, max: number): void {
  if (!Token.isUnresolved(value) && (!Number.isInteger(value) || value < min || value > max)) {
    fail(`${label} must be a whole number from ${min} to ${max}; got ${value}.`);
  }
}

/**
 * Checks each simple setting the deployment chose against its declaration (lib/contract/settings-document.ts),
 * the same the runtime's reader checks the settings document against.
 */
export function checkSimpleSettings(fail: Fail, chosen: SimpleSettingOptions): void {
  for (const name of Object.keys(SIMPLE_SETTINGS) as SimpleSettingName[]) {
    const value = chosen[name];
    if (value === undefined || Token.isUnresolved(value)) continue;
    const declaration: SimpleSettingDeclaration = SIMPLE_SETTINGS[name];
    switch (declaration.kind) {
      case 'choice':
        if (!declaration.values.includes(value as string)) fail(`${name} '${value}' is not one of ${declaration.values.join(', ')}: ${declaration.hint}.`);
        break;
      case 'count':
        checkInteger(fail, name, value as number, declaration.min, declaration.max);
        break;
      case 'text': {
        const text = value as string;
        if (text.trim() === '' || text.length > declaration.maxCharacters) {
          fail(`${name} must be a non-blank text of at most ${declaration.maxCharacters} characters (${declaration.about}); got ${text.length} characters. Shorten it, or leave it out for the default.`);
        }
      }
    }
  }
}
